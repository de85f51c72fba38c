/**
 * The panel from the keyboard (issue #38 item 15): `/` focuses the search; `j` / `k` move between
 * the Needs-you entries and the rows, in the order shown; `Enter` on a row opens or closes its
 * details (a row at rest is one line), on an entry shows its row; `e` dismisses and `r` sends again on
 * the focused entry, through its own buttons (the same Undo toast and feedback). Not while typing
 * in a field, nor with a modifier held. The skip link ("Skip to the list", the first tab stop)
 * reaches the first entry in one Tab and Enter.
 * Design: docs/design.md §7.
 */

/** What j / k move between: Needs-you entries and monitor rows, in document order. */
export const NAVIGABLE = ".needs li[data-attention], li.monitor";

/** Keys an entry acts on, by the action of the button they press. */
const ENTRY_KEYS: Record<string, string> = { e: "needs-dismiss", r: "needs-retry" };

/** Whether a key press belongs to a field (typing) rather than to the panel. */
function isTyping(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element?.tagName) return false;
  return element.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(element.tagName);
}

/** The entry or row that holds the focus, if any. */
const focusedEntry = (doc: Document): HTMLElement | null =>
  (doc.activeElement as HTMLElement | null)?.closest?.<HTMLElement>(NAVIGABLE) ?? null;

/** Focuses an entry or row and brings it into view. */
export function focusEntry(entry: HTMLElement): void {
  entry.focus({ preventScroll: true });
  entry.scrollIntoView({ block: "nearest" });
}

/** Moves the focus to the next (`step` 1) or previous (-1) entry or row; the first when none has it. */
function move(app: HTMLElement, step: 1 | -1): void {
  const all = [...app.querySelectorAll<HTMLElement>(NAVIGABLE)];
  if (all.length === 0) return;
  const at = all.indexOf(focusedEntry(app.ownerDocument) as HTMLElement);
  const next = at === -1 ? all[0] : all[Math.min(all.length - 1, Math.max(0, at + step))];
  if (next) focusEntry(next);
}

/** Presses a button of the entry (or row) `entry` by its action; false when it has none. */
function press(entry: HTMLElement, action: string): boolean {
  const button = entry.querySelector<HTMLElement>(`button[data-action="${action}"]`);
  button?.click();
  return !!button;
}

/** Enter on the entry or row itself: a row opens or closes its details, an entry shows its row. */
function expand(entry: HTMLElement): boolean {
  return press(entry, entry.matches(".needs li[data-attention]") ? "needs-open" : "expand");
}

/** The panel's key listener (the document's keydown): true when it took the key. */
export function onPanelShortcut(app: HTMLElement, event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return false;
  const doc = app.ownerDocument;
  const entry = focusedEntry(doc);
  let taken = false;
  if (event.key === "/") {
    const search = app.querySelector<HTMLInputElement>('input[data-filter="q"]');
    search?.focus();
    search?.select();
    taken = !!search;
  } else if (event.key === "j" || event.key === "k") {
    move(app, event.key === "j" ? 1 : -1);
    taken = true;
  } else if (event.key === "Enter" && entry && doc.activeElement === entry) {
    taken = expand(entry);
  } else if (event.key in ENTRY_KEYS && entry?.matches(".needs li[data-attention]")) {
    taken = press(entry, ENTRY_KEYS[event.key] as string);
  }
  if (taken) event.preventDefault();
  return taken;
}

/** The skip link: its click (or Enter) focuses the first entry or row instead of following #app. */
export function onSkipLink(app: HTMLElement, event: Event): void {
  event.preventDefault();
  const first = app.querySelector<HTMLElement>(NAVIGABLE);
  if (first) focusEntry(first);
  else app.querySelector<HTMLElement>('input[data-filter="q"]')?.focus();
}
