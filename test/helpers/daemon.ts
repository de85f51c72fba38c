/**
 * A real `vigil serve` process on a temporary $VIGIL_HOME with a real SQLite file, for
 * integration tests — or, with VIGIL_TEST_ENGINE=postgres (the integration-postgres project), on a
 * database of its own on the run's PostgreSQL. Waits are bounded polls of observable state, never
 * fixed sleeps.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type Result } from "execa";

export const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "vigil.js");
export const FIXTURES = join(ROOT, "test", "fixtures");

let databases = 0;

/**
 * Under VIGIL_TEST_ENGINE=postgres, a fresh database on the run's server for one daemon (kept for
 * its restarts: the URL goes into its environment); nothing for SQLite or when the test names one.
 */
async function testDatabase(env: Record<string, string> = {}): Promise<Record<string, string>> {
  if (process.env.VIGIL_TEST_ENGINE !== "postgres" || env.VIGIL_DATABASE_URL !== undefined) return {};
  const [{ inject }, { createDatabaseAt }] = await Promise.all([import("vitest"), import("./postgres.js")]);
  const name = `vigil_${process.pid}_${++databases}`;
  return { VIGIL_DATABASE_URL: await createDatabaseAt(inject("postgresSocketDir"), name) };
}

/** Polls `probe` every `everyMs` until it returns a truthy value; fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 15_000, everyMs = 25, what = "condition" } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * waitFor for a probe that runs the `vigil` CLI: each look is a Node process (0.2-0.5 s of CPU), so
 * the looks come every 300 ms, not back to back, leaving the CPU to the processes under test (on two
 * cores, back-to-back looks took one whole core for as long as an agent test waited).
 */
export const untilCli = <T>(probe: () => T | Promise<T>, options: Parameters<typeof waitFor>[1] = {}) =>
  waitFor(probe, { everyMs: 300, ...options });

export interface ApiReply<T = any> {
  status: number;
  body: T;
}

export class TestDaemon {
  child: ChildProcess | null = null;
  url = "";
  token = "";
  stderr = "";

  constructor(
    readonly home: string,
    readonly env: Record<string, string>,
    /** Another Unix user the daemon runs as (the test runs as root; its home is that user's, 0700). */
    readonly user?: { uid: number; gid: number },
    /** The `vigil` it runs: the checkout's, or an installed package's (test/package). */
    readonly bin = BIN,
  ) {}

  static async start(
    options: { home?: string; env?: Record<string, string>; user?: { uid: number; gid: number }; bin?: string } = {},
  ): Promise<TestDaemon> {
    const database = await testDatabase(options.env);
    const home = options.home ?? mkdtempSync(join(tmpdir(), "vigil-test-"));
    if (options.user) chownSync(home, options.user.uid, options.user.gid);
    const daemon = new TestDaemon(
      home,
      {
        ...database,
        VIGIL_INTERVAL_FLOOR_SECONDS: "0.2",
        // A store call that breaks a transaction (not on its own tables) throws instead of hanging.
        VIGIL_CHECK_TX_SCOPE: "1",
        ...options.env,
      },
      options.user,
      options.bin,
    );
    await daemon.spawn();
    return daemon;
  }

  async spawn(): Promise<void> {
    this.stderr = "";
    const child = spawn(process.execPath, [this.bin, "--home", this.home, "serve", "--port", "0"], {
      env: { ...process.env, ...this.env, VIGIL_HOME: this.home, ...(this.user ? { HOME: this.home } : {}) },
      stdio: ["ignore", "ignore", "pipe"],
      ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    this.child = child;
    const info = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}: ${this.stderr}`);
        const parsed = JSON.parse(readFileSync(join(this.home, "daemon.json"), "utf8")) as { pid: number; url: string };
        return parsed.pid === child.pid ? parsed : null;
      },
      { what: "daemon.json" },
    );
    this.url = info.url;
    this.token = readFileSync(join(this.home, "token"), "utf8").trim();
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  /** Where its store is: a PostgreSQL URL (integration-postgres), or undefined for the home's SQLite file. */
  get databaseUrl(): string | undefined {
    return this.env.VIGIL_DATABASE_URL;
  }

  /**
   * Rows straight from the daemon's store, whichever engine holds it (PostgreSQL's `$1` placeholders;
   * they become `?` for SQLite). Reads what is committed, also while the daemon is down.
   */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const url = this.databaseUrl;
    if (url) {
      const { default: pg } = await import("pg");
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    }
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(join(this.home, "vigil.db"), { readonly: true });
    try {
      return db.prepare(sql.replace(/\$\d+/g, "?")).all(...params) as T[];
    } finally {
      db.close();
    }
  }

  /** Every table of the store and its rows, by name, but those named in `except`. */
  async tables(except: string[] = []): Promise<Record<string, unknown[]>> {
    const names = await this.query<{ name: string }>(
      this.databaseUrl
        ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
        : "SELECT name FROM sqlite_master WHERE type = 'table'",
    );
    const out: Record<string, unknown[]> = {};
    for (const { name } of names) if (!except.includes(name)) out[name] = await this.query(`SELECT * FROM ${name}`);
    return out;
  }

  /** All the store holds as text: the SQLite file and its WAL byte for byte, or every PostgreSQL table's rows. */
  async storedText(): Promise<string> {
    if (this.databaseUrl) return JSON.stringify(await this.tables());
    return ["vigil.db", "vigil.db-wal"]
      .filter((file) => existsSync(join(this.home, file)))
      .map((file) => readFileSync(join(this.home, file)).toString("latin1"))
      .join("\n");
  }

  /** The owner-only socket every same-user client calls. */
  get socket(): string {
    return join(this.home, "api.sock");
  }

  /** One request on the owner's socket, as the CLI makes it (no token); it fails after `timeoutMs`. */
  async api<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    timeoutMs = 30_000,
  ): Promise<ApiReply<T>> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
      const req = request(
        { socketPath: this.socket, method, path, headers: { "content-type": "application/json", ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
            } catch (error) {
              reject(error);
            }
          });
          res.on("error", reject);
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** One request on the TCP port (public routes; the rest only with the tcpApi setting and the token). */
  async tcp<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiReply<T>> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** Runs the real CLI binary against this daemon's home. */
  cli(args: string[], options: { input?: string; cwd?: string; env?: Record<string, string> } = {}): Promise<Result> {
    return execa(process.execPath, [this.bin, ...args], {
      env: { ...this.env, ...options.env, VIGIL_HOME: this.home },
      reject: false,
      input: options.input,
      cwd: options.cwd,
    }) as unknown as Promise<Result>;
  }

  #sessions = 0;

  /** A fresh session (so per-session limits never couple tests), named `prefix-N`. */
  async newSession(prefix = "s"): Promise<string> {
    const id = `${prefix}-${++this.#sessions}`;
    const reply = await this.api("POST", "/api/sessions", { id });
    if (reply.status !== 201) throw new Error(`Expected to create session ${id}, got ${reply.status}`);
    return id;
  }

  async monitor(session: string, id: string) {
    return (await this.api("GET", `/api/sessions/${session}/monitors/${id}`)).body;
  }

  async waitForState(session: string, id: string, states: string[], timeoutMs = 15_000) {
    return waitFor(
      async () => {
        const view = await this.monitor(session, id);
        return states.includes(view.state) ? view : null;
      },
      { timeoutMs, what: `${session}/${id} in ${states.join("|")}` },
    );
  }

  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    return exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** Alive and not a zombie (an orphan may wait for a reaper that a container does not run). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
