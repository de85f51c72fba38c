import { describe, expect, test } from "vitest";
import type { Source } from "../../../shared/schemas/sources.js";
import { readFieldsOf } from "./read-fields.js";

const http = (condition: unknown): Source =>
  ({ kind: "tool", name: "http__get", args: { url: "https://ci.example/api/run/1" }, condition }) as Source;

const observation = {
  status: 200,
  ok: true,
  headers: { "content-type": "application/json", "x-request-id": "abc" },
  body: {
    run: { state: "success", steps: [1, 2, 3] },
    log: "step 1 ok\nstep 2 ok\nstep 3 ok\nstep 4 ok\nDeployed build 4411 to prod at 10:02, all 212 tests green",
  },
};

describe("readFieldsOf: what a tool monitor's condition read", () => {
  test("an http__get: its status first, then the JSON path's value; no headers", () => {
    expect(readFieldsOf(http({ path: "body.run.state", operator: "equals", value: "success" }), observation)).toEqual([
      { path: "status", value: "200" },
      { path: "body.run.state", value: '"success"' },
    ]);
  });

  test("a contains: the text around the match, whitespace folded; a path read twice is listed once", () => {
    const fields = readFieldsOf(
      http({
        all: [
          { path: "body.log", operator: "contains", value: "Deployed" },
          { path: "status", operator: "equals", value: 200 },
          { not: { path: "body.log", operator: "contains", value: "FAILED" } },
        ],
      }),
      observation,
    );
    expect(fields).toEqual([
      { path: "status", value: "200" },
      { path: "body.log", value: "…step 2 ok step 3 ok step 4 ok Deployed build 4411 to prod at 10:02, …" },
    ]);
  });

  test("an absent path says so; a long value is cut, marked", () => {
    const long = { ...observation, body: { blob: "x".repeat(500) } };
    expect(
      readFieldsOf(
        http({
          any: [
            { path: "body.missing", operator: "exists" },
            { path: "body.blob", operator: "exists" },
          ],
        }),
        long,
      ),
    ).toEqual([
      { path: "status", value: "200" },
      { path: "body.missing", value: "(absent)" },
      { path: "body.blob", value: `"${"x".repeat(78)}…` },
    ]);
  });

  test("nothing for other kinds or before a first observation", () => {
    expect(readFieldsOf({ kind: "command", command: "true" } as Source, { exitCode: 0 })).toBeUndefined();
    expect(readFieldsOf(http({ path: "status", operator: "equals", value: 200 }), null)).toBeUndefined();
  });
});
