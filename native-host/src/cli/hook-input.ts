/**
 * The JSON an agent's hook gets on stdin, parsed for every agent's hooks alike: malformed input and
 * input without a session id are told apart, and neither echoes more than 80 characters of it.
 * Design: docs/design.md §6.
 */
import type { z } from "zod";

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
