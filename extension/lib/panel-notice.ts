/**
 * What the side panel shows instead of the list while the link is not up: "Connecting…", how to
 * install the native host (`no_host`), or how to start the daemon (`daemon_down`), with Retry now.
 * Design: docs/design.md §7.
 */
import { h } from "./dom";
import type { LinkState } from "./panel-protocol";

export function disconnectedNotice(link: Exclude<LinkState, { status: "connected" }>): HTMLElement {
  const retry = h("button", { "data-action": "retry", "data-key": "retry" }, "Retry now");
  if (link.status === "connecting") return h("p", { class: "notice" }, "Connecting to the Vigil host…");
  if (link.status === "no_host") {
    return h(
      "section",
      { class: "notice", "data-testid": "disconnected", "data-status": link.status },
      h("h2", {}, "The Vigil host is not installed"),
      h("p", {}, "This browser could not start ", h("code", {}, "vigil native-host"), ". To install it:"),
      h(
        "ol",
        {},
        h("li", {}, "In the Vigil checkout run ", h("code", {}, "npx vigil install"), "."),
        h("li", {}, "Check it with ", h("code", {}, "npx vigil doctor"), "."),
        h("li", {}, "Then retry (the panel also retries by itself)."),
      ),
      h("p", { class: "muted" }, link.error),
      retry,
    );
  }
  return h(
    "section",
    { class: "notice", "data-testid": "disconnected", "data-status": link.status },
    h("h2", {}, "The Vigil daemon is not running"),
    h(
      "p",
      {},
      "Start it with ",
      h("code", {}, "vigil serve"),
      " (or ",
      h("code", {}, "npm start"),
      " in the checkout).",
    ),
    h("p", { class: "muted" }, link.error),
    retry,
  );
}
