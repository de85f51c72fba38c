/**
 * A row's id as the CLI knows it (issue #38 items 10, 11): `mon-N` or `wp_…`, shown on the row with
 * a Copy button for the matching `vigil show` command; and a search's matches marked in the
 * row's name, id, intent, last event, last error and signals (what the daemon searches).
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { h } from "./dom";

/** The command that shows this row in the CLI. */
export const showCommand = (item: PanelItem): string => `vigil show ${item.monitor.id} --session ${item.session.id}`;

/** The id and its Copy button (the click copies `data-copy`: lib/panel-actions.ts). */
export function idLine(item: PanelItem, key: string, q = ""): HTMLElement {
  const command = showCommand(item);
  return h(
    "div",
    { class: "id-line" },
    h("code", { class: "id" }, marked(item.monitor.id, q)),
    h(
      "button",
      {
        type: "button",
        class: "quiet copy",
        "data-action": "copy",
        "data-key": `${key}:copy`,
        "data-copy": command,
        title: command,
        "aria-label": `Copy the command: ${command}`,
      },
      "Copy",
    ),
  );
}

/** `text` with every case-insensitive occurrence of `q` in a <mark>. */
export function marked(text: string, q: string): Array<string | HTMLElement> {
  const needle = q.trim().toLowerCase();
  if (!needle) return [text];
  const out: Array<string | HTMLElement> = [];
  const lower = text.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) out.push(text.slice(from, at));
    out.push(h("mark", {}, text.slice(at, at + needle.length)));
    from = at + needle.length;
  }
  if (from < text.length) out.push(text.slice(from));
  return out;
}

/** Copies a command; says how it went on the button ("Copied", or what to do instead). */
export async function copyCommand(button: HTMLElement): Promise<void> {
  const command = button.dataset.copy ?? "";
  try {
    await navigator.clipboard.writeText(command);
    button.textContent = "Copied";
  } catch (error) {
    button.textContent = "Copy failed";
    button.title = `Copy it by hand: ${command} (${(error as Error).message})`;
  }
}
