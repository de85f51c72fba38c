/**
 * The side panel's state: the link to the host, the last `list` answer, the last error, the
 * filters, and what the person has open (rows, check logs, a waitpoint's signals), selected (bulk
 * actions), collapsed (sessions, remembered) or is confirming (a Cancel). Plain data; the other
 * panel-*.ts modules read and change it, and lib/panel-render.ts draws it.
 * Design: docs/design.md §7.
 */
import type { PanelItem, PanelList } from "../../shared/schemas/native-messages";
import type { CheckEntry } from "../../shared/schemas/views";
import { type Filters, NO_FILTERS } from "./panel-filter";
import type { LinkState } from "./panel-protocol";

/** One action waiting for its Undo time. */
export interface HeldAction {
  /** What was done, as the toast says it: "Dismissed wake-2 of CI run 8812 green". */
  text: string;
  /** What it hides meanwhile: Needs-you entry keys and row keys ("sessionId/monitorId"). */
  hides: string[];
}

/** One Send again being followed. */
export interface Resend {
  sessionId: string;
  monitorId: string;
  wakeId: string;
  title: string;
  /** Whether the daemon took the request (the wake is ready again). */
  accepted: boolean;
  /** An error from the request itself. */
  error: string | null;
  /** When it settled (delivered or failed again), for SETTLED_MS. */
  settledAt: number | null;
}

export interface PanelState {
  link: LinkState;
  list: PanelList | null;
  /** The last request's error (the list, or an action); shown above the list. */
  error: string | null;
  /** Whether the last `list` request failed (the header then says so instead of "connected"). */
  listFailed: boolean;
  filters: Filters;
  /** The monitor (or "bulk") whose Cancel is asking for confirmation. */
  confirming: string | null;
  /** Rows opened to their details (issue #38 item 12: at rest a row is one line). */
  expanded: Set<string>;
  /** Monitors whose check log is open (null while loading). */
  checks: Map<string, CheckEntry[] | null>;
  /** Waitpoints whose signals are shown. */
  signals: Set<string>;
  /** Monitors selected for a bulk Pause / Resume / Cancel. */
  selected: Set<string>;
  /** Sessions folded away (remembered across panel opens). */
  collapsed: Set<string>;
  /** Sessions whose ended monitors of over a day ago are unfolded. */
  older: Set<string>;
  /** Whether browser notifications are on (the panel's setting). */
  notify: boolean;
  /** Whether "Needs you" shows every entry (else the NEEDS_SHOWN most urgent). */
  needsAll: boolean;
  /** Whether "Needs you" is folded to its heading (remembered across panel opens). */
  needsCollapsed: boolean;
  /** Dismiss, Clear ended and Cancel waiting for their Undo time, by key (lib/panel-undo.ts). */
  held: Map<string, HeldAction>;
  /** Send again, followed until delivered or failed again (lib/panel-send.ts), by "sessionId/wakeId". */
  resends: Map<string, Resend>;
}

export function createPanelState(collapsed: Iterable<string> = [], needsCollapsed = false): PanelState {
  return {
    link: { status: "connecting" },
    list: null,
    error: null,
    listFailed: false,
    filters: { ...NO_FILTERS },
    confirming: null,
    expanded: new Set(),
    checks: new Map(),
    signals: new Set(),
    selected: new Set(),
    collapsed: new Set(collapsed),
    older: new Set(),
    notify: true,
    needsAll: false,
    needsCollapsed,
    held: new Map(),
    resends: new Map(),
  };
}

/** How the panel names one monitor: "sessionId/monitorId" (data-item, check-log and confirm keys). */
export const itemKey = (item: PanelItem): string => `${item.session.id}/${item.monitor.id}`;
