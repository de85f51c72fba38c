/**
 * A command row's last check (issue #38 item 1): its exit code and last lines, and "Open output",
 * which loads the check log (the same request as Checks) and opens the whole kept output — the last
 * 200 lines or 32 KiB, shielded by the daemon. Output is text from outside: text nodes in a `<pre>`,
 * never HTML.
 * Design: docs/design.md §7.1.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import { h } from "./dom";
import { itemButton } from "./panel-buttons";
import { itemKey, type PanelState } from "./panel-state";

const exitText = (exitCode: number | null): string => (exitCode === null ? "killed, no exit code" : `exit ${exitCode}`);

/** The exit code and last lines of the row's last check, with its whole output when opened; null: none kept. */
export function lastOutputPart(state: PanelState, item: PanelItem): HTMLElement | null {
  const last = item.monitor.lastOutput;
  if (!last) return null;
  const key = itemKey(item);
  const open = state.checks.has(key);
  const kept = latestKept(state.checks.get(key));
  return h(
    "div",
    { class: "last-output", "data-exit": String(last.exitCode) },
    h(
      "div",
      { class: "row" },
      h("span", { class: "exit" }, `last check: ${exitText(last.exitCode)}`),
      itemButton(key, "checks", open ? "Hide output" : "Open output", item.monitor.name, {
        "data-key": `${key}:output`,
        "aria-expanded": String(open),
        class: "quiet",
      }),
    ),
    last.lines ? h("pre", { class: "output-tail" }, last.lines) : h("p", { class: "muted" }, "no output"),
    open && kept
      ? h(
          "details",
          { class: "output-all", open: true },
          h("summary", {}, `Whole output of check #${kept.seq} (${exitText(kept.exitCode ?? null)})`),
          h("pre", {}, kept.output as string),
        )
      : open
        ? h("p", { class: "muted" }, state.checks.get(key) ? "No output kept." : "loading…")
        : null,
  );
}

/** The newest check that keeps output. */
const latestKept = (log: CheckEntry[] | null | undefined): CheckEntry | undefined =>
  log?.findLast((check) => typeof check.output === "string");
