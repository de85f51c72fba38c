/**
 * A tool monitor's last observation as its condition read it (issue #38 item 13): each path the
 * condition names with its value there — the text around a `contains` match, else the value as
 * short JSON — and an `http__get`'s status first. The panel's row shows these instead of the whole
 * observation (headers and all); the view's shield covers them like the rest.
 * Design: docs/design.md §7.1.
 */
import { readPath } from "../../../shared/conditions.js";
import type { Condition, LeafCondition } from "../../../shared/schemas/conditions.js";
import type { Source } from "../../../shared/schemas/sources.js";
import type { ReadField } from "../../../shared/schemas/views.js";

/** Characters of one value shown at most; of text around a match, on each side. */
const VALUE_CHARS = 80;
const AROUND_CHARS = 30;

const leavesOf = (condition: Condition): LeafCondition[] =>
  "all" in condition
    ? condition.all.flatMap(leavesOf)
    : "any" in condition
      ? condition.any.flatMap(leavesOf)
      : "not" in condition
        ? leavesOf(condition.not)
        : [condition];

const capped = (text: string, max = VALUE_CHARS): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** How one leaf's value reads: "(absent)", the text around what `contains` found, or short JSON. */
function valueText(leaf: LeafCondition, value: unknown): string {
  if (value === undefined || typeof value === "symbol") return "(absent)";
  if (leaf.operator === "contains" && typeof value === "string" && typeof leaf.value === "string") {
    const at = value.indexOf(leaf.value);
    if (at !== -1) {
      const from = Math.max(0, at - AROUND_CHARS);
      const to = Math.min(value.length, at + leaf.value.length + AROUND_CHARS);
      const text = value.slice(from, to).replace(/\s+/g, " ");
      return `${from > 0 ? "…" : ""}${text}${to < value.length ? "…" : ""}`;
    }
  }
  return capped(JSON.stringify(value) ?? String(value));
}

/** The fields a tool monitor's condition read in `observation`; undefined when there is nothing to show. */
export function readFieldsOf(source: Source, observation: unknown): ReadField[] | undefined {
  if (source.kind !== "tool" || observation === null || typeof observation !== "object") return undefined;
  const fields: ReadField[] = [];
  const seen = new Set<string>();
  if (source.name === "http__get" && "status" in observation) {
    fields.push({ path: "status", value: String((observation as { status: unknown }).status) });
    seen.add("status");
  }
  for (const leaf of leavesOf(source.condition)) {
    const path = leaf.path ?? "";
    if (seen.has(path)) continue;
    seen.add(path);
    fields.push({ path, value: valueText(leaf, readPath(observation, path)) });
  }
  return fields;
}
