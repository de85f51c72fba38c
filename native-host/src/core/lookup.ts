/**
 * The one lookup of a session and of a monitor by the ids an interface was given: another session's
 * monitor is unknown here, so no session can read or act on another's work.
 * Design: docs/design.md §6, §8.
 */
import { NotFoundError } from "../base/errors.js";
import type { Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";

export async function sessionOrThrow(tables: Tables, id: string): Promise<SessionRow> {
  const session = await tables.sessions.get(id);
  if (!session) throw new NotFoundError(`Unknown session ${id}`);
  return session;
}

export async function monitorOrThrow(
  tables: Tables,
  sessionId: string,
  id: string,
  noun = "monitor",
): Promise<MonitorRecord> {
  await sessionOrThrow(tables, sessionId);
  const record = await tables.monitors.get(sessionId, id);
  if (!record || (noun === "waitpoint" && record.kind !== "signal")) {
    throw new NotFoundError(`Unknown ${noun} ${id} in session ${sessionId}`);
  }
  return record;
}
