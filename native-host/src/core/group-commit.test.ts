import { expect, test } from "vitest";
import { GroupCommit } from "./group-commit.js";

/** A commit that records each batch and fails any batch holding "bad" (or "away", as the database). */
function recorder() {
  const batches: string[][] = [];
  const commit = async (items: readonly string[]) => {
    batches.push([...items]);
    await new Promise((resolve) => setImmediate(resolve));
    if (items.includes("away")) throw new Error("database away");
    if (items.includes("bad")) throw new Error("bad row");
    return items.map((item) => `stored ${item}`);
  };
  return { batches, commit };
}

test("items of one turn share a commit; those arriving while it runs share the next, one commit at a time", async () => {
  const { batches, commit } = recorder();
  const group = new GroupCommit(commit);
  const first = ["a", "b", "c"].map((item) => group.submit(item));
  await new Promise((resolve) => setImmediate(resolve));
  const second = ["d", "e"].map((item) => group.submit(item));
  expect(await Promise.all([...first, ...second])).toEqual(["a", "b", "c", "d", "e"].map((i) => `stored ${i}`));
  expect(batches).toEqual([
    ["a", "b", "c"],
    ["d", "e"],
  ]);
});

test("a batch that fails for one item's sake is committed item by item: only that item gets the error", async () => {
  const { batches, commit } = recorder();
  const group = new GroupCommit(commit);
  const outcomes = await Promise.allSettled(["a", "bad", "c"].map((item) => group.submit(item)));
  expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([
    "stored a",
    "bad row",
    "stored c",
  ]);
  expect(batches).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"]]);
});

test("a failure `isolate` does not blame on an item (the database away) fails the batch once, not item by item", async () => {
  const { batches, commit } = recorder();
  const group = new GroupCommit(commit, { isolate: (error) => (error as Error).message !== "database away" });
  const outcomes = await Promise.allSettled(["a", "away", "c"].map((item) => group.submit(item)));
  expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
  expect(batches).toEqual([["a", "away", "c"]]);
});

test("maxBatch caps a commit; the rest follow in the next", async () => {
  const { batches, commit } = recorder();
  const group = new GroupCommit(commit, { maxBatch: 2 });
  await Promise.all(["a", "b", "c"].map((item) => group.submit(item)));
  expect(batches).toEqual([["a", "b"], ["c"]]);
});

test("with concurrency 2 a second batch commits while the first waits; never a third", async () => {
  let inFlight = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const group = new GroupCommit(
    async (items: readonly string[]) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
      return items.map((item) => `stored ${item}`);
    },
    { concurrency: 2 },
  );
  const all = [group.submit("a")];
  await new Promise((resolve) => setImmediate(resolve));
  all.push(group.submit("b"));
  await new Promise((resolve) => setImmediate(resolve));
  all.push(group.submit("c"), group.submit("d"));
  await new Promise((resolve) => setImmediate(resolve));
  expect(gates).toHaveLength(2); // a and b in flight; c and d wait
  while (gates.length > 0) {
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await Promise.all(all)).toEqual(["a", "b", "c", "d"].map((i) => `stored ${i}`));
  expect(most).toBe(2);
});
