import { expect, test } from "vitest";
import { ROUND_GAP_MS, roundDelay } from "./round-gap.js";

test.each([
  ["the first round", null, 1000, 0, 0],
  ["a trigger long after the last round", 0, 10_000, 0, 0],
  ["a trigger right as a round ended", 1000, 1000, 0, ROUND_GAP_MS],
  ["a trigger half a gap after", 1000, 1000 + ROUND_GAP_MS / 2, 0, ROUND_GAP_MS / 2],
  ["the poll, longer than the gap", 1000, 1000, 1000, 1000],
  ["a clock that went back: still at most one gap", 1000, 500, 0, ROUND_GAP_MS],
])("%s", (_, lastEndedAt, now, wanted, delay) => {
  expect(roundDelay(lastEndedAt, now, wanted)).toBe(delay);
});
