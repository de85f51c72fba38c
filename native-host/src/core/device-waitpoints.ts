/**
 * Waitpoints whose device is gone (design.md §5): `vigil devices rm` ends the armed waitpoints of the
 * device it removes, in the transaction that removes it, and the daemon's start ends any left from
 * a device removed before waitpoints were bound to a device's id. Each ends `lost` with the device
 * named, so its owner is woken once and hears why, rather than waiting on a waitpoint nothing can
 * resolve from that device any more.
 */
import type { Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { type EndingDeps, endInTx } from "./endings.js";

/** Ends the armed waitpoints `uids` (call inside a transaction); the sessions whose waitpoints ended. */
export async function endDeviceWaitpointsInTx(
  t: Tables,
  deps: EndingDeps,
  uids: number[],
  detail: string,
  now: number,
): Promise<string[]> {
  const sessions = new Set<string>();
  for (const uid of uids) {
    const record = (await t.monitors.byUid(uid)) as MonitorRecord | undefined;
    if (record && (await endInTx(t, deps, record, "lost", detail, now))) sessions.add(record.sessionId);
  }
  return [...sessions];
}
