/**
 * Wakes an agent's own hook took ("handed over"): leased, not yet delivered. Each is counted
 * delivered once the session's transcript shows the tag the hook put after it, and needs review if
 * it never does by its deadline — the agent may have dropped it (Esc, --max-turns, a killed hook).
 * Design: docs/design.md §6.
 */
import { readFileSync } from "node:fs";
import { handoverMarker } from "../../../shared/wording.js";
import { envConfig } from "../base/config.js";
import type { SessionRow } from "../store/sessions.js";
import { wakeIdOf } from "../store/wakes.js";

/** How often a transcript is read while a handed-over wake is not yet shown in it. */
export const HANDOVER_RECHECK_MS = 1000;
export const HANDOVER_UNSEEN =
  "the agent's hook took it, but the session's transcript never showed it (the agent may have dropped it); it was not repeated (retry it on purpose if that is safe)";

/** How long a handed-over wake may wait for the transcript (VIGIL_HOOK_CONFIRM_SECONDS, 600). */
export const handoverConfirmMs = (): number => (envConfig().VIGIL_HOOK_CONFIRM_SECONDS ?? 600) * 1000;

/** The transcript a handed-over wake is checked against: the agent session's own file, if known. */
export function transcriptOf(session: SessionRow): string | null {
  const adapter = session.adapter as { kind: string; transcriptPath?: string };
  return (adapter.kind === "claude" || adapter.kind === "codex") && adapter.transcriptPath
    ? adapter.transcriptPath
    : null;
}

interface Handover {
  sessionId: string;
  via: string;
  transcript: string;
  marker: string;
  until: number;
}

export class Handovers {
  readonly #open = new Map<number, Handover>();

  get size(): number {
    return this.#open.size;
  }

  add(wake: number, handover: { sessionId: string; via: string; transcript: string; until: number }): void {
    this.#open.set(wake, { ...handover, marker: handoverMarker(handover.sessionId, wakeIdOf(wake)) });
  }

  /** The handovers settled at `now`: shown in their transcript, or past their deadline unseen. */
  settle(now: number): Array<{ wake: number; sessionId: string; via: string; shown: boolean }> {
    const transcripts = new Map<string, string>();
    const read = (path: string) => {
      if (!transcripts.has(path)) {
        let text = "";
        try {
          text = readFileSync(path, "utf8");
        } catch {
          text = "";
        }
        transcripts.set(path, text);
      }
      return transcripts.get(path) as string;
    };
    const settled = [];
    for (const [wake, handover] of this.#open) {
      const shown = read(handover.transcript).includes(handover.marker);
      if (!shown && now < handover.until) continue;
      this.#open.delete(wake);
      settled.push({ wake, sessionId: handover.sessionId, via: handover.via, shown });
    }
    return settled;
  }
}
