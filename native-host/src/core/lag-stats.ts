/**
 * How late checks start against their due time: the last 1,000, for `vigil status` and the bench.
 * Design: docs/design.md §10.
 */
export class LagStats {
  readonly #samples: number[] = [];
  #next = 0;

  constructor(private readonly size = 1000) {}

  record(lateMs: number): void {
    if (this.#samples.length < this.size) this.#samples.push(lateMs);
    else this.#samples[this.#next] = lateMs;
    this.#next = (this.#next + 1) % this.size;
  }

  summary(): { n: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null } {
    if (this.#samples.length === 0) return { n: 0, p50Ms: null, p99Ms: null, maxMs: null };
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return { n: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] as number };
  }
}
