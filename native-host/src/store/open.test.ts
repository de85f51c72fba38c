import { expect, test } from "vitest";
import { checkServerVersion } from "./open.js";

test("PostgreSQL 13 and later are taken; an older server is refused with its version named", () => {
  expect(() => checkServerVersion(130000, "13.0")).not.toThrow();
  expect(() => checkServerVersion(150014, "15.14 (Debian 15.14-0+deb12u1)")).not.toThrow();
  expect(() => checkServerVersion(120022, "12.22")).toThrow(
    "Expected PostgreSQL 13 or later (delivery asks pg_xact_status whether a commit whose answer was lost took), got 12.22",
  );
  expect(() => checkServerVersion(Number.NaN, "unknown")).toThrow(/got unknown$/);
});
