/**
 * Conditions: deterministic predicates over an observation (design.md §4.2). One implementation,
 * used by every source kind (command predicates included). No model, no I/O but hashing.
 *
 * Three-valued: a check is `met`, `not_met` or `unavailable` (the field it names is missing).
 * Unavailable is never met and never a change; composites use Kleene logic so that
 * `not(not c) ≡ c`, `any([c]) ≡ c` and `all([c]) ≡ c` hold.
 */
import { createHash } from "node:crypto";
import { regexMatches, regexRefusal } from "./linear-regex.js";
import type { Condition, LeafCondition } from "./schemas/conditions.js";

export type Verdict = "met" | "not_met" | "unavailable";

/** Baselines of `changed` leaves, keyed by the leaf's position in the tree. Digests only. */
export type ConditionState = Record<string, string>;

export interface Evaluation {
  verdict: Verdict;
  state: ConditionState;
}

const MISSING = Symbol("missing");

export function readPath(value: unknown, path: string): unknown {
  if (path === "") return value;
  let current: unknown = value;
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object") return MISSING;
    if (!Object.hasOwn(current, segment)) return MISSING;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? MISSING : current;
}

/** JSON with sorted keys, so equal values have equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function digestOf(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function deepEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function contains(haystack: unknown, needle: unknown): boolean {
  if (typeof haystack === "string") return haystack.includes(String(needle));
  if (Array.isArray(haystack)) return haystack.some((item) => deepEqual(item, needle));
  return false;
}

function compare(actual: unknown, expected: unknown, test: (a: number, b: number) => boolean): boolean {
  const a = asNumber(actual);
  const b = asNumber(expected);
  return a !== undefined && b !== undefined && test(a, b);
}

const verdictOf = (met: boolean): Verdict => (met ? "met" : "not_met");

/**
 * RE2, on the text's last REGEX_TEXT_CAP characters (linear-regex.ts). A pattern the engine
 * refuses cannot be armed; one armed before RE2 is ended at start — were one to reach here all
 * the same it is unavailable (never met), not an exception inside the transaction recording checks.
 */
function regexVerdict(actual: unknown, pattern: unknown): Verdict {
  if (typeof actual !== "string" && typeof actual !== "number") return "not_met";
  try {
    return verdictOf(regexMatches(String(pattern), String(actual)));
  } catch {
    return "unavailable";
  }
}

function evaluateLeaf(leaf: LeafCondition, observation: unknown, key: string, state: ConditionState): Verdict {
  const actual = readPath(observation, leaf.path ?? "");
  if (leaf.operator === "exists") return verdictOf(actual !== MISSING);
  if (actual === MISSING) return "unavailable";
  const expected = leaf.value;
  switch (leaf.operator) {
    case "equals":
      return verdictOf(deepEqual(actual, expected));
    case "not_equals":
      return verdictOf(!deepEqual(actual, expected));
    case "in":
      return verdictOf(Array.isArray(expected) && expected.some((item) => deepEqual(item, actual)));
    case "not_in":
      return verdictOf(Array.isArray(expected) && !expected.some((item) => deepEqual(item, actual)));
    case "contains":
      return verdictOf(contains(actual, expected));
    case "not_contains":
      return verdictOf((typeof actual === "string" || Array.isArray(actual)) && !contains(actual, expected));
    case "regex":
      return regexVerdict(actual, expected);
    case "gt":
      return verdictOf(compare(actual, expected, (a, b) => a > b));
    case "gte":
      return verdictOf(compare(actual, expected, (a, b) => a >= b));
    case "lt":
      return verdictOf(compare(actual, expected, (a, b) => a < b));
    case "lte":
      return verdictOf(compare(actual, expected, (a, b) => a <= b));
    case "changed": {
      const digest = digestOf(actual);
      const baseline = state[key];
      state[key] = digest;
      return verdictOf(baseline !== undefined && baseline !== digest);
    }
  }
}

function evaluateNode(condition: Condition, observation: unknown, key: string, state: ConditionState): Verdict {
  if ("all" in condition) {
    const verdicts = condition.all.map((child, i) => evaluateNode(child, observation, `${key}.${i}`, state));
    if (verdicts.includes("not_met")) return "not_met";
    return verdicts.includes("unavailable") ? "unavailable" : "met";
  }
  if ("any" in condition) {
    const verdicts = condition.any.map((child, i) => evaluateNode(child, observation, `${key}.${i}`, state));
    if (verdicts.includes("met")) return "met";
    return verdicts.includes("unavailable") ? "unavailable" : "not_met";
  }
  if ("not" in condition) {
    const verdict = evaluateNode(condition.not, observation, `${key}.n`, state);
    if (verdict === "unavailable") return verdict;
    return verdict === "met" ? "not_met" : "met";
  }
  return evaluateLeaf(condition, observation, key, state);
}

/** Evaluate a condition; returns the verdict and the new baselines (the input is not mutated). */
export function evaluateCondition(condition: Condition, observation: unknown, state: ConditionState = {}): Evaluation {
  const next = { ...state };
  const verdict = evaluateNode(condition, observation, "r", next);
  return { verdict, state: next };
}

/** One line a person can read: `exitCode equals 0`, `all(text in [...], ...)`. */
export function describeCondition(condition: Condition): string {
  if ("all" in condition) return `all(${condition.all.map(describeCondition).join(", ")})`;
  if ("any" in condition) return `any(${condition.any.map(describeCondition).join(", ")})`;
  if ("not" in condition) return `not(${describeCondition(condition.not)})`;
  const path = condition.path === "" || condition.path === undefined ? "(observation)" : condition.path;
  if (condition.operator === "exists" || condition.operator === "changed") return `${path} ${condition.operator}`;
  return `${path} ${condition.operator} ${JSON.stringify(condition.value)}`;
}

/** Every path a condition reads (so a probe can tell "absent" from "not yet"). */
export function conditionPaths(condition: Condition): string[] {
  if ("all" in condition) return condition.all.flatMap(conditionPaths);
  if ("any" in condition) return condition.any.flatMap(conditionPaths);
  if ("not" in condition) return conditionPaths(condition.not);
  return [condition.path ?? ""];
}

/**
 * Why the first regex in a condition cannot run on RE2, or null. Arming refuses such a pattern;
 * this finds one armed before RE2 (at start, so it ends instead of never matching).
 */
export function unrunnableRegex(condition: Condition | undefined): string | null {
  if (condition === undefined) return null;
  if ("all" in condition || "any" in condition) {
    for (const child of "all" in condition ? condition.all : condition.any) {
      const refusal = unrunnableRegex(child);
      if (refusal) return refusal;
    }
    return null;
  }
  if ("not" in condition) return unrunnableRegex(condition.not);
  return condition.operator === "regex" ? regexRefusal(String(condition.value)) : null;
}
