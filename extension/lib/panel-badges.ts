/**
 * A side panel badge as an element: the text, its tone (`data-tone`) and the error behind it on hover.
 * Which badges show is decided in lib/panel-view.ts.
 * Design: docs/design.md §7.
 */
import { h } from "./dom";
import type { Badge } from "./panel-view";

export const badgeElement = (badge: Badge): HTMLElement =>
  h("span", { class: "badge", "data-tone": badge.tone, title: badge.title }, badge.text);
