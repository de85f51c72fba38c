/**
 * The side panel page's script (design.md §7): every monitor and waitpoint grouped by session, live.
 * Thin on purpose: main() hands the page to startPanel (lib/panel.ts), which registers every
 * listener synchronously; what the panel shows and does lives in lib/panel-*.ts.
 * Design: docs/design.md §7.
 */
import { browser } from "wxt/browser";
import { startPanel } from "../../lib/panel";

function main(): void {
  startPanel(browser, document);
}

main();
