/**
 * docs/team-mode.md's database URL is one Vigil takes and node-postgres reads as the guide says,
 * once Vigil gave it libpq's meaning (`libpqUrl`): `sslmode=verify-full` with `sslrootcert` verifies
 * the server against that CA file, `require` encrypts without checking, `disable` turns TLS off.
 * (TLS against a real server: test/postgres/pg-ssl.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, expect, test } from "vitest";
import { EnvSchema } from "../../native-host/src/base/config.js";
import { libpqUrl } from "../../native-host/src/base/database-url.js";

const GUIDE = readFileSync(join(import.meta.dirname, "..", "..", "docs", "team-mode.md"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "vigil-team-guide-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The URL of the guide's `VIGIL_DATABASE_URL='…' vigil serve` line. */
function guideUrl(): string {
  const url = /^VIGIL_DATABASE_URL='([^']+)' \\$/m.exec(GUIDE)?.[1];
  expect(url, "docs/team-mode.md has a VIGIL_DATABASE_URL='…' \\ line").toBeDefined();
  return url as string;
}

/** What node-postgres (the driver the daemon hands the URL to, through `libpqUrl`) makes of a URL's TLS settings. */
const sslOf = (url: string) =>
  // pg's own parse of the URL; its types leave the parsed parameters out.
  (
    new pg.Client({ connectionString: libpqUrl(url) }) as unknown as {
      connectionParameters: { host: string; ssl: unknown };
    }
  ).connectionParameters;

test("the guide's URL is one Vigil accepts, and it verifies the server against the CA file it names", () => {
  const url = guideUrl();
  expect(EnvSchema.safeParse({ VIGIL_DATABASE_URL: url }).success).toBe(true);
  const ca = join(dir, "db-ca.crt");
  writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nthe team's CA\n-----END CERTIFICATE-----\n");
  const ours = url.replace(/sslrootcert=[^&]+/, `sslrootcert=${ca}`);
  expect(ours).not.toBe(url);
  const parsed = sslOf(ours);
  expect(parsed.host).toBe("db.internal");
  expect(parsed.ssl).toEqual({ ca: readFileSync(ca, "utf8") });
});

test("sslmode=require encrypts without checking, verify-full checks; disable sends in clear text, as the guide says", () => {
  const base = "postgres://vigil@db.internal/vigil";
  expect(sslOf(`${base}?sslmode=require`).ssl).toEqual({ rejectUnauthorized: false });
  // An empty options object: Node's TLS defaults, which verify the certificate and the host name.
  expect(sslOf(`${base}?sslmode=verify-full`).ssl).toEqual({});
  expect(sslOf(`${base}?sslmode=disable`).ssl).toBe(false);
  expect(sslOf(base).ssl).toBeFalsy();
  expect(GUIDE).toContain("`sslmode=disable` (or no `sslmode`) sends everything in clear text");
  expect(GUIDE).toMatch(/^ *hostssl +vigil +vigil +\S+ +scram-sha-256$/m);
});
