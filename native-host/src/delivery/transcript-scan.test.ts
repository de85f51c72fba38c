import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { markOf, type Needle, scanTranscript } from "./transcript-scan.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vigil-transcript-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TAG = "[vigil wake-7 abcdefgh 0123456789abcdef]";
const needle = (from: number, file: Needle["file"] = null): Needle => ({ tag: Buffer.from(TAG), from, file });

test("finds a tag appended after the mark, across chunk boundaries, in a JSON-escaped line", async () => {
  const path = join(dir, "t.jsonl");
  writeFileSync(path, "x".repeat(1000));
  const mark = await markOf(path);
  expect(mark?.size).toBe(1000);
  appendFileSync(path, `${JSON.stringify({ message: `Stop hook feedback:\n"quoted"\n\n${TAG}` })}\n`);
  // Every chunk size from 1 byte up cuts the tag at every place once.
  for (const chunk of [1, 2, 7, 16, 39, 40, 41, 64, 4096]) {
    const result = await scanTranscript(path, [needle(1000, mark)], undefined, chunk);
    expect(result && "mark" in result && result.needles[0]?.found, `chunk ${chunk}`).toBe(true);
  }
});

test("a tag before the mark is not seen; the next look starts where this one ended", async () => {
  const path = join(dir, "t.jsonl");
  writeFileSync(path, `${TAG}\n`);
  const mark = await markOf(path);
  const first = await scanTranscript(path, [needle(mark?.size ?? 0, mark)], undefined, 8);
  expect(first).toMatchObject({ needles: [{ found: false }] });
  appendFileSync(path, "y".repeat(100));
  const second = await scanTranscript(path, [needle(mark?.size ?? 0, mark)], undefined, 8);
  if (!second || !("mark" in second)) throw new Error(`Expected a scan, got ${JSON.stringify(second)}`);
  expect(second.needles[0]).toEqual({ found: false, next: (mark?.size ?? 0) + 100 - (TAG.length - 1) });
});

test("a file replaced or truncated since the mark is read from its start", async () => {
  const path = join(dir, "t.jsonl");
  writeFileSync(path, "z".repeat(500));
  const mark = await markOf(path);
  writeFileSync(join(dir, "new"), `${TAG}\n`);
  renameSync(join(dir, "new"), path);
  expect(await scanTranscript(path, [needle(500, mark)])).toMatchObject({ needles: [{ found: true }] });
  writeFileSync(path, `${TAG}\n`); // same inode, shorter than the mark
  const same = await markOf(path);
  expect(await scanTranscript(path, [needle(500, same)])).toMatchObject({ needles: [{ found: true }] });
});

test("a FIFO, a link, a directory and a device are refused by kind, unread; a missing file is asked again", async () => {
  const fifo = join(dir, "fifo");
  execFileSync("mkfifo", [fifo]);
  const link = join(dir, "link");
  writeFileSync(join(dir, "real"), TAG);
  symlinkSync(join(dir, "real"), link);
  expect(await markOf(fifo)).toBeNull();
  // No writer ever opens the FIFO: a blocking open or read would never return.
  expect(await scanTranscript(fifo, [needle(0)])).toEqual({
    refused: "Expected the transcript to be a regular file, got a FIFO",
  });
  expect(await scanTranscript(link, [needle(0)])).toEqual({
    refused: "Expected the transcript to be a regular file, got a symbolic link",
  });
  expect(await scanTranscript(dir, [needle(0)])).toEqual({
    refused: "Expected the transcript to be a regular file, got a directory",
  });
  expect(await scanTranscript("/dev/zero", [needle(0)])).toEqual({
    refused: "Expected the transcript to be a regular file, got a character device",
  });
  expect(await scanTranscript(join(dir, "missing"), [needle(0)])).toBeNull();
});

test("several tags in one pass: each from its own mark", async () => {
  const path = join(dir, "t.jsonl");
  const other = "[vigil wake-8 abcdefgh fedcba9876543210]";
  writeFileSync(path, `${other}\n`);
  const mark = await markOf(path);
  appendFileSync(path, `${TAG}\n`);
  const result = await scanTranscript(path, [
    needle(mark?.size ?? 0, mark),
    { ...needle(mark?.size ?? 0, mark), tag: Buffer.from(other) },
  ]);
  expect(result).toMatchObject({ needles: [{ found: true }, { found: false }] });
});
