import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { BATCH_WINDOW_MS, WatchBatch } from "./watch-batch.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function harness() {
  const recorded: string[] = [];
  const flushes: number[] = [];
  let limited = 0;
  const batch = new WatchBatch({
    now: () => Date.now(),
    record: (line) => recorded.push(line),
    flush: () => flushes.push(recorded.length),
    rateLimited: () => limited++,
  });
  return { batch, recorded, flushes, limited: () => limited };
}

test("lines within 200 ms are one wake", () => {
  const h = harness();
  h.batch.line("a");
  vi.advanceTimersByTime(100);
  h.batch.line("b");
  vi.advanceTimersByTime(BATCH_WINDOW_MS - 100);
  expect(h.flushes).toEqual([2]);
  h.batch.line("c");
  vi.advanceTimersByTime(BATCH_WINDOW_MS);
  expect(h.flushes).toEqual([2, 3]);
});

test("the 61st event in a sliding minute stops the watch; older events slide out", () => {
  const h = harness();
  for (let i = 0; i < 60; i++) {
    h.batch.line(`l${i}`);
    vi.advanceTimersByTime(500); // 60 lines over 30 s
  }
  expect(h.limited()).toBe(0);
  vi.advanceTimersByTime(30_001); // the first line is now over a minute old
  h.batch.line("fits");
  expect(h.limited()).toBe(0);
  for (let i = 0; i < 5; i++) h.batch.line(`burst${i}`);
  expect(h.limited()).toBe(1);
  expect(h.recorded.length).toBe(61); // 60 + "fits"; the line that hit the limit is not recorded
});

test("close cancels a pending flush (the ending wake carries the events)", () => {
  const h = harness();
  h.batch.line("a");
  h.batch.close();
  vi.advanceTimersByTime(1000);
  expect(h.flushes).toEqual([]);
  h.batch.line("after close");
  expect(h.recorded).toEqual(["a"]);
});
