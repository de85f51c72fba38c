/**
 * What the side panel's buttons do, from one delegated click listener (so a refresh never drops a
 * click): Retry now, open a session's waitpoints, show a check log, and Pause / Resume / Cancel a
 * monitor (Cancel asks first; Keep backs out). Each control is sent to the host, then the list is
 * fetched again.
 * Design: docs/design.md §7.
 */
import type { PanelItem } from "../../shared/schemas/native-messages";
import type { PanelPort } from "./panel-port";
import type { PanelData } from "./panel-refresh";
import { itemKey, type PanelState } from "./panel-state";

export interface PanelActionDeps {
  app: HTMLElement;
  state: PanelState;
  port: Pick<PanelPort, "request" | "retry">;
  data: Pick<PanelData, "refresh" | "loadChecks">;
  render(): void;
}

export type Control = "pause" | "resume" | "cancel";

/** Sends one control to the host; its error (if any) shows above the list after the refresh. */
export async function control(deps: PanelActionDeps, item: PanelItem, action: Control): Promise<void> {
  const { state, port, data } = deps;
  state.confirming = null;
  try {
    await port.request({ type: "control", sessionId: item.session.id, monitorId: item.monitor.id, action });
    state.error = null;
  } catch (error) {
    state.error = (error as Error).message;
  }
  await data.refresh();
}

/** The delegated listener: finds the clicked `[data-action]` and does what it names. */
export function onPanelClick(deps: PanelActionDeps, event: Event): void {
  const { app, state, port, data, render } = deps;
  const button = (event.target as Element).closest<HTMLElement>("[data-action]");
  if (!button) return;
  const action = button.dataset.action;
  if (action === "retry") {
    port.retry();
    return;
  }
  if (action === "capsule") {
    const group = button.dataset.group as string;
    if (!state.open.delete(group)) state.open.add(group);
    render();
    return;
  }
  const item = state.list?.items.find((i) => itemKey(i) === button.dataset.item);
  if (!item) return;
  const key = button.dataset.item as string;
  if (action === "cancel") {
    state.confirming = key;
    render();
    const place = button.dataset.key?.includes(":popover-") ? "popover-" : "";
    app.querySelector<HTMLElement>(`[data-key="${CSS.escape(`${key}:${place}confirm`)}"]`)?.focus();
  } else if (action === "keep") {
    state.confirming = null;
    render();
  } else if (action === "checks") {
    if (!state.checks.delete(key)) {
      state.checks.set(key, null);
      void data.loadChecks(key).then(() => render());
    }
    render();
  } else if (action === "confirm") void control(deps, item, "cancel");
  else if (action === "pause" || action === "resume") void control(deps, item, action);
}
