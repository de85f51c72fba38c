import { expect, test } from "vitest";
import { classify, DatabaseUnreachableError, isUnreachable, unreachableText } from "./unreachable.js";

test("connection failures are 'unreachable', a wrong query is not", () => {
  expect(isUnreachable(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(true);
  expect(
    isUnreachable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" })),
  ).toBe(true);
  expect(isUnreachable(Object.assign(new Error("connection failure"), { code: "08006" }))).toBe(true);
  expect(isUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
  expect(isUnreachable(Object.assign(new Error('relation "nope" does not exist'), { code: "42P01" }))).toBe(false);
  expect(isUnreachable(null)).toBe(false);
  const classified = classify(new Error("Connection terminated unexpectedly"), "postgres://v:pw@db/x");
  expect(classified).toBeInstanceOf(DatabaseUnreachableError);
  expect(String(classified)).toBe(
    "DatabaseUnreachableError: database unreachable at postgres://v:***@db/x: Connection terminated unexpectedly",
  );
});

test("an unreachable database reads 'Database unreachable (why)'; any other error is not one", () => {
  const classified = classify(
    Object.assign(new Error("connect ENOENT /tmp/sock"), { code: "ENOENT" }),
    "postgres://v@/x",
  );
  expect(unreachableText(classified)).toBe("Database unreachable (at postgres://v@/x: connect ENOENT /tmp/sock)");
  expect(unreachableText(new Error("duplicate key value violates unique constraint"))).toBeNull();
});
