/**
 * Tabs an active browser monitor reads get a badge on the toolbar button and a tooltip naming the
 * monitor, so the user knows why to keep them open. Marks follow the host's list; a tab is never
 * closed or changed by Vigil (after a monitor ends it stays for the user to inspect).
 * Design: docs/design.md §7.
 */
export interface MarkApi {
  mark(tabId: number, title: string): Promise<void>;
  unmark(tabId: number): Promise<void>;
}

export class TabMarks {
  readonly #marked = new Map<number, string>();

  constructor(private readonly api: MarkApi) {}

  get marked(): ReadonlyMap<number, string> {
    return this.#marked;
  }

  /** Marks exactly the tabs in `watched` (tab id → monitor names); a failure on a closed tab is ignored. */
  async sync(watched: Map<number, string[]>): Promise<void> {
    for (const [tabId, names] of watched) {
      const title = `Vigil watches this tab for: ${names.join(", ")}. Keep it open.`;
      if (this.#marked.get(tabId) === title) continue;
      this.#marked.set(tabId, title);
      await this.api.mark(tabId, title).catch(() => undefined);
    }
    for (const tabId of [...this.#marked.keys()]) {
      if (watched.has(tabId)) continue;
      this.#marked.delete(tabId);
      await this.api.unmark(tabId).catch(() => undefined);
    }
  }
}
