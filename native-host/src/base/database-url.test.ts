import { expect, test } from "vitest";
import { passwordOf, redactUrl } from "./database-url.js";

test("the password of a URL is found in each form node-postgres reads, decoded; none is empty", () => {
  expect(passwordOf("postgres://vigil:s3cr%40t@db.example/vigil")).toBe("s3cr@t");
  expect(passwordOf("postgres://vigil:p@ss@/vigil?host=/run/postgresql")).toBe("p@ss");
  expect(passwordOf("postgresql://vigil@/vigil?host=/run/postgresql&password=q%20w")).toBe("q w");
  expect(passwordOf("postgres://vigil@db.example/vigil")).toBe("");
  expect(redactUrl("postgres://vigil@/vigil?host=/tmp/s&password=q")).toBe(
    "postgres://vigil@/vigil?host=/tmp/s&password=***",
  );
});
