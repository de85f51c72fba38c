/**
 * The panel's tabs and kinds (and how many Needs-you entries it shows), without zod: the side
 * panel page imports these, and importing them from shared/schemas/native-messages.ts put all of
 * zod into its script (bench/panel-browser.js:
 * first list painted). native-messages.ts re-exports them and builds its schemas from them.
 * Design: docs/design.md §7.
 */

/** The panel's tabs: everything, what needs the person, what still waits, what has ended. */
export const PANEL_FILTERS = ["all", "needs", "active", "ended"] as const;
export type PanelFilter = (typeof PANEL_FILTERS)[number];
/** The kinds the panel filters by (a waitpoint is a `signal` monitor). */
export const PANEL_KINDS = ["command", "watch", "browser", "tool", "event", "time", "waitpoint"] as const;
export type PanelKind = (typeof PANEL_KINDS)[number];

/**
 * How many entries the panel's "Needs you" shows before "Show all": the most urgent, so that a
 * hundred stalled waitpoints do not push the list off the screen (the "Needs you" tab lists every
 * monitor among them).
 */
export const NEEDS_SHOWN = 8;
