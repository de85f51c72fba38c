/**
 * What a notification says (issue #40): for one Needs-you entry, its human reason first, then the
 * session, the monitor's name and id, how long it waited and the `vigil` command that acts on it;
 * for several, "3 need you: …" with one line each. Every part that came from outside is already
 * shielded by the attention list, and is escaped and capped here: it is shown as data.
 * Design: docs/design.md §7.
 */
import type { AttentionItem } from "../../../shared/schemas/views.js";
import { ATTENTION_REASON_TEXT, countOf, formatDuration } from "../../../shared/wording.js";
import { type FullTextAt, outsideLine } from "../core/outside-text.js";

/** Entries named one by one in a grouped message; the rest are counted. */
export const LISTED_IN_GROUP = 15;

export interface NotifyMessage {
  /** One line: "Vigil: delivery failed · nightly build", "Vigil: 3 need you". */
  title: string;
  /** The whole text, lines separated by "\n" (the first the reason, or "3 need you: …"). */
  text: string;
  /** The entries it tells of (most urgent first). */
  items: AttentionItem[];
  /** The most urgent cause (ntfy's priority and tags, a chat's emoji). */
  urgent: boolean;
}

/**
 * The one line that says why an entry needs the person: the entry's `headline` when the attention
 * list gives one, else the first line of its detail. The one place that reads either.
 */
export function reasonLine(item: AttentionItem): string {
  if (item.headline.trim() !== "") return item.headline.trim();
  const first = item.detail.split("\n").find((line) => line.trim() !== "");
  return first?.trim() ?? ATTENTION_REASON_TEXT[item.reason];
}

/**
 * An entry's key: the same while it needs the person for the same reason (the panel's
 * `attentionKey`: its reason, session, monitor, waitpoint or device, and wake).
 */
export const entryKey = (item: AttentionItem): string =>
  [item.reason, item.sessionId ?? "", item.monitorId ?? item.waitpointId ?? item.device ?? "", item.wakeId ?? ""].join(
    ":",
  );

/** Where the full text of an entry is. */
function fullTextAt(item: AttentionItem): FullTextAt {
  return item.monitorId && item.sessionId
    ? `vigil show ${item.monitorId} --session ${item.sessionId}`
    : "vigil show (see vigil status)";
}

/** The command that acts on an entry. */
export function actionCommand(item: AttentionItem): string {
  if (item.wakeId && (item.reason === "needs_review" || item.reason === "delivery_failed"))
    return `vigil retry ${item.wakeId}  (or: vigil dismiss ${item.wakeId})`;
  if (item.reason === "device_error") return "vigil devices";
  if (item.reason === "overload") return "vigil status";
  if (item.monitorId && item.sessionId) return `vigil show ${item.monitorId} --session ${item.sessionId}`;
  return "vigil status";
}

const URGENT = new Set(["unsealed", "needs_review", "delivery_failed", "waitpoint_failed", "waitpoint_stalled"]);

/** "nightly build (mon-3)" — outside text escaped and capped. */
const nameOf = (item: AttentionItem): string => {
  const title = outsideLine(item.title, fullTextAt(item), 120);
  return item.monitorId ? `${title} (${item.monitorId})` : title;
};

function oneEntry(item: AttentionItem, now: number): string[] {
  const lines = [outsideLine(reasonLine(item), fullTextAt(item))];
  if (item.sessionId) lines.push(`session: ${item.sessionId}`);
  lines.push(`${item.device ? "device" : "monitor"}: ${nameOf(item)}`);
  lines.push(`waiting: ${formatDuration(now - Date.parse(item.since))} (${ATTENTION_REASON_TEXT[item.reason]})`);
  lines.push(`act: ${actionCommand(item)}`);
  return lines;
}

/** The message for `items` (most urgent first), as of `now`. */
export function messageOf(items: readonly AttentionItem[], now: number): NotifyMessage {
  const sorted = [...items].sort((a, b) => a.rank - b.rank || (a.since < b.since ? -1 : 1));
  const first = sorted[0];
  if (first === undefined) throw new Error("Expected at least one entry to notify of, got none");
  const urgent = sorted.some((item) => URGENT.has(item.reason));
  if (sorted.length === 1) {
    const title = `Vigil: ${ATTENTION_REASON_TEXT[first.reason]} · ${outsideLine(first.title, fullTextAt(first), 80)}`;
    return { title, text: oneEntry(first, now).join("\n"), items: sorted, urgent };
  }
  const head = `${sorted.length} need you: ${sorted
    .slice(0, 3)
    .map((item) => ATTENTION_REASON_TEXT[item.reason])
    .join(", ")}${sorted.length > 3 ? ", …" : ""}`;
  const lines = sorted.slice(0, LISTED_IN_GROUP).map((item) => {
    const session = item.sessionId ? ` [${item.sessionId}]` : "";
    return `• ${outsideLine(reasonLine(item), fullTextAt(item), 160)} — ${nameOf(item)}${session} · ${actionCommand(item)}`;
  });
  const more = sorted.length - LISTED_IN_GROUP;
  if (more > 0) lines.push(`… and ${countOf(more, "more entry", "more entries")}: vigil ls --all, or the side panel`);
  return { title: `Vigil: ${sorted.length} need you`, text: [head, ...lines].join("\n"), items: sorted, urgent };
}
