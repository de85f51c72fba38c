/**
 * The exposure shield (design.md §3, §8): every vault value is replaced by `[secret:KEY]` in any text
 * or JSON before it is stored, shown, logged or delivered. Longest values first, so a value that
 * contains another is masked whole. Two forms that plain matching misses are masked too:
 * - a value written with JSON escapes inside a JSON string (`"s3cr\u0065t"`, `"a\/b"`): a string
 *   literal that decodes to text holding a value is re-encoded shielded;
 * - a value cut in two where Vigil cut a text (every cut is marked `…`): the piece of a value that
 *   touches a `…` (4 characters or more) is masked, so at most 3 characters of a value can remain.
 * Callers shield before they cut where they can; the cut rule covers output cut before it
 * reached the shield (a command's output tail, a tool's capped body).
 */
const CUT = "…";
const MIN_PIECE = 4;
const JSON_STRING = /"(?:[^"\\\n]|\\.)*"/g;

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
    if (this.#entries.length === 0) return input;
    let out = this.#whole(input);
    if (out.includes("\\")) out = out.replace(JSON_STRING, (literal) => this.#jsonString(literal));
    if (out.includes(CUT)) out = this.#cutEdges(out);
    return out;
  }

  #whole(input: string): string {
    let out = input;
    for (const [key, value] of this.#entries) {
      if (out.includes(value)) out = out.split(value).join(`[secret:${key}]`);
    }
    return out;
  }

  /** A JSON string literal whose decoded text holds a value, re-encoded shielded; others as they were. */
  #jsonString(literal: string): string {
    if (!literal.includes("\\")) return literal;
    let decoded: string;
    try {
      decoded = JSON.parse(literal) as string;
    } catch {
      return literal;
    }
    const shielded = this.#whole(decoded);
    return shielded === decoded ? literal : JSON.stringify(shielded);
  }

  /** Masks a value's piece on either side of each `…` (a space between is allowed before it). */
  #cutEdges(input: string): string {
    const parts = input.split(CUT);
    for (let i = 0; i < parts.length; i++) {
      let part = parts[i] as string;
      if (i > 0) part = this.#maskPiece(part, "start");
      if (i < parts.length - 1) part = this.#maskPiece(part, "end");
      parts[i] = part;
    }
    return parts.join(CUT);
  }

  /** The longest piece of any value (≥ MIN_PIECE) that `text` starts with (a value's end) or ends with (its start). */
  #maskPiece(text: string, side: "start" | "end"): string {
    const body = side === "end" && text.endsWith(" ") ? text.slice(0, -1) : text;
    const kept = text.slice(body.length);
    for (const [key, value] of this.#entries) {
      for (let n = Math.min(value.length - 1, body.length); n >= MIN_PIECE; n--) {
        if (side === "start" && body.startsWith(value.slice(value.length - n))) {
          return `[secret:${key}]${body.slice(n)}${kept}`;
        }
        if (side === "end" && body.endsWith(value.slice(0, n))) {
          return `${body.slice(0, body.length - n)}[secret:${key}]${kept}`;
        }
      }
    }
    return text;
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
