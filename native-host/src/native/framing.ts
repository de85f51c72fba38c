/**
 * The browser's native-messaging framing: a uint32 length in native (little-endian) byte order,
 * then that many bytes of UTF-8 JSON. The decoder copes with frames split across chunks and
 * several frames in one chunk; an oversized frame is skipped (its bytes are discarded) and reported.
 * A frame nested deeper than MAX_JSON_DEPTH is refused like malformed JSON.
 * Design: docs/design.md §7, §8.
 */
import { tooDeep, tooDeepMessage } from "../base/json-depth.js";

export class FrameTooLargeError extends Error {
  override name = "FrameTooLargeError";
}

export function encodeFrame(message: unknown, maxBytes: number): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (body.length > maxBytes) {
    throw new FrameTooLargeError(`Expected a message of at most ${maxBytes} bytes, got ${body.length}`);
  }
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length, 0);
  return Buffer.concat([header, body]);
}

export type DecodedFrame = { ok: true; message: unknown } | { ok: false; error: string };

export class FrameDecoder {
  #buffer: Buffer = Buffer.alloc(0);
  #skip = 0;

  constructor(private readonly maxBytes: number) {}

  /** Feeds bytes; returns every frame completed by them, in order. */
  push(chunk: Buffer): DecodedFrame[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const frames: DecodedFrame[] = [];
    for (;;) {
      if (this.#skip > 0) {
        const dropped = Math.min(this.#skip, this.#buffer.length);
        this.#buffer = this.#buffer.subarray(dropped);
        this.#skip -= dropped;
        if (this.#skip > 0) return frames;
      }
      if (this.#buffer.length < 4) return frames;
      const length = this.#buffer.readUInt32LE(0);
      if (length > this.maxBytes) {
        frames.push({ ok: false, error: `Expected a message of at most ${this.maxBytes} bytes, got ${length}` });
        this.#buffer = this.#buffer.subarray(4);
        this.#skip = length;
        continue;
      }
      if (this.#buffer.length < 4 + length) return frames;
      const body = this.#buffer.subarray(4, 4 + length).toString("utf8");
      this.#buffer = this.#buffer.subarray(4 + length);
      try {
        const message: unknown = JSON.parse(body);
        frames.push(tooDeep(message) ? { ok: false, error: tooDeepMessage() } : { ok: true, message });
      } catch (error) {
        frames.push({ ok: false, error: `Expected JSON, got malformed JSON (${(error as Error).message})` });
      }
    }
  }

  /** Bytes of an unfinished frame when the stream ended. */
  get pending(): number {
    return this.#buffer.length + this.#skip;
  }
}
