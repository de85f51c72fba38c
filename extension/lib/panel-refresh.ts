/**
 * The side panel's data: the monitor list and the open check logs, fetched again whenever the host
 * says something changed or the link comes up. Refreshes never overlap: one asked for while another
 * runs happens once, right after it. Each refresh ends in a render.
 * Design: docs/design.md §7.
 */
import type { PanelList } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import type { PanelPush } from "./panel-port";
import type { PanelRequest } from "./panel-protocol";
import type { PanelState } from "./panel-state";

export interface PanelDataDeps {
  state: PanelState;
  request(body: PanelRequest): Promise<unknown>;
  render(): void;
}

export interface PanelData {
  /** Fetches the list (and every open check log) again, then renders. */
  refresh(): Promise<void>;
  /** Fetches one monitor's check log ("sessionId/monitorId"); on failure the log closes. */
  loadChecks(key: string): Promise<void>;
  /** A push from the background: the link state (refresh once connected) or "changed". */
  onPush(push: PanelPush): void;
}

export function createPanelData({ state, request, render }: PanelDataDeps): PanelData {
  let refreshing = false;
  let again = false;

  async function loadChecks(key: string) {
    const [sessionId, monitorId] = key.split("/") as [string, string];
    try {
      state.checks.set(key, (await request({ type: "checks", sessionId, monitorId })) as CheckEntry[]);
    } catch {
      state.checks.delete(key);
    }
  }

  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      state.list = (await request({ type: "list", offset: 0, limit: 500 })) as PanelList;
      state.error = null;
      await Promise.all([...state.checks.keys()].map(loadChecks));
    } catch (error) {
      state.error = (error as Error).message;
    } finally {
      refreshing = false;
    }
    render();
    if (again) {
      again = false;
      void refresh();
    }
  }

  function onPush(push: PanelPush) {
    if (push.type === "state") {
      state.link = push.state;
      if (push.state.status === "connected") void refresh();
      else render();
    } else void refresh();
  }

  return { refresh, loadChecks, onPush };
}
