/**
 * What a row says about its cause beyond its state (issue #38 items 1, 9, 16): a command's last
 * check (lib/panel-output.ts), why it ended when that is not plain (lost, error: the reason that
 * was only in the log), and that a paused row's deadline keeps running.
 * Design: docs/design.md §7.1.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import { ENDING_TEXT, PAUSED_DEADLINE_TEXT } from "../../shared/wording";
import { h } from "./dom";
import { lastOutputPart } from "./panel-output";
import type { PanelState } from "./panel-state";

/** Endings whose reason the row spells out: nothing else on the row says why. */
const EXPLAINED_ENDINGS = new Set(["lost", "error"]);

export function rowCauseParts(state: PanelState, item: PanelItem): Array<HTMLElement | null> {
  const { monitor } = item;
  const ending = monitor.ending;
  return [
    lastOutputPart(state, item),
    ending?.detail && EXPLAINED_ENDINGS.has(ending.reason)
      ? h(
          "div",
          { class: "muted ending-cause", "data-ending": ending.reason },
          `${ENDING_TEXT[ending.reason]}: ${ending.detail}`,
        )
      : null,
    monitor.state === "paused" && monitor.deadlineAt
      ? h("div", { class: "muted paused-deadline" }, PAUSED_DEADLINE_TEXT)
      : null,
  ];
}
