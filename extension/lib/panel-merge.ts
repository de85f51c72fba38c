/**
 * A per-session refresh (issue #26): when the host says one session changed, the panel asks for
 * that session alone and folds the answer into the list it has: that session's items, its entry in
 * `sessions`, its share of `counts` and `attention`; the devices, checks, hosts and the entries
 * about no session (devices, overload) come from the newer answer. Pure.
 * Design: docs/design.md §7.
 */
import type { AttentionItem, PanelCounts, PanelList } from "../../shared/schemas/native-messages";

const ZERO: PanelCounts = { all: 0, needs: 0, active: 0, ended: 0 };

function shift(counts: PanelCounts, minus: PanelCounts, plus: PanelCounts): PanelCounts {
  return {
    all: counts.all - minus.all + plus.all,
    needs: counts.needs - minus.needs + plus.needs,
    active: counts.active - minus.active + plus.active,
    ended: counts.ended - minus.ended + plus.ended,
  };
}

/** Whether a list can take per-session answers: only a daemon that filters (it has `sessions`). */
export const canMerge = (list: PanelList | null): list is PanelList & Required<Pick<PanelList, "sessions">> =>
  !!list?.sessions && !!list.counts && !!list.attention;

export function mergeSession(list: PanelList, sessionId: string, reply: PanelList): PanelList {
  const mine = (i: { session: { id: string } }) => i.session.id === sessionId;
  const at = list.items.findIndex(mine);
  const kept = list.items.filter((i) => !mine(i));
  // An item that did not change stays the same object, so its row is kept as drawn (lib/panel-row-cache.ts).
  const before = new Map(list.items.filter(mine).map((i) => [i.monitor.id, i]));
  const fresh = reply.items.filter(mine).map((item) => {
    const old = before.get(item.monitor.id);
    return old && JSON.stringify(old) === JSON.stringify(item) ? old : item;
  });
  const items = [...kept];
  items.splice(at === -1 ? items.length : at, 0, ...fresh);

  const was = list.sessions?.find((s) => s.id === sessionId);
  const after = reply.sessions?.find((s) => s.id === sessionId);
  const sessions = (list.sessions ?? []).filter((s) => s.id !== sessionId);
  if (after) {
    const index = list.sessions?.findIndex((s) => s.id === sessionId) ?? -1;
    sessions.splice(index === -1 ? sessions.length : index, 0, after);
  }
  const counts = shift(list.counts ?? ZERO, was?.counts ?? ZERO, after?.counts ?? ZERO);

  const attention: AttentionItem[] = [
    ...(list.attention ?? []).filter((a) => a.sessionId !== undefined && a.sessionId !== sessionId),
    ...(reply.attention ?? []).filter((a) => a.sessionId === undefined || a.sessionId === sessionId),
  ].sort((a, b) => a.rank - b.rank);

  return {
    ...list,
    total: list.total - (list.items.length - kept.length) + fresh.length,
    items,
    devices: reply.devices,
    checks: reply.checks,
    hosts: reply.hosts ?? list.hosts,
    counts,
    sessions,
    attention,
  };
}
