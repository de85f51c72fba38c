import { expect, test } from "vitest";
import { iso } from "./iso.js";

test("iso() is exactly toISOString, for every kind of time, and null for none", () => {
  const times = [
    0,
    1,
    999,
    86_399_999,
    86_400_000,
    Date.UTC(2026, 11, 4, 0, 18, 55, 458),
    Date.UTC(2024, 1, 29, 23, 59, 59, 999),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    Date.UTC(10_000, 0, 1),
    -1,
    -86_400_001,
    1.5,
    8.64e15,
  ];
  for (let i = 0; i < 20_000; i++) times.push(Math.floor(Math.random() * 4e12));
  for (const ms of times) expect(iso(ms), String(ms)).toBe(new Date(ms).toISOString());
  expect(() => iso(Number.NaN)).toThrow(RangeError);
  expect(iso(null)).toBeNull();
  expect(iso(undefined)).toBeNull();
});
