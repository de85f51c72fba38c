/**
 * What every agent's hooks share: the JSON a hook gets on stdin, parsed alike (malformed input and
 * input without a session id are told apart, and neither echoes more than 80 characters of it);
 * the note a session starts with; the text a hook hands wakes over with.
 * Design: docs/design.md §6.
 */
import type { z } from "zod";
import type { WakeView } from "../../../shared/schemas/views.js";
import { turnText } from "../../../shared/wording.js";

/** What a session is told when it starts (`agent`: the agent's name, e.g. "Claude Code"). */
export function sessionNote(agent: string, sessionId: string): string {
  return [
    `Vigil is running for this session (${sessionId}). To wait for something — a build, a CI run, a deploy, a file —`,
    "do not poll and do not sleep: arm a Vigil wait and END YOUR TURN. For example:",
    "  vigil wait --until 15 -- <a check that exits 0 when it is done>",
    "  (or the vigil MCP tools: wait_for_command, monitor__create, wait_create)",
    `When it matches, fails or times out, ${agent} continues this session with the wake, even if it was closed.`,
  ].join("\n");
}

/** The wakes' texts, each followed by the handover tag the daemon made for it (it finds it in the transcript). */
export const handoverText = (wakes: WakeView[]): string =>
  turnText(wakes.map((w) => ({ id: w.id, text: w.handoverTag ? `${w.text}\n\n${w.handoverTag}` : w.text })));

export function parseHookJson<T>(text: string, schema: z.ZodType<T>, idField = "session_id"): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`Expected the hook's JSON on stdin, got ${text.trim() === "" ? "nothing" : "malformed JSON"}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`Expected a ${idField} in the hook's JSON, got ${JSON.stringify(raw).slice(0, 80)}`);
  return parsed.data;
}
