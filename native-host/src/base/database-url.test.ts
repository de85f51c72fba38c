import { parse } from "pg-connection-string";
import { expect, test } from "vitest";
import { libpqUrl, passwordOf, redactUrl } from "./database-url.js";

test("the password of a URL is found in each form node-postgres reads, decoded; none is empty", () => {
  expect(passwordOf("postgres://vigil:s3cr%40t@db.example/vigil")).toBe("s3cr@t");
  expect(passwordOf("postgres://vigil:p@ss@/vigil?host=/run/postgresql")).toBe("p@ss");
  expect(passwordOf("postgresql://vigil@/vigil?host=/run/postgresql&password=q%20w")).toBe("q w");
  expect(passwordOf("postgres://vigil@db.example/vigil")).toBe("");
  expect(redactUrl("postgres://vigil@/vigil?host=/tmp/s&password=q")).toBe(
    "postgres://vigil@/vigil?host=/tmp/s&password=***",
  );
});

test("an sslmode keeps libpq's meaning (node-postgres is told so); one libpq lacks is refused", () => {
  expect(libpqUrl("postgres://vigil@db.example/vigil")).toBe("postgres://vigil@db.example/vigil");
  expect(libpqUrl("postgres://vigil@db.example/vigil?sslmode=require")).toBe(
    "postgres://vigil@db.example/vigil?sslmode=require&uselibpqcompat=true",
  );
  // Said already: left as it is.
  expect(libpqUrl("postgres://db/v?sslmode=require&uselibpqcompat=false")).toBe(
    "postgres://db/v?sslmode=require&uselibpqcompat=false",
  );
  // What node-postgres then makes of it: require encrypts without checking; verify-full checks.
  expect(parse(libpqUrl("postgres://db/v?sslmode=require")).ssl).toEqual({ rejectUnauthorized: false });
  expect(parse(libpqUrl("postgres://db/v?sslmode=verify-full")).ssl).toEqual({});
  expect(() => libpqUrl("postgres://db/v?sslmode=no-verify")).toThrow(
    "Expected sslmode disable, prefer, require, verify-ca, verify-full in the database URL, got no-verify",
  );
});
