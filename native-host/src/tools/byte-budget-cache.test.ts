import { describe, expect, test } from "vitest";
import { ByteBudgetCache } from "./byte-budget-cache.js";

describe("ByteBudgetCache", () => {
  test("many large values keep the total under the budget, dropping the least recently used", () => {
    const cache = new ByteBudgetCache<string>(1000);
    for (let i = 0; i < 50; i += 1) {
      cache.set(`k${i}`, `v${i}`, 300);
      expect(cache.bytes).toBeLessThanOrEqual(1000);
    }
    expect(cache.size).toBe(3);
    expect([cache.get("k47"), cache.get("k48"), cache.get("k49"), cache.get("k46")]).toEqual([
      "v47",
      "v48",
      "v49",
      undefined,
    ]);
  });

  test("a value read is kept over one not read since; replacing a key counts its bytes once", () => {
    const cache = new ByteBudgetCache<string>(1000);
    cache.set("a", "A", 400);
    cache.set("b", "B", 400);
    cache.get("a");
    cache.set("c", "C", 400);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual(["A", undefined, "C"]);
    cache.set("c", "C2", 100);
    expect(cache.bytes).toBe(500);
  });

  test("a value larger than the whole budget is not kept and drops nothing", () => {
    const cache = new ByteBudgetCache<string>(1000);
    cache.set("a", "A", 600);
    cache.set("huge", "H", 1001);
    expect([cache.get("a"), cache.get("huge"), cache.bytes]).toEqual(["A", undefined, 600]);
  });
});
