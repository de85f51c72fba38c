import { expect, test } from "vitest";
import { LagStats } from "./lag-stats.js";

test("keeps the last N samples and reports their quantiles", () => {
  const stats = new LagStats(100);
  expect(stats.summary()).toEqual({ n: 0, p50Ms: null, p99Ms: null, maxMs: null });
  for (let i = 0; i < 300; i++) stats.record(i < 200 ? 10_000 : i - 200);
  expect(stats.summary()).toEqual({ n: 100, p50Ms: 50, p99Ms: 99, maxMs: 99 });
});
