/**
 * The side panel's state: the link to the host, the last `list` answer, the last error, and what
 * the user has open (waitpoint popovers, check logs) or is confirming (a Cancel). Plain data; the
 * other panel-*.ts modules read and change it, and lib/panel-render.ts draws it.
 * Design: docs/design.md §7.
 */
import type { PanelItem, PanelList } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import type { LinkState } from "./panel-protocol";

export interface PanelState {
  link: LinkState;
  list: PanelList | null;
  error: string | null;
  /** Sessions whose waitpoint popover is open. */
  open: Set<string>;
  /** The monitor whose Cancel is asking for confirmation. */
  confirming: string | null;
  /** Monitors whose check log is open (null while loading). */
  checks: Map<string, CheckEntry[] | null>;
}

export function createPanelState(): PanelState {
  return {
    link: { status: "connecting" },
    list: null,
    error: null,
    open: new Set(),
    confirming: null,
    checks: new Map(),
  };
}

/** How the panel names one monitor: "sessionId/monitorId" (data-item, check-log and confirm keys). */
export const itemKey = (item: PanelItem): string => `${item.session.id}/${item.monitor.id}`;
