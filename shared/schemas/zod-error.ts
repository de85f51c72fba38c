/**
 * One way to say what was wrong with an input: the field path, what was expected and what came.
 * Design: docs/design.md §7.
 */
import type { z } from "zod";

type Issue = z.core.$ZodIssue;

/** What one alternative of a union expected, in words: `a number`, `"all"`, `a number ≥ 1`. */
function expectation(issue: Issue): string {
  switch (issue.code) {
    case "invalid_type":
      return `a${/^[aeiou]/.test(issue.expected) ? "n" : ""} ${issue.expected}`;
    case "invalid_value":
      return issue.values.map((value) => JSON.stringify(value)).join(" or ");
    case "too_small":
      return `${issue.origin} ≥ ${String(issue.minimum)}`;
    case "too_big":
      return `${issue.origin} ≤ ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

const valueAt = (input: unknown, path: PropertyKey[]): unknown =>
  path.reduce<unknown>(
    (value, key) => (value !== null && typeof value === "object" ? (value as never)[key] : undefined),
    input,
  );

/** A union's "Invalid input" said as what each alternative expected, and, given the input, what came. */
function message(issue: Issue, input: unknown): string {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return issue.message;
  const wanted = [...new Set(issue.errors.map((branch) => (branch[0] ? expectation(branch[0]) : "something else")))];
  const got = input === undefined ? "" : `, got ${JSON.stringify(valueAt(input, issue.path)) ?? "nothing"}`;
  return `Expected ${wanted.join(" or ")}${got}`;
}

/** "source.command: Expected a non-empty command" — what was expected and what came, per field. */
export function formatZodError(error: z.ZodError, input?: unknown): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      return `${where}${message(issue, input)}`;
    })
    .join("; ");
}
