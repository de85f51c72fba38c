/**
 * The side panel's rows, drawn again only when what they show changed: a row is kept (lib/dom.ts
 * `keep`) while its item is the same object (a per-session refresh keeps the other sessions'
 * items, lib/panel-merge.ts) and the person's state about it (selected, check log, signals,
 * confirming, its device's state) is the same. Times inside a kept row tick in place
 * (lib/panel-clock.ts). With 1,000 monitors this turns a change from a 500-row build and diff into
 * one session's rows (bench/panel-browser.js).
 * Design: docs/design.md §7.
 */
import { keep, onPlaced } from "./dom";

interface Entry {
  inputs: readonly unknown[];
  /** The element in the page: the one built, or the one morphed into its shape. */
  live: HTMLElement;
}

export class RowCache {
  readonly #rows = new Map<string, Entry>();

  /** Before a render: rows no longer in the page are forgotten. */
  sweep(): void {
    for (const [key, entry] of this.#rows) if (!entry.live.isConnected) this.#rows.delete(key);
  }

  /** The row for `key`: a stand-in for the live one when `inputs` are the same as last time, else `build()`. */
  row(key: string, inputs: readonly unknown[], build: () => HTMLElement): HTMLElement {
    const hit = this.#rows.get(key);
    if (hit?.live.isConnected && same(hit.inputs, inputs)) return keep(hit.live);
    const built = build();
    const entry: Entry = { inputs, live: built };
    this.#rows.set(key, entry);
    onPlaced(built, (live) => {
      entry.live = live;
    });
    return built;
  }
}

function same(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((value, i) => Object.is(value, b[i]));
}
