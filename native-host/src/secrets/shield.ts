/**
 * The exposure shield (design.md §3): every vault value is replaced by `[secret:KEY]` in any text or
 * JSON before it is stored, shown, logged or delivered. Longest values first, so a value that
 * contains another is masked whole.
 */
export class Shield {
  #entries: Array<[key: string, value: string]> = [];

  constructor(secrets: Iterable<[string, string]> = []) {
    this.setAll(secrets);
  }

  setAll(secrets: Iterable<[string, string]>): void {
    this.#entries = [...secrets].filter(([, value]) => value.length > 0).sort((a, b) => b[1].length - a[1].length);
  }

  set(key: string, value: string): void {
    this.setAll([...this.#entries.filter(([k]) => k !== key), [key, value]]);
  }

  delete(key: string): void {
    this.#entries = this.#entries.filter(([k]) => k !== key);
  }

  text(input: string): string {
    let out = input;
    for (const [key, value] of this.#entries) {
      if (out.includes(value)) out = out.split(value).join(`[secret:${key}]`);
    }
    return out;
  }

  /** Shields every string inside a JSON-like value (keys included). */
  json<T>(input: T): T {
    if (this.#entries.length === 0) return input;
    return walk(input, (s) => this.text(s)) as T;
  }
}

function walk(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, map));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [map(k), walk(v, map)]));
  }
  return value;
}
