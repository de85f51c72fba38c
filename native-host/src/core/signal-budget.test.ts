import { expect, test } from "vitest";
import { SignalBudget } from "./signal-budget.js";

const budget = { perMinute: 60, burst: 3 };

test("a burst is stored, the next signal waits for a token: the wait is the time until one is back", () => {
  let now = 0;
  const signals = new SignalBudget(() => now, budget);
  expect([1, 2, 3].map(() => signals.take("wp_a", "progress"))).toEqual([0, 0, 0]);
  expect(signals.take("wp_a", "progress")).toBe(1000);
  now = 400;
  expect(signals.take("wp_a", "progress")).toBe(600);
  now = 1000;
  expect(signals.take("wp_a", "progress")).toBe(0);
  expect(signals.take("wp_a", "progress")).toBe(1000);
});

test("a flood of progress never holds back an ending, nor another waitpoint's signals", () => {
  const signals = new SignalBudget(() => 0, budget);
  for (let i = 0; i < 10; i++) signals.take("wp_a", "progress");
  expect(signals.take("wp_a", "ending")).toBe(0);
  expect(signals.take("wp_b", "progress")).toBe(0);
});

test("an idle bucket refills to the burst, not beyond", () => {
  let now = 0;
  const signals = new SignalBudget(() => now, budget);
  signals.take("wp_a", "ending");
  now = 3_600_000;
  expect([1, 2, 3, 4].map(() => signals.take("wp_a", "ending"))).toEqual([0, 0, 0, 1000]);
});

test("a transaction's takes given back (it rolled back) leave the bucket as it was; a refused take gives nothing back", () => {
  const signals = new SignalBudget(() => 0, budget);
  const first = signals.takes();
  expect([1, 2, 3, 4].map(() => first.take("wp_a", "progress"))).toEqual([0, 0, 0, 1000]);
  first.undo();
  const second = signals.takes();
  expect([1, 2, 3, 4].map(() => second.take("wp_a", "progress"))).toEqual([0, 0, 0, 1000]);
  second.undo();
  second.undo();
  expect([1, 2, 3, 4].map(() => signals.take("wp_a", "progress"))).toEqual([0, 0, 0, 1000]);
});
