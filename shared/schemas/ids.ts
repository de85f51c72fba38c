/**
 * The ids things are named by (design.md §7), one pattern each. Every boundary that takes one — MCP
 * tool arguments, CLI arguments, native messages, HTTP path parameters — checks it here, before a URL
 * is made or a row is looked up: no id can be "." or "..", hold a "/" or be empty, so none can turn
 * into another path (`wait_cancel {"id":".."}` once became `DELETE /api/sessions/S/`).
 */
import { z } from "zod";

/** A string matching `regex`, refused as "Expected WHAT, got "…"" (the value quoted, cut at 80). */
const idOf = (regex: RegExp, what: string) =>
  z.string().regex(regex, {
    error: (issue) => `Expected ${what}, got ${JSON.stringify(String(issue.input).slice(0, 80))}`,
  });

/** A session id: chosen by the caller (an agent's own session id) or made as `s-` + 8 hex. */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** `mon-N`: N counts up per session and is never handed out again in it. */
export const MONITOR_ID = /^mon-[1-9][0-9]{0,15}$/;
/** `wp_` + 12 hex digits (6 random bytes), global. */
export const WAITPOINT_ID = /^wp_[0-9a-f]{12}$/;
/** `wake-N`: global, never reused (AUTOINCREMENT). */
export const WAKE_ID = /^wake-[0-9]{1,15}$/;

export const SessionIdSchema = idOf(
  SESSION_ID,
  "a session id of up to 128 letters, digits, '.', '_', ':' or '-' starting with a letter or digit",
);
export const WaitpointIdSchema = idOf(WAITPOINT_ID, "a waitpoint id (wp_ and 12 hex digits)");
/** What the monitor routes and tools take: a monitor id, or a waitpoint id (a waitpoint is a monitor). */
export const MonitorRefSchema = idOf(
  new RegExp(`${MONITOR_ID.source}|${WAITPOINT_ID.source}`),
  "a monitor id (mon-N) or a waitpoint id (wp_ and 12 hex digits)",
);
export const WakeIdSchema = idOf(WAKE_ID, "a wake id (wake-N)");
