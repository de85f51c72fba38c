/**
 * The panel's side of Undo (issue #38 item 5): Dismiss, Clear ended and Cancel are handed to the
 * background (lib/held-actions.ts), which sends them once UNDO_MS is up; meanwhile what they act on
 * is hidden here as if done, and a toast says what was done with an Undo button (focused, so
 * Enter undoes; the toasts are a polite live region). Undo drops the action unsent and shows it all
 * again; the background's "sent" ends the toast.
 * Design: docs/design.md §7.
 */
import { h } from "./dom";
import { UNDO_MS } from "./held-actions";
import type { PanelRequest } from "./panel-protocol";
import type { HeldAction, PanelState } from "./panel-state";

export type { HeldAction };

export interface UndoDeps {
  app: HTMLElement;
  state: PanelState;
  port: { hold(key: string, requests: PanelRequest[]): void; undo(key: string): void };
  render(): void;
}

let seq = 0;

/** Holds an undoable action: sent by the background after UNDO_MS unless undone. */
export function holdAction(deps: UndoDeps, action: HeldAction, requests: PanelRequest[]): void {
  const { state, port, render } = deps;
  const key = `undo-${Date.now()}-${++seq}`;
  state.confirming = null;
  state.held.set(key, action);
  port.hold(key, requests);
  // Should the background's "sent" never come (it restarted), the toast still goes.
  setTimeout(() => {
    if (state.held.delete(key)) render();
  }, UNDO_MS + 2_000);
  render();
  toastButton(deps.app, key)?.focus();
}

/** Undo: the action is dropped unsent and what it hid shows again. */
export function undoAction(deps: UndoDeps, key: string): void {
  if (!deps.state.held.delete(key)) return;
  deps.port.undo(key);
  deps.render();
}

/** The background sent a held action: its toast goes; a failure shows above the list. */
export function onHeldSent(state: PanelState, key: string, error: string | null): void {
  state.held.delete(key);
  if (error) state.error = error;
}

/** Whether a held action hides this entry or row key. */
export function isHidden(state: PanelState, key: string): boolean {
  for (const action of state.held.values()) if (action.hides.includes(key)) return true;
  return false;
}

const toastButton = (app: HTMLElement, key: string) =>
  app.ownerDocument.querySelector<HTMLElement>(`[data-action="undo"][data-undo="${CSS.escape(key)}"]`);

/** The toasts: one per held action, newest last. */
export function toasts(state: PanelState): HTMLElement[] {
  return [...state.held].map(([key, action]) =>
    h(
      "div",
      { class: "toast", "data-toast": key },
      h("span", {}, action.text),
      h(
        "button",
        {
          type: "button",
          "data-action": "undo",
          "data-undo": key,
          "data-key": `undo:${key}`,
          "aria-label": `Undo: ${action.text}`,
        },
        "Undo",
      ),
    ),
  );
}
