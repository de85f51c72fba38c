/**
 * A least-recently-used map bounded by the total bytes of its values, not their count: the GitHub
 * client's ETag cache keeps whole answers, and a count alone lets a few large ones take the heap.
 * A value larger than the whole budget is not kept. Design: docs/design.md §4.1, §8.
 */
export class ByteBudgetCache<V> {
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(readonly budget: number) {}

  /** The value, now the most recently used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` as the most recently used, dropping the least recently used until it fits. */
  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.budget) return;
    for (const [oldest] of this.#entries) {
      if (this.#bytes + bytes <= this.budget) break;
      this.delete(oldest);
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** The total bytes kept (never above `budget`). */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }
}
