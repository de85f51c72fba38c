/**
 * The shape every source kind exports: one file per kind under `probes/`, all listed
 * in `registry.ts`. A poll probe makes one observation per check; a stream probe runs a process
 * whose lines become events.
 * Design: docs/design.md §4.1.
 */

import type { z } from "zod";
import type { Condition } from "../../../shared/schemas/conditions.js";
import type { CheckSandbox } from "../../../shared/schemas/sandbox.js";
import type { Source } from "../../../shared/schemas/sources.js";
import type { BrowserRequester } from "../browser/link.js";
import type { CheckResult } from "../core/check-result.js";
import type { Timing } from "./timing.js";

export interface CheckContext {
  signal: AbortSignal;
  cwd: string;
  /** Secret values for `${secret:KEY}` references, as environment variables. */
  env: Record<string, string>;
  timeoutMs: number;
  /** The connected browser (a `browser` source asks it to read the tab). */
  browser: BrowserRequester;
  /** The monitor's name, shown on the tab it reads. */
  label: string;
  /** Codex's sandbox its command runs in, fixed when it was armed (issue #37); null: none. */
  sandbox: CheckSandbox | null;
}

export type { CheckResult };

export interface StreamContext {
  signal: AbortSignal;
  cwd: string;
  env: Record<string, string>;
  sandbox: CheckSandbox | null;
  onLine(line: string): void;
  onExit(exitCode: number | null, detail: string): void;
}

interface ProbeBase<S extends Source> {
  kind: S["kind"];
  schema: z.ZodType<S>;
  /** The name a monitor gets when none is given. */
  defaultName(source: S): string;
  /** Shown in lists and wakes: what is being watched. */
  describe(source: S): string;
  /** Applies the kind's interval and deadline rules; throws ValidationError naming the bound. */
  timing(input: { intervalSeconds?: number; timeoutSeconds?: number }): Timing;
  /** Text that may hold `${secret:KEY}` references (resolved through the vault). */
  secretText(source: S): string;
  /**
   * Whether any host of a team may run its checks (team mode, design.md §9.1): an HTTP request or a
   * clock does not need the session's machine. Absent: host-bound (a command, a watch, a tab, a
   * file). A source holding a vault reference is host-bound whatever this says (vaults are per home).
   */
  hostFree?(source: S): boolean;
  /** The per-session caps this kind counts toward (see LIMITS in registry.ts). */
  limitGroups: readonly string[];
  /** The source with defaults that depend on the vault filled in, at creation (before keys are checked). */
  withDefaults?(source: S, hasKey: (key: string) => boolean): S;
  /** Checks beyond the schema, at creation (a read-only tool; a time before the deadline). */
  validate?(source: S, context: { now: number; deadlineAt: number }): void;
}

export interface PollProbe<S extends Source = Source> extends ProbeBase<S> {
  mode: "poll";
  /** When the first check is due (default: at once); null never polls (an event without fallback). */
  firstDueAt?(source: S, now: number): number | null;
  condition(source: S): Condition;
  /** How a met ending reads when the generic "condition … held on check N" would mislead. */
  metDetail?(source: S): string;
  check(source: S, context: CheckContext): Promise<CheckResult>;
}

export interface StreamProbe<S extends Source = Source> extends ProbeBase<S> {
  mode: "stream";
  start(source: S, context: StreamContext): void;
}

/** Signals arrive from outside (a waitpoint): nothing is polled or run. */
export interface SignalProbe<S extends Source = Source> extends ProbeBase<S> {
  mode: "signal";
}

export type Probe<S extends Source = Source> = PollProbe<S> | StreamProbe<S> | SignalProbe<S>;
