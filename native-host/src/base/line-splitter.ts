/**
 * Splits a byte stream into lines, cutting any line over `maxChars` (design.md §3: 2,000) and
 * dropping the rest of it, so one endless line cannot grow memory.
 */
export class LineSplitter {
  #partial = "";
  #overflowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxChars = 2000,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (let i = chunk.indexOf("\n"); i !== -1; i = chunk.indexOf("\n", start)) {
      this.#append(chunk.slice(start, i));
      this.#emit();
      start = i + 1;
    }
    this.#append(chunk.slice(start));
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.#partial !== "" || this.#overflowed) this.#emit();
  }

  #append(text: string): void {
    if (this.#overflowed) return;
    const room = this.maxChars - this.#partial.length;
    if (text.length > room) {
      this.#partial += text.slice(0, room);
      this.#overflowed = true;
    } else {
      this.#partial += text;
    }
  }

  #emit(): void {
    const line = this.#partial.replace(/\r$/, "");
    this.onLine(this.#overflowed ? `${line} …[line cut at ${this.maxChars} characters]` : line);
    this.#partial = "";
    this.#overflowed = false;
  }
}
