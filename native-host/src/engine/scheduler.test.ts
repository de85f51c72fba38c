import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { Scheduler } from "./scheduler.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

test("one timer for the earliest due time, re-armed after each tick", () => {
  const due = [1000, 3000, 3000, 10_000];
  const ticks: number[] = [];
  const scheduler = new Scheduler({
    now: () => Date.now(),
    nextAt: () => due.find((at) => at > (ticks.at(-1) ?? -1)) ?? null,
    tick: (now) => {
      ticks.push(now);
    },
  });
  vi.setSystemTime(0);
  scheduler.poke();
  expect(vi.getTimerCount()).toBe(1);
  vi.advanceTimersByTime(10_000);
  expect(ticks).toEqual([1000, 3000, 10_000]);
  expect(vi.getTimerCount()).toBe(0);
  expect(scheduler.armedFor).toBeNull();
});

test("poking many times keeps a single timer; stop clears it", () => {
  const scheduler = new Scheduler({ now: () => Date.now(), nextAt: () => Date.now() + 5000, tick: () => {} });
  for (let i = 0; i < 100; i++) scheduler.poke();
  expect(vi.getTimerCount()).toBe(1);
  scheduler.stop();
  expect(vi.getTimerCount()).toBe(0);
  scheduler.poke();
  expect(vi.getTimerCount()).toBe(0);
});

test("a time far in the future is clamped to what setTimeout accepts", () => {
  const scheduler = new Scheduler({
    now: () => Date.now(),
    nextAt: () => Date.now() + 90 * 24 * 3600_000,
    tick: () => {},
  });
  scheduler.poke();
  expect(vi.getTimerCount()).toBe(1);
  scheduler.stop();
});

test("with a minimum gap, due times closer together than it share one tick; a lone due time is not moved", () => {
  const due = [1000, 1005, 1010, 1030, 5000];
  const ticks: number[] = [];
  const done = new Set<number>();
  const scheduler = new Scheduler(
    {
      now: () => Date.now(),
      nextAt: () => due.find((at) => !done.has(at)) ?? null,
      tick: (now) => {
        ticks.push(now);
        for (const at of due) if (at <= now) done.add(at);
      },
    },
    25,
  );
  vi.setSystemTime(0);
  scheduler.poke();
  expect(scheduler.armedFor).toBe(1000);
  vi.advanceTimersByTime(10_000);
  // 1005 and 1010 wait for the gap after 1000 and go together; 1030 is past the next gap; 5000 alone.
  expect(ticks).toEqual([1000, 1025, 1050, 5000]);
});
