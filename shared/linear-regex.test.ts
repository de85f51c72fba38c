import { describe, expect, test } from "vitest";
import { evaluateCondition } from "./conditions.js";
import { REGEX_PATTERN_MAX, REGEX_TEXT_CAP, regexMatches, regexRefusal } from "./linear-regex.js";
import { ConditionSchema } from "./schemas/conditions.js";

describe("patterns RE2 cannot run in linear time are refused, saying what was expected and what came", () => {
  const expected =
    "Expected a regex in RE2 syntax (matched in linear time: no backreferences, lookahead or lookbehind)";
  test.each([
    ["(a)\\1", 'got "(a)\\\\1": backreferences are not supported (invalid escape sequence: `\\1`)'],
    ["(?<n>a)\\k<n>", "backreferences are not supported"],
    ["(?=a)b", 'got "(?=a)b": lookahead and lookbehind are not supported'],
    ["(?!a)b", "lookahead and lookbehind are not supported"],
    ["(?<=a)b", "lookahead and lookbehind are not supported"],
    ["(?<!a)b", "lookahead and lookbehind are not supported"],
    ["[", 'got "[": missing closing ]: `[`'],
    ["a{1001}", "invalid repeat count"],
    ["(a{100}){100}", "invalid repeat count"],
  ])("%s", (pattern, why) => {
    const refusal = regexRefusal(pattern);
    expect(refusal).toContain(expected);
    expect(refusal).toContain(why);
  });

  test("a pattern longer than the cap", () => {
    expect(regexRefusal("a".repeat(REGEX_PATTERN_MAX + 1))).toBe(
      `Expected a regex of at most ${REGEX_PATTERN_MAX} characters, got ${REGEX_PATTERN_MAX + 1}`,
    );
  });

  test.each([
    [{ path: "output", operator: "regex", value: "(?=x)" }, "lookahead and lookbehind are not supported"],
    [{ path: "output", operator: "regex", value: "(x)\\1" }, "backreferences are not supported"],
    [
      { path: "output", operator: "regex", value: { source: "x" } },
      'Expected a pattern (a string) for regex, got {"source":"x"}',
    ],
    [{ all: [{ path: "output", operator: "regex", value: "(?!x)" }] }, "lookahead and lookbehind are not supported"],
  ])("the condition schema (every boundary) refuses %j", (input, why) => {
    const parsed = ConditionSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain(why);
  });

  test.each([
    "^build (ok|done)$",
    "(?i)succeeded",
    "\\d+ passed",
    "(?P<n>x)|(?<m>y)",
    "\\bword\\b",
    "^(a+)+$",
    "\\p{L}+",
  ])("%s is accepted", (pattern) => {
    expect(regexRefusal(pattern)).toBeNull();
    expect(ConditionSchema.safeParse({ path: "output", operator: "regex", value: pattern }).success).toBe(true);
  });
});

describe("matching", () => {
  test("^(a+)+$ on 40 a's and a '!' (2^40 steps for a backtracking engine) is simply not met", () => {
    const condition = { path: "output", operator: "regex", value: "^(a+)+$" } as const;
    expect(evaluateCondition(condition, { output: `${"a".repeat(40)}!` }).verdict).toBe("not_met");
    expect(evaluateCondition(condition, { output: "a".repeat(40) }).verdict).toBe("met");
  });

  test("matches anywhere, like RegExp.prototype.test; numbers are matched as their text", () => {
    expect(regexMatches("in \\d+s$", "build Succeeded in 3s")).toBe(true);
    expect(evaluateCondition({ path: "n", operator: "regex", value: "^4\\d$" }, { n: 42 }).verdict).toBe("met");
    expect(evaluateCondition({ path: "n", operator: "regex", value: "x" }, { n: { x: 1 } }).verdict).toBe("not_met");
  });

  test(`only the last ${REGEX_TEXT_CAP} characters are matched`, () => {
    const long = `START${"a".repeat(REGEX_TEXT_CAP)}`;
    expect(regexMatches("START", long)).toBe(false);
    expect(regexMatches("^a+$", long)).toBe(true);
    expect(regexMatches("START", `START${"a".repeat(REGEX_TEXT_CAP - 5)}`)).toBe(true);
  });

  test("a cut inside a surrogate pair drops the half character", () => {
    const text = `b😀${"a".repeat(REGEX_TEXT_CAP - 1)}`;
    expect(regexMatches("^a+$", text)).toBe(true);
  });

  test("a pattern armed before RE2 that it cannot run is unavailable, never an exception", () => {
    const stale = { path: "output", operator: "regex", value: "(?=x)x" } as const;
    expect(evaluateCondition(stale, { output: "x" }).verdict).toBe("unavailable");
  });
});
