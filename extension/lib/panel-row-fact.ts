/**
 * What a monitor's row says at rest, on its one line (issue #38 item 12), beside its name and
 * state chip: the one fact that matters — why it wants a look (a delivery problem, a failure's
 * message, a failing check's last line and exit code, an error), else what its condition read (an
 * `http__get`'s status and the field it tests, item 13), else how far it got (a waitpoint's
 * signals) — and the one time: when it ended, or when it will (deadline, expiry). Everything else
 * is in the expanded row. Pure.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { ReadField } from "../../shared/schemas/views";
import { deliveryProblem, ENDING_TEXT, exitHeadline } from "../../shared/wording";
import { canCancel, quorumText } from "./panel-view";

/** A time a row shows at rest: "deadline " + "in 5m", ticking. */
export interface RestTime {
  prefix: string;
  iso: string;
  future?: boolean;
}

const firstLine = (text: string): string => text.split("\n").find((line) => line.trim() !== "") ?? "";

/** What a condition read, on one line: "status 200 · body.state "success"". */
export const readFieldsText = (fields: ReadField[]): string =>
  fields.map((field) => `${field.path || "(observation)"} ${field.value}`).join(" · ");

/** The one fact a row shows at rest; null when its state chip says it all. */
export function restFact(item: PanelItem): string | null {
  const { monitor, waitpoint } = item;
  const problem = deliveryProblem(monitor.delivery);
  if (problem) return problem.text;
  if (waitpoint && waitpoint.state !== "armed") {
    const failure = waitpoint.signals.findLast((signal) => signal.status === "fail");
    if (failure?.message) return firstLine(failure.message);
  }
  const ending = monitor.ending;
  if (ending?.detail && (ending.reason === "lost" || ending.reason === "error"))
    return `${ENDING_TEXT[ending.reason]}: ${firstLine(ending.detail)}`;
  const output = monitor.lastOutput;
  if (output && output.exitCode !== 0) {
    const lines = output.lines.split("\n").filter((line) => line.trim() !== "");
    return exitHeadline(lines.at(-1) ?? "", output.exitCode);
  }
  if (monitor.lastError) return firstLine(monitor.lastError);
  if (monitor.readFields?.length) return readFieldsText(monitor.readFields);
  if (waitpoint) return quorumText(waitpoint);
  if (monitor.lastEvent) return firstLine(monitor.lastEvent);
  return null;
}

/** The one time a row shows at rest: when it ended; else when it ends at the latest; else its last check. */
export function restTime(item: PanelItem): RestTime | null {
  const { monitor, waitpoint } = item;
  if (!canCancel(monitor.state)) return monitor.ending ? { prefix: "", iso: monitor.ending.at } : null;
  // "ends in 30m": met or not, it ends by then (its deadline, a waitpoint's expiry); short for one line.
  if (waitpoint?.state === "armed" && waitpoint.expiresAt)
    return { prefix: "ends ", iso: waitpoint.expiresAt, future: true };
  if (monitor.deadlineAt) return { prefix: "ends ", iso: monitor.deadlineAt, future: true };
  return monitor.lastCheckAt ? { prefix: "checked ", iso: monitor.lastCheckAt } : null;
}
