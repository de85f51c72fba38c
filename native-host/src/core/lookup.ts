/**
 * The one lookup of a session and of a monitor by the ids an interface was given: another session's
 * monitor is unknown here, so no session can read or act on another's work.
 * Design: docs/design.md §6, §8.
 */
import { NotFoundError } from "../base/errors.js";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";

export function sessionOrThrow(store: Store, id: string): SessionRow {
  const session = store.sessions.get(id);
  if (!session) throw new NotFoundError(`Unknown session ${id}`);
  return session;
}

export function monitorOrThrow(store: Store, sessionId: string, id: string, noun = "monitor"): MonitorRecord {
  sessionOrThrow(store, sessionId);
  const record = store.monitors.get(sessionId, id);
  if (!record || (noun === "waitpoint" && record.kind !== "signal")) {
    throw new NotFoundError(`Unknown ${noun} ${id} in session ${sessionId}`);
  }
  return record;
}
