import { expect, test } from "vitest";
import { MissBudget, UNKNOWN_IDS } from "./miss-budget.js";

const budget = { misses: 3, windowMs: 1000 };

test("each id has its own count; the budget is spent on the miss after the allowance", () => {
  const misses = new MissBudget(() => 0, budget);
  expect([misses.note("a"), misses.note("a"), misses.note("a"), misses.note("a")]).toEqual([false, false, false, true]);
  expect(misses.spent("a")).toBe(true);
  expect(misses.spent("b")).toBe(false);
  expect(misses.note("b")).toBe(false);
  expect(misses.spent(UNKNOWN_IDS)).toBe(false);
});

test("the window slides: misses older than the window stop counting", () => {
  let now = 0;
  const misses = new MissBudget(() => now, budget);
  for (let i = 0; i < 10; i++) misses.note(UNKNOWN_IDS);
  expect(misses.spent(UNKNOWN_IDS)).toBe(true);
  now = 999;
  expect(misses.spent(UNKNOWN_IDS)).toBe(true);
  now = 1001;
  expect(misses.spent(UNKNOWN_IDS)).toBe(false);
  expect(misses.note(UNKNOWN_IDS)).toBe(false);
});
