/**
 * How deep a parsed JSON value nests, measured without recursion, so a hostile body nested
 * thousands deep is refused with a clear error before any recursive code (zod, the shield,
 * JSON.stringify) meets it. Design: docs/design.md §8.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests deeper than `max` arrays/objects. */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
  return false;
}

export const tooDeepMessage = (max = MAX_JSON_DEPTH) => `Expected JSON nested at most ${max} levels deep, got deeper`;
