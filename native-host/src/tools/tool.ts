/**
 * Built-in tools for the `tool` source (design.md §4.1). Each declares whether it is read-only; a
 * monitor may only call read-only ones, so a poll can never write anything.
 */
import type { z } from "zod";

export interface ToolContext {
  signal: AbortSignal;
  timeoutMs: number;
  /** Vault values for `${secret:KEY}` references in the arguments, resolved at start/resume. */
  secrets: ReadonlyMap<string, string>;
}

export interface Tool<A = unknown> {
  name: string;
  readOnly: boolean;
  description: string;
  args: z.ZodType<A>;
  /** The observation; throws ToolError when it cannot observe (kept as the monitor's last error). */
  run(args: A, context: ToolContext): Promise<unknown>;
}

export class ToolError extends Error {
  override name = "ToolError";
}

export const BODY_CAP = 64 * 1024;
