/**
 * The condition language (design.md §4.2): leaf operators, all/any/not, and the plain wait's exit-0
 * predicate. A `regex` value must be a pattern RE2 can run (linear-regex.ts): refused here, so at
 * every boundary (HTTP 400, an MCP tool error, a CLI usage error), before anything is armed.
 */
import { z } from "zod";
import { regexRefusal } from "../linear-regex.js";

export const OPERATORS = [
  "equals",
  "not_equals",
  "in",
  "not_in",
  "contains",
  "not_contains",
  "regex",
  "exists",
  "changed",
  "gt",
  "gte",
  "lt",
  "lte",
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface LeafCondition {
  path?: string;
  operator: Operator;
  value?: unknown;
}
export type Condition = LeafCondition | { all: Condition[] } | { any: Condition[] } | { not: Condition };

const NUMERIC = new Set<Operator>(["gt", "gte", "lt", "lte"]);
const LIST = new Set<Operator>(["in", "not_in"]);

export const LeafConditionSchema = z
  .strictObject({
    path: z.string().max(500).default(""),
    operator: z.enum(OPERATORS),
    value: z.unknown().optional(),
  })
  .superRefine((leaf, ctx) => {
    const { operator, value } = leaf;
    const got = value === undefined ? "nothing" : JSON.stringify(value).slice(0, 60);
    if (NUMERIC.has(operator) && (typeof value !== "number" || !Number.isFinite(value))) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected a number for ${operator}, got ${got}` });
    }
    if (LIST.has(operator) && !Array.isArray(value)) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected an array for ${operator}, got ${got}` });
    }
    if (["equals", "not_equals", "contains", "not_contains", "regex"].includes(operator) && value === undefined) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected a value for ${operator}, got nothing` });
    }
    if (operator === "regex" && value !== undefined) {
      const refusal =
        typeof value === "string" || typeof value === "number"
          ? regexRefusal(String(value))
          : `Expected a pattern (a string) for regex, got ${got}`;
      if (refusal) ctx.addIssue({ code: "custom", path: ["value"], message: refusal });
    }
  });

export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ all: z.array(ConditionSchema).min(1).max(20) }),
    z.strictObject({ any: z.array(ConditionSchema).min(1).max(20) }),
    z.strictObject({ not: ConditionSchema }),
    LeafConditionSchema,
  ]),
) as z.ZodType<Condition>;

/** The plain wait's predicate: the command exited 0. */
export const EXIT_ZERO: Condition = { path: "exitCode", operator: "equals", value: 0 };
