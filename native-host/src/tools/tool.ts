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
  /** Armed with `anyHost`: this host may not be the session's, so it must not read what only it reaches. */
  anyHost?: boolean;
}

export interface Tool<A = unknown> {
  name: string;
  readOnly: boolean;
  /**
   * Present when the tool needs nothing of the machine it runs on (http__get), so a source may ask
   * for any host of a team to run it (`anyHost`): why these arguments may not (a private URL), or null.
   */
  whyNotOnAnyHost?(args: A): string | null;
  description: string;
  args: z.ZodType<A>;
  /** The observation; throws ToolError when it cannot observe (kept as the monitor's last error). */
  run(args: A, context: ToolContext): Promise<unknown>;
  /** Arguments filled in at arming, before vault keys are checked (github__*: the default token). */
  withDefaults?(args: unknown, hasKey: (key: string) => boolean): unknown;
}

export class ToolError extends Error {
  override name = "ToolError";
  /** When the source asked not to be called before (a rate limit): the monitor's next check waits for it. */
  readonly retryAt: number | undefined;

  constructor(message: string, options: { retryAt?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAt = options.retryAt;
  }
}

export const BODY_CAP = 64 * 1024;
