import { describe, expect, test } from "vitest";
import { checkArgvUrl, parseInt8, redactUrl } from "./connection.js";

describe("database URLs", () => {
  test("a URL shown anywhere has its password replaced", () => {
    expect(redactUrl("postgres://vigil:s3cret-pw@db.example:5432/vigil")).toBe(
      "postgres://vigil:***@db.example:5432/vigil",
    );
    expect(redactUrl("postgres://vigil@/vigil?host=%2Ftmp%2Fsock")).toBe("postgres://vigil@/vigil?host=%2Ftmp%2Fsock");
    expect(redactUrl("postgres://vigil:p@ss@db/vigil")).toBe("postgres://vigil:***@db/vigil");
    expect(redactUrl("postgres://vigil@db/vigil?sslmode=require&password=s3cret")).toBe(
      "postgres://vigil@db/vigil?sslmode=require&password=***",
    );
  });

  test("a URL on the command line may not carry a password, and must be postgres://", () => {
    expect(checkArgvUrl("postgres://vigil@db.example/vigil")).toBe("postgres://vigil@db.example/vigil");
    expect(() => checkArgvUrl("postgres://vigil:s3cret-pw@db.example/vigil")).toThrow(
      /without a password .* VIGIL_DATABASE_URL, PGPASSWORD or a 0600 PGPASSFILE/,
    );
    try {
      checkArgvUrl("postgres://vigil:s3cret-pw@db.example/vigil");
    } catch (error) {
      expect(String(error)).not.toContain("s3cret");
    }
    expect(() => checkArgvUrl("postgres://vigil@db/vigil?password=s3cret")).toThrow(/without a password/);
    expect(checkArgvUrl("postgresql://vigil@/vigil?host=/run/postgresql")).toBe(
      "postgresql://vigil@/vigil?host=/run/postgresql",
    );
    expect(() => checkArgvUrl("mysql://db.example/vigil")).toThrow(
      /Expected a postgres:\/\/ or postgresql:\/\/ URL, got mysql:/,
    );
  });
});

test("bigint columns read as numbers, and one beyond 2^53 is refused rather than rounded", () => {
  expect(parseInt8("1733250000000")).toBe(1_733_250_000_000);
  expect(() => parseInt8("9007199254740993")).toThrow(
    /Expected a bigint within ±2\^53 from PostgreSQL, got 9007199254740993/,
  );
});
