import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { createLogger } from "./log.js";

const home = () => mkdtempSync(join(tmpdir(), "vigil-log-"));
const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n");

test("past the repeat limit identical lines are counted, and the count is written when the window ends", () => {
  const file = join(home(), "vigil.log");
  let now = Date.parse("2026-12-03T10:00:00Z");
  const log = createLogger({ file, stderr: false, level: "info", now: () => now, limits: { repeats: 3 } });
  for (let i = 0; i < 50; i++) log.warn("signal refused (unknown)", { id: "x" });
  log.info("something else");
  expect(lines(file)).toHaveLength(4);
  now += 60_000;
  log.info("later");
  expect(lines(file).slice(4)).toEqual([
    '2026-12-03T10:01:00.000Z WARN (47 more in 60 s, not written) signal refused (unknown) {"id":"x"}',
    "2026-12-03T10:01:00.000Z INFO later",
  ]);
  // A new window writes again.
  log.warn("signal refused (unknown)", { id: "x" });
  expect(lines(file).at(-1)).toBe('2026-12-03T10:01:00.000Z WARN signal refused (unknown) {"id":"x"}');
});

test("the file is rotated to FILE.1 past its size cap, so the log keeps at most two files", () => {
  const file = join(home(), "vigil.log");
  const log = createLogger({ file, stderr: false, level: "info", limits: { maxFileBytes: 1000 } });
  for (let i = 0; i < 100; i++) log.info(`line ${i} ${"x".repeat(40)}`);
  expect(statSync(file).size).toBeLessThanOrEqual(1000);
  expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(1000);
  expect(lines(file).at(-1)).toContain("line 99 ");
  expect(readFileSync(`${file}.1`, "utf8")).not.toContain("line 99 ");
});
