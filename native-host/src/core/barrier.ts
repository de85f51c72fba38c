/**
 * When a waitpoint wakes its owner (design.md §5), decided without I/O: quorum of terminal signals
 * (distinct members when it has members), fail_fast, the 3 s settle for waitpoints needing more
 * than one signal, max_signals, and the per-hour wake cap.
 */
export const SETTLE_MS = 3000;
export const HOUR_MS = 3_600_000;

export interface BarrierSignal {
  status: "ok" | "fail" | "progress";
  member: string | null;
  receivedAt: number;
}

export interface BarrierInput {
  members: string[] | null;
  quorum: number;
  failFast: boolean;
  maxSignals: number;
  /** Signals not yet carried by a wake, oldest first. */
  pending: BarrierSignal[];
  /** Wakes this waitpoint already produced. */
  wakesSent: number;
  /** When its wakes of the last hour were made, oldest first. */
  wakeTimesLastHour: number[];
  maxWakesPerHour: number;
}

export type BarrierDecision =
  | { fire: false; counted: number }
  | {
      fire: true;
      /** Not before this time (settle, or the hourly cap clearing). */
      at: number;
      /** The last wake it may send: the waitpoint resolves. */
      final: boolean;
      reason: "met" | "failed";
      counted: number;
      capped: boolean;
    };

export function countTerminal(members: string[] | null, signals: BarrierSignal[]): number {
  const terminal = signals.filter((s) => s.status !== "progress");
  return members ? new Set(terminal.map((s) => s.member)).size : terminal.length;
}

export function decide(input: BarrierInput): BarrierDecision {
  const terminal = input.pending.filter((s) => s.status !== "progress");
  const counted = countTerminal(input.members, terminal);
  const failed = terminal.find((s) => s.status === "fail");
  const complete = counted >= input.quorum || (input.failFast && failed !== undefined);
  if (!complete) return { fire: false, counted };
  // The signal that completed it: the quorum-th distinct one, or the first fail under fail_fast.
  const completedAt = completionTime(input, terminal, failed);
  let at = input.quorum > 1 ? completedAt + SETTLE_MS : completedAt;
  const recent = input.wakeTimesLastHour;
  const capped = recent.length >= input.maxWakesPerHour;
  if (capped) at = Math.max(at, (recent[recent.length - input.maxWakesPerHour] as number) + HOUR_MS);
  return {
    fire: true,
    at,
    final: input.wakesSent + 1 >= input.maxSignals,
    reason: failed ? "failed" : "met",
    counted,
    capped,
  };
}

function completionTime(input: BarrierInput, terminal: BarrierSignal[], failed: BarrierSignal | undefined): number {
  const seen = new Set<string | null>();
  let n = 0;
  for (const signal of terminal) {
    const key = input.members ? signal.member : `#${n}`;
    if (!seen.has(key)) {
      seen.add(key);
      n += 1;
    }
    if (n >= input.quorum) return signal.receivedAt;
    if (input.failFast && signal === failed) return signal.receivedAt;
  }
  return terminal.at(-1)?.receivedAt ?? 0;
}

/** The deadline notice: whether nobody reported, only some members did, or only heartbeats came. */
export function deadlineNotice(input: {
  members: string[] | null;
  quorum: number;
  all: BarrierSignal[];
  pending: BarrierSignal[];
  wakesSent: number;
  maxSignals: number;
  /** Progress signals no longer kept (not in `all`). */
  progressDropped?: number;
}): string {
  const terminal = input.all.filter((s) => s.status !== "progress");
  const heartbeats = input.all.length - terminal.length + (input.progressDropped ?? 0);
  if (input.maxSignals > 1 && input.wakesSent > 0) {
    const unsent = input.pending.length;
    return `the waitpoint expired; it woke you ${input.wakesSent} time${input.wakesSent === 1 ? "" : "s"}${unsent ? `, and ${unsent} report${unsent === 1 ? "" : "s"} below had not reached you yet` : ""}`;
  }
  if (input.all.length === 0 && heartbeats === 0) return "nobody reported before the deadline";
  if (terminal.length === 0) {
    return `only heartbeats arrived (${heartbeats} progress report${heartbeats === 1 ? "" : "s"}), no ok or fail`;
  }
  if (input.members) {
    const reported = [...new Set(terminal.map((s) => s.member))];
    const missing = input.members.filter((m) => !reported.includes(m));
    return `only some members reported (${reported.join(", ")}); still missing: ${missing.join(", ")} (quorum ${input.quorum})`;
  }
  return `only ${terminal.length} of ${input.quorum} required signals arrived`;
}
