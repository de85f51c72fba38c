/**
 * TLS to PostgreSQL (team mode, #41 item 4): the database URL's `sslmode` and `sslrootcert`, with
 * libpq's meaning (base/database-url.ts `libpqUrl`), against a cluster of this file's own started
 * with ssl=on on localhost and a certificate signed by a CA made here with openssl (the shared
 * server of the postgres project listens on a Unix socket only). `require` encrypts; `verify-full`
 * connects with the right CA, and refuses a wrong CA and a host name the certificate does not name.
 * A daemon on a verify-full URL starts and `vigil status` shows the database's round trip; one
 * given the wrong CA does not start, saying why.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createPool } from "../../native-host/src/store/pg/connection.js";
import { findOrInstall } from "../helpers/apt.js";
import { TestDaemon } from "../helpers/daemon.js";
import { PG_USER, TestPostgres } from "../helpers/postgres.js";

const certs = mkdtempSync(join(tmpdir(), "vigil-pg-ssl-"));
let server: TestPostgres;
let port: number;
const daemons: TestDaemon[] = [];

const openssl = (...args: string[]) =>
  execFileSync(findOrInstall({ name: "openssl", paths: ["/usr/bin/openssl"], aptPackage: "openssl" }), args, {
    cwd: certs,
    stdio: "pipe",
  });

/** A CA (`name`.crt, .key) made with openssl in the temp dir. */
function makeCa(name: string): void {
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
  );
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  makeCa("test-ca");
  makeCa("other-ca");
  // The server's certificate names localhost only (not 127.0.0.1), signed by test-ca.
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    "server.key",
    "-out",
    "server.csr",
  );
  writeFileSync(join(certs, "san.ext"), "subjectAltName=DNS:localhost\n");
  openssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "test-ca.crt",
    "-CAkey",
    "test-ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "san.ext",
    "-out",
    "server.crt",
  );
  port = await freePort();
  server = await TestPostgres.start({
    serverArgs: [
      "-c listen_addresses=localhost",
      `-c port=${port}`,
      "-c ssl=on",
      "-c ssl_cert_file=../server.crt",
      "-c ssl_key_file=../server.key",
    ],
    hbaLines: ["hostssl all all 127.0.0.1/32 trust", "hostssl all all ::1/128 trust"],
    files: {
      "server.crt": readFileSync(join(certs, "server.crt"), "utf8"),
      "server.key": readFileSync(join(certs, "server.key"), "utf8"),
    },
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
  await server?.stop();
});

const urlFor = (host: string, query: string) => `postgres://${PG_USER}@${host}:${port}/postgres?${query}`;

/** Connects through Vigil's pool; answers whether the session is encrypted, or the error's message. */
async function tryConnect(url: string): Promise<string> {
  const pool = createPool({ url, applicationName: "vigil/ssl-test", connectTimeoutMs: 10_000 });
  try {
    const { rows } = await pool.query<{ ssl: boolean }>("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()");
    return rows[0]?.ssl ? "encrypted" : "plain";
  } catch (error) {
    return (error as Error).message;
  } finally {
    await pool.end();
  }
}

test("sslmode=require encrypts without checking the certificate (libpq's meaning)", async () => {
  expect(await tryConnect(urlFor("localhost", "sslmode=require"))).toBe("encrypted");
  expect(await tryConnect(urlFor("127.0.0.1", "sslmode=require"))).toBe("encrypted");
  // Without TLS the server's pg_hba refuses the connection: require is what let it in.
  expect(await tryConnect(urlFor("127.0.0.1", "sslmode=disable"))).toMatch(/pg_hba.conf rejects connection/);
});

test("sslmode=verify-full: the right CA connects; a wrong CA and a host name the certificate lacks are refused", async () => {
  const ca = join(certs, "test-ca.crt");
  expect(await tryConnect(urlFor("localhost", `sslmode=verify-full&sslrootcert=${ca}`))).toBe("encrypted");
  expect(
    await tryConnect(urlFor("localhost", `sslmode=verify-full&sslrootcert=${join(certs, "other-ca.crt")}`)),
  ).toMatch(/self[- ]signed certificate in certificate chain|unable to (verify|get local issuer)/);
  expect(await tryConnect(urlFor("127.0.0.1", `sslmode=verify-full&sslrootcert=${ca}`))).toMatch(
    /Hostname\/IP does not match certificate's altnames: IP: 127\.0\.0\.1 is not in the cert's list/,
  );
  // verify-ca checks the CA but not the name: 127.0.0.1 passes, the wrong CA does not.
  expect(await tryConnect(urlFor("127.0.0.1", `sslmode=verify-ca&sslrootcert=${ca}`))).toBe("encrypted");
});

test("a daemon on a verify-full URL runs and shows the database's round trip; given the wrong CA it does not start, saying why", async () => {
  const url = urlFor("localhost", `sslmode=verify-full&sslrootcert=${join(certs, "test-ca.crt")}`);
  const daemon = new TestDaemon(mkdtempSync(join(tmpdir(), "vigil-ssl-home-")), {
    VIGIL_DATABASE_URL: url,
    VIGIL_HOST_NAME: "tls",
  });
  daemons.push(daemon);
  await daemon.spawn();
  const status = await daemon.cli(["status", "--json"]);
  expect(status.exitCode).toBe(0);
  const json = JSON.parse(String(status.stdout)) as { store: string; databaseRoundTripMs: number | null };
  expect(json.store).toBe("postgres");
  expect(json.databaseRoundTripMs).toEqual(expect.any(Number));
  expect(json.databaseRoundTripMs).toBeGreaterThan(0);
  const text = await daemon.cli(["status"]);
  expect(String(text.stdout)).toMatch(/store PostgreSQL \(team mode\) · round trip \d+(\.\d)? ms/);
  await daemon.stop();

  const refused = new TestDaemon(mkdtempSync(join(tmpdir(), "vigil-ssl-home-")), {
    VIGIL_DATABASE_URL: urlFor("localhost", `sslmode=verify-full&sslrootcert=${join(certs, "other-ca.crt")}`),
    VIGIL_HOST_NAME: "tls2",
  });
  daemons.push(refused);
  // `vigil serve` as a service runs it: it exits 1 with one line on stderr.
  const serve = await refused.cli(["serve", "--port", "0"]);
  expect(serve.exitCode).toBe(1);
  const failure = String(serve.stderr);
  expect(failure).toMatch(
    /PostgreSQL at postgres:\/\/vigil@localhost:\d+\/postgres\?sslmode=verify-full.*: (self[- ]signed certificate in certificate chain|unable to verify the first certificate)/,
  );
  expect(failure).toMatch(/sslrootcert/);
});
