import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { evaluateCondition } from "./conditions.js";
import { type Condition, ConditionSchema, OPERATORS } from "./schemas/conditions.js";

const obs = {
  exitCode: 0,
  output: "build Succeeded in 3s",
  status: "Succeeded",
  count: 7,
  countText: "12",
  tags: ["a", "b"],
  nested: { deep: { value: null } },
};

const verdict = (condition: Condition, observation: unknown = obs) => evaluateCondition(condition, observation).verdict;

describe("leaf operators", () => {
  test.each<[Condition, string]>([
    [{ path: "exitCode", operator: "equals", value: 0 }, "met"],
    [{ path: "exitCode", operator: "equals", value: 1 }, "not_met"],
    [{ path: "exitCode", operator: "not_equals", value: 1 }, "met"],
    [{ path: "status", operator: "in", value: ["Succeeded", "Failed"] }, "met"],
    [{ path: "status", operator: "in", value: ["Failed"] }, "not_met"],
    [{ path: "status", operator: "not_in", value: ["Failed"] }, "met"],
    [{ path: "output", operator: "contains", value: "Succeeded" }, "met"],
    [{ path: "tags", operator: "contains", value: "b" }, "met"],
    [{ path: "output", operator: "not_contains", value: "Failed" }, "met"],
    [{ path: "output", operator: "regex", value: "in \\d+s$" }, "met"],
    [{ path: "count", operator: "gt", value: 6 }, "met"],
    [{ path: "count", operator: "gte", value: 8 }, "not_met"],
    [{ path: "countText", operator: "lt", value: 13 }, "met"],
    [{ path: "countText", operator: "lte", value: 11 }, "not_met"],
    [{ path: "status", operator: "gt", value: 1 }, "not_met"],
    [{ path: "nested.deep.value", operator: "equals", value: null }, "met"],
    [{ path: "nested.deep.value", operator: "exists" }, "met"],
    [{ path: "nested.missing", operator: "exists" }, "not_met"],
    [{ path: "tags.1", operator: "equals", value: "b" }, "met"],
  ])("%j → %s", (condition, expected) => {
    expect(verdict(condition)).toBe(expected);
  });

  test("a missing field is unavailable for every operator but exists", () => {
    for (const operator of OPERATORS.filter((op) => op !== "exists")) {
      expect(verdict({ path: "no.such.field", operator, value: operator.endsWith("in") ? [] : 1 } as Condition)).toBe(
        "unavailable",
      );
    }
  });

  test("the empty path is the whole observation", () => {
    expect(verdict({ path: "", operator: "equals", value: "x" }, "x")).toBe("met");
  });
});

describe("changed", () => {
  const changed: Condition = { path: "status", operator: "changed" };

  test("the first successful observation is the baseline, stored as a digest", () => {
    const first = evaluateCondition(changed, { status: "Running" });
    expect(first.verdict).toBe("not_met");
    expect(Object.values(first.state)[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(first.state)).not.toContain("Running");
    expect(evaluateCondition(changed, { status: "Running" }, first.state).verdict).toBe("not_met");
    expect(evaluateCondition(changed, { status: "Done" }, first.state).verdict).toBe("met");
  });

  test("unavailable is never a change and does not move the baseline", () => {
    const first = evaluateCondition(changed, { status: "Running" });
    const missing = evaluateCondition(changed, {}, first.state);
    expect(missing.verdict).toBe("unavailable");
    expect(missing.state).toEqual(first.state);
    expect(evaluateCondition(changed, { status: "Running" }, missing.state).verdict).toBe("not_met");
  });

  test("key order does not count as a change", () => {
    const first = evaluateCondition({ path: "", operator: "changed" }, { a: 1, b: 2 });
    expect(evaluateCondition({ path: "", operator: "changed" }, { b: 2, a: 1 }, first.state).verdict).toBe("not_met");
  });
});

describe("composites (Kleene logic)", () => {
  const met: Condition = { path: "exitCode", operator: "equals", value: 0 };
  const notMet: Condition = { path: "exitCode", operator: "equals", value: 1 };
  const unavailable: Condition = { path: "missing", operator: "equals", value: 1 };

  test.each<[Condition, string]>([
    [{ all: [met, met] }, "met"],
    [{ all: [met, notMet] }, "not_met"],
    [{ all: [met, unavailable] }, "unavailable"],
    [{ all: [notMet, unavailable] }, "not_met"],
    [{ any: [notMet, met] }, "met"],
    [{ any: [notMet, unavailable] }, "unavailable"],
    [{ any: [met, unavailable] }, "met"],
    [{ not: met }, "not_met"],
    [{ not: notMet }, "met"],
    [{ not: unavailable }, "unavailable"],
  ])("%j → %s", (condition, expected) => {
    expect(verdict(condition)).toBe(expected);
  });
});

describe("algebra (property tests)", () => {
  const leaf = fc
    .record({
      path: fc.constantFrom("a", "b", "c.d", "missing", ""),
      operator: fc.constantFrom("equals", "not_equals", "contains", "gt", "lt", "exists", "in"),
      value: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom("x", "y")),
    })
    .map((l): Condition => (l.operator === "in" ? { ...l, value: [l.value] } : l) as Condition);
  const condition: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
    c: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
      fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
      tie("c").map((not) => ({ not })),
    ),
  })).c;
  const observation = fc.record(
    {
      a: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom("x", "xy")),
      b: fc.constantFrom("x", "y", 2),
      c: fc.record({ d: fc.integer({ min: -3, max: 3 }) }),
    },
    { requiredKeys: [] },
  );

  test("not(not c) ≡ c, any([c]) ≡ c, all([c]) ≡ c", () => {
    fc.assert(
      fc.property(condition, observation, (c, o) => {
        const v = verdict(c, o);
        expect(verdict({ not: { not: c } }, o)).toBe(v);
        expect(verdict({ any: [c] }, o)).toBe(v);
        expect(verdict({ all: [c] }, o)).toBe(v);
      }),
    );
  });

  test("De Morgan: not(all(a, b)) ≡ any(not a, not b)", () => {
    fc.assert(
      fc.property(condition, condition, observation, (a, b, o) => {
        expect(verdict({ not: { all: [a, b] } }, o)).toBe(verdict({ any: [{ not: a }, { not: b }] }, o));
      }),
    );
  });

  test("a leaf on a missing field is never met (exists aside)", () => {
    fc.assert(
      fc.property(leaf, (l) => {
        if ("operator" in l && l.operator !== "exists") {
          expect(verdict({ ...l, path: "missing" }, {})).not.toBe("met");
        }
      }),
    );
  });

  test("evaluation is deterministic and does not mutate its input state", () => {
    fc.assert(
      fc.property(condition, observation, (c, o) => {
        const state = Object.freeze({});
        expect(evaluateCondition(c, o, state)).toEqual(evaluateCondition(c, o, state));
      }),
    );
  });
});

describe("schema", () => {
  test.each([
    [{ path: "x", operator: "gt", value: "3" }, "Expected a number for gt"],
    [{ path: "x", operator: "in", value: "a" }, "Expected an array for in"],
    [{ path: "x", operator: "regex", value: "(" }, "Expected a regex in RE2 syntax"],
    [{ path: "x", operator: "equals" }, "Expected a value for equals"],
  ])("refuses %j saying %s", (input, message) => {
    const parsed = ConditionSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(message);
  });

  test("accepts nested composites", () => {
    expect(
      ConditionSchema.safeParse({
        all: [{ not: { path: "a", operator: "exists" } }, { any: [{ path: "", operator: "changed" }] }],
      }).success,
    ).toBe(true);
  });
});
