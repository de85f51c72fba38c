import { expect, test } from "vitest";
import { MAX_JSON_DEPTH, tooDeep } from "./json-depth.js";

const nested = (depth: number) => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);

test("counts arrays and objects, at the limit and one past it, without recursion", () => {
  expect(tooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
  expect(tooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  expect(tooDeep(JSON.parse(`${'{"a":'.repeat(65)}1${"}".repeat(65)}`))).toBe(true);
  expect(tooDeep(nested(200_000))).toBe(true); // far past any call stack
  expect(tooDeep({ a: [1, { b: "x" }], c: null })).toBe(false);
  expect(tooDeep("text")).toBe(false);
});
