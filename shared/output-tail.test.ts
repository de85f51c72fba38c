/** A check's kept output: the last 200 lines or 32 KiB, whichever is smaller; the last lines shown. */
import { describe, expect, test } from "vitest";
import { lastLines, OUTPUT_TAIL_BYTES, OUTPUT_TAIL_LINES, outputTail } from "./output-tail.js";

const numbered = (count: number, width = 0) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`.padEnd(width, "x")).join("\n");

describe("outputTail", () => {
  test("300 short lines keep the last 200", () => {
    const tail = outputTail(`${numbered(300)}\n`);
    const lines = tail.split("\n");
    expect(lines).toHaveLength(OUTPUT_TAIL_LINES);
    expect(lines[0]).toBe("line 101");
    expect(lines.at(-1)).toBe("line 300");
  });

  test("long lines keep whole lines within 32 KiB, the newest last", () => {
    const tail = outputTail(numbered(200, 1000));
    expect(new TextEncoder().encode(tail).length).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(tail.split("\n")).toHaveLength(32);
    expect(tail.split("\n").at(-1)?.startsWith("line 200")).toBe(true);
  });

  test("one line longer than 32 KiB keeps its end, cut between characters", () => {
    const line = `${"é".repeat(20_000)}END`;
    const tail = outputTail(line);
    expect(new TextEncoder().encode(tail).length).toBeLessThanOrEqual(OUTPUT_TAIL_BYTES);
    expect(tail.endsWith("END")).toBe(true);
    expect(tail).toMatch(/^é+END$/);
  });

  test("short output is kept as it is, without its final newline", () => {
    expect(outputTail("ok\n")).toBe("ok");
    expect(outputTail("")).toBe("");
  });
});

test("lastLines gives the last n lines", () => {
  expect(lastLines("a\nb\nc\n", 2)).toBe("b\nc");
  expect(lastLines("a", 5)).toBe("a");
});
