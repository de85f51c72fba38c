import { describe, expect, test } from "vitest";
import { encodeFrame, FrameDecoder, FrameTooLargeError } from "./framing.js";

const frame = (message: unknown) => encodeFrame(message, 1024);

describe("native-messaging framing", () => {
  test("round-trips, with the length as uint32 little-endian", () => {
    const bytes = frame({ type: "ping" });
    expect(bytes.readUInt32LE(0)).toBe(Buffer.byteLength('{"type":"ping"}'));
    expect(new FrameDecoder(1024).push(bytes)).toEqual([{ ok: true, message: { type: "ping" } }]);
  });

  test("frames split across chunks, and several frames in one chunk", () => {
    const all = Buffer.concat([frame({ n: 1 }), frame({ n: 2 }), frame({ n: 3, text: "é ✓" })]);
    const decoder = new FrameDecoder(1024);
    const out = [];
    for (let i = 0; i < all.length; i += 3) out.push(...decoder.push(all.subarray(i, i + 3)));
    expect(out).toEqual([
      { ok: true, message: { n: 1 } },
      { ok: true, message: { n: 2 } },
      { ok: true, message: { n: 3, text: "é ✓" } },
    ]);
    expect(decoder.pending).toBe(0);
  });

  test("an oversized frame is reported and skipped; the next frame still decodes", () => {
    const big = Buffer.alloc(4 + 2000);
    big.writeUInt32LE(2000, 0);
    const decoder = new FrameDecoder(1024);
    expect(decoder.push(Buffer.concat([big.subarray(0, 10)]))).toEqual([
      { ok: false, error: "Expected a message of at most 1024 bytes, got 2000" },
    ]);
    expect(decoder.push(Buffer.concat([big.subarray(10), frame({ after: true })]))).toEqual([
      { ok: true, message: { after: true } },
    ]);
  });

  test("garbage JSON is reported, not thrown", () => {
    const body = Buffer.from("{nope");
    const header = Buffer.alloc(4);
    header.writeUInt32LE(body.length, 0);
    const [decoded] = new FrameDecoder(1024).push(Buffer.concat([header, body]));
    expect(decoded?.ok).toBe(false);
  });

  test("an outgoing message over the limit is refused before it is written", () => {
    expect(() => encodeFrame({ text: "x".repeat(2000) }, 1024)).toThrow(FrameTooLargeError);
  });
});
