/** The CLI's value readers: every malformed number is a usage error (exit 2) in one wording. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CliError } from "../api/client.js";
import { EXIT, existingFolder, optionalSeconds, parseInteger, parseNumber, parseSeconds } from "./options.js";

function usage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    return (error as Error).message;
  }
  throw new Error("Expected a usage error, got none");
}

describe("parseSeconds", () => {
  test.each([
    ["5", 5],
    ["0.2", 0.2],
    ["0", 0],
    ["600", 600],
  ])("%s → %d", (raw, value) => expect(parseSeconds("--until", raw)).toBe(value));

  test.each(["abc", "", " ", "-5", "5s", "1e3", "0x10", "Infinity", "5."])("%j is refused", (raw) => {
    expect(usage(() => parseSeconds("--until", raw))).toBe(
      `Expected --until to be a number of seconds, got ${raw.trim() === "" ? "nothing" : raw}`,
    );
  });

  test("an absent optional value stays absent", () => {
    expect(optionalSeconds("--timeout", undefined)).toBeUndefined();
    expect(optionalSeconds("--timeout", "60")).toBe(60);
  });
});

describe("parseNumber (comparators)", () => {
  test.each([
    ["3", 3],
    ["-2.5", -2.5],
    ["1e3", 1000],
  ])("%s → %d", (raw, value) => expect(parseNumber("--gte", raw)).toBe(value));

  test.each(["abc", "", "NaN", "Infinity"])("%j is refused", (raw) => {
    expect(usage(() => parseNumber("--gte", raw))).toMatch(/^Expected --gte to be a number, got /);
  });
});

describe("parseInteger", () => {
  test("whole numbers, in range when there is one", () => {
    expect(parseInteger("--exit-code", "-1")).toBe(-1);
    expect(parseInteger("--port", "0", [0, 65535])).toBe(0);
    expect(parseInteger("--port", "65535", [0, 65535])).toBe(65535);
  });

  test.each([
    ["--exit-code", "1.5", undefined, "Expected --exit-code to be a whole number, got 1.5"],
    ["--exit-code", "x", undefined, "Expected --exit-code to be a whole number, got x"],
    ["--port", "65536", [0, 65535], "Expected --port to be a whole number 0–65535, got 65536"],
    ["--port", "-1", [0, 65535], "Expected --port to be a whole number 0–65535, got -1"],
  ] as const)("%s %s is refused", (flag, raw, range, message) => {
    expect(usage(() => parseInteger(flag, raw, range))).toBe(message);
  });
});

describe("existingFolder", () => {
  const base = mkdtempSync(join(tmpdir(), "vigil-options-"));
  writeFileSync(join(base, "a-file"), "");

  test("absent: this folder; relative: made absolute against it", () => {
    expect(existingFolder("--cwd", undefined, base)).toBe(base);
    expect(existingFolder("--cwd", ".", base)).toBe(base);
    expect(existingFolder("--cwd", "..", join(base, "x"))).toBe(base);
  });

  test("a missing folder or a file is refused, naming the absolute path", () => {
    expect(usage(() => existingFolder("--cwd", "nope", base))).toBe(
      `Expected --cwd to be an existing folder, got ${join(base, "nope")} (no such folder)`,
    );
    expect(usage(() => existingFolder("--cwd", "a-file", base))).toBe(
      `Expected --cwd to be a folder, got ${join(base, "a-file")} (not a folder)`,
    );
    rmSync(base, { recursive: true, force: true });
  });
});
