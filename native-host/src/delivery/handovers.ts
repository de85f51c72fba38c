/**
 * Wakes an agent's own hook took ("handed over"): leased, not yet delivered. Each is counted
 * delivered once the session's transcript shows the tag the hook put after it, and needs review if
 * it never does by its deadline — the agent may have dropped it (Esc, --max-turns, a killed hook).
 * Each tag holds a random nonce made at the claim, and only what the transcript gained after the
 * claim is read (delivery/transcript-scan.ts): a tag written there before, or guessed, confirms
 * nothing, and a transcript that is a FIFO or a huge file never stalls the daemon.
 * Design: docs/design.md §6, §8.
 */
import { randomBytes } from "node:crypto";
import { isAgentAdapter } from "../../../shared/schemas/inputs.js";
import { handoverMarker } from "../../../shared/wording.js";
import { envConfig } from "../base/config.js";
import type { SessionRow } from "../store/sessions.js";
import { wakeIdOf } from "../store/wakes.js";
import { type Needle, scanTranscript, type TranscriptMark } from "./transcript-scan.js";

/** How often a transcript is read while a handed-over wake is not yet shown in it. */
export const HANDOVER_RECHECK_MS = 1000;
export { HANDOVER_UNSEEN } from "../core/review-causes.js";

/** How long a handed-over wake may wait for the transcript (VIGIL_HOOK_CONFIRM_SECONDS, 600). */
export const handoverConfirmMs = (): number => (envConfig().VIGIL_HOOK_CONFIRM_SECONDS ?? 600) * 1000;

/** The transcript a handed-over wake is checked against: the agent session's own file, if known. */
export function transcriptOf(session: SessionRow): string | null {
  return isAgentAdapter(session.adapter) && session.adapter.transcriptPath ? session.adapter.transcriptPath : null;
}

interface Handover extends Needle {
  sessionId: string;
  via: string;
  transcript: string;
  until: number;
  /** Why the transcript could not be read at the last look (its kind), or null. */
  problem: string | null;
}

export interface SettledHandover {
  wake: number;
  sessionId: string;
  via: string;
  shown: boolean;
  /** Unseen because the transcript could not be read (never the path, never its content). */
  problem: string | null;
}

export class Handovers {
  readonly #open = new Map<number, Handover>();

  get size(): number {
    return this.#open.size;
  }

  /**
   * Records a wake a hook took; `mark` is where its transcript ended at the claim (null: not a
   * regular file then). Returns the tag the hook puts after the wake's text.
   */
  add(
    wake: number,
    handover: { sessionId: string; via: string; transcript: string; until: number; mark: TranscriptMark | null },
  ): string {
    const { mark, ...rest } = handover;
    const tag = handoverMarker(handover.sessionId, wakeIdOf(wake), randomBytes(8).toString("hex"));
    this.#open.set(wake, { ...rest, tag: Buffer.from(tag), from: mark?.size ?? 0, file: mark, problem: null });
    return tag;
  }

  /**
   * Reads what each transcript gained since the last look and returns the handovers settled at
   * `now`: shown in their transcript, or past their deadline unseen.
   */
  async settle(now: number, signal?: AbortSignal): Promise<SettledHandover[]> {
    const byTranscript = new Map<string, Array<[number, Handover]>>();
    for (const entry of this.#open) {
      const group = byTranscript.get(entry[1].transcript) ?? [];
      group.push(entry);
      byTranscript.set(entry[1].transcript, group);
    }
    const shown = new Set<number>();
    for (const [path, group] of byTranscript) {
      const result = await scanTranscript(
        path,
        group.map(([, handover]) => handover),
        signal,
      );
      if (signal?.aborted) return [];
      group.forEach(([wake, handover], i) => {
        if (result === null) return;
        if ("refused" in result) {
          handover.problem = result.refused;
          return;
        }
        const seen = result.needles[i];
        handover.problem = null;
        handover.file = result.mark;
        handover.from = seen?.next ?? handover.from;
        if (seen?.found) shown.add(wake);
      });
    }
    const settled: SettledHandover[] = [];
    for (const [wake, handover] of this.#open) {
      // Added while the transcripts were read: looked at next time.
      if (!byTranscript.get(handover.transcript)?.some(([w]) => w === wake)) continue;
      if (!shown.has(wake) && now < handover.until) continue;
      this.#open.delete(wake);
      settled.push({
        wake,
        sessionId: handover.sessionId,
        via: handover.via,
        shown: shown.has(wake),
        problem: shown.has(wake) ? null : handover.problem,
      });
    }
    return settled;
  }
}
