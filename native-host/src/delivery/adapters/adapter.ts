/**
 * What a push adapter is handed for one turn, and what it reports back.
 * Design: docs/design.md §6.
 */
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import type { WakePayload } from "../../../../shared/schemas/views.js";
import { turnText as joinWakeTexts } from "../../../../shared/wording.js";

export interface TurnWake {
  id: string;
  text: string;
  payload: WakePayload;
  /** Manual retries so far: a resent wake is a new message (a new webhook-id). */
  resends: number;
}

export interface Turn {
  sessionId: string;
  turn: number;
  wakes: TurnWake[];
}

export interface DeliveryContext {
  signal: AbortSignal;
  /** whsec_… for webhooks. */
  webhookSecret: string | null;
  /** Secret values for ${secret:KEY} in adapter fields. */
  secrets: ReadonlyMap<string, string>;
  /** The session's folder (where an agent is resumed). */
  cwd: string;
}

export type DeliveryOutcome =
  | { ok: true; output: string | null; via: string }
  /** `retry: false` means retrying cannot help (the receiver refused): straight to needs_review. */
  | { ok: false; retry: boolean; error: string; output: string | null };

export interface PushAdapter<A extends Adapter = Adapter> {
  kind: A["kind"];
  /** Most a turn may take before it is abandoned (its lease is this plus a grace). */
  timeoutMs(adapter: A): number;
  deliver(adapter: A, turn: Turn, context: DeliveryContext): Promise<DeliveryOutcome>;
  /** Loads what `deliver` needs; called once, before the first turn is claimed (so not inside its lease). */
  prepare?(): Promise<void>;
  /**
   * Why the daemon must not deliver now (another path takes the wakes: a live agent's own hooks),
   * or null. Held wakes stay ready, and the daemon asks again every few seconds.
   */
  heldBy?(adapter: A, sessionId: string): string | null;
}

/** The text of a turn: every wake's text, in order, separated so a reader sees where each starts. */
export function turnText(turn: Turn): string {
  return joinWakeTexts(turn.wakes);
}

export function turnJson(turn: Turn): string {
  return JSON.stringify({
    type: "vigil.wakes",
    sessionId: turn.sessionId,
    turn: turn.turn,
    wakes: turn.wakes.map((wake) => ({ ...wake.payload, id: wake.id, text: wake.text })),
  });
}

export const tail = (text: string, max = 2000): string => (text.length > max ? `…${text.slice(-max)}` : text);
