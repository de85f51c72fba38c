/**
 * Team mode's trust boundary (#37, design.md §8): no host commands another. Two daemons run by two
 * different Unix users (laptop-a as one, ci-b as another, each with its own 0700 home) on one real
 * PostgreSQL. B's owner plays the attacker: through B's own socket every write about A's session is
 * refused (409 naming host A), and through the database itself (every host holds its credentials)
 * rows forged for A's session — a copied seal, a random one, none, a sealed row's source changed, an
 * adapter under another session's seal — are refused by A, said so in the check log and in "Needs
 * you", and nothing runs as A: the marker file never appears, A's vault value is nowhere.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AttentionItem, CheckEntry, PanelPage, WakeView } from "../../shared/schemas/views.js";
import { type ApiReply, TestDaemon, waitFor } from "../helpers/daemon.js";
import { TestPostgres } from "../helpers/postgres.js";

/** A throwaway system user for a daemon (made once per machine, kept like the PostgreSQL harness's). */
function unixUser(name: string): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync("id", [flag, name], { encoding: "utf8" });
  if (id("-u").status !== 0) {
    execFileSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name]);
  }
  return { uid: Number(id("-u").stdout.trim()), gid: Number(id("-g").stdout.trim()) };
}

const TOKEN = `deploy-${randomBytes(12).toString("hex")}`;
let server: TestPostgres;
let url: string;
let a: TestDaemon;
let b: TestDaemon;
let userA: { uid: number; gid: number };
let aHostId: string;
/** Where an attack that ran as A would write (a folder A may write to). */
let markerDir: string;
let marker: string;
/** What every forged command and adapter would do as A: who it ran as, and A's vault value. */
let attack: string;
let waitpoint: string;

const message = (reply: ApiReply) => String((reply.body as { error?: { message?: string } })?.error?.message);

/** A statement on the shared database as any host's owner can run it (every host holds its credentials). */
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => a.query<T>(text, params);

/** A trigger row written straight into the database for A's session, as a peer can. */
async function forgeCheck(id: string, hostId: string | null, seal: string | null): Promise<void> {
  const now = Date.now();
  const [row] = await sql<{ uid: string }>(
    `INSERT INTO monitors (session_id, id, name, kind, source, interval_ms, timeout_ms, created_at)
     VALUES ('dev-a', $1, $1, 'command', $2, 1000, 3600000, $3) RETURNING uid`,
    [id, JSON.stringify({ kind: "command", command: attack }), now],
  );
  await sql(
    "INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at, host_id, seal) VALUES ($1, 'poll', $2, $3, $4, $5)",
    [row?.uid, now, now + 3_600_000, hostId, seal],
  );
}

async function attention(daemon: TestDaemon): Promise<AttentionItem[]> {
  return ((await daemon.api("GET", "/api/panel?filter=needs")).body as PanelPage).attention;
}

/** Everything B's side holds as text: its home's files (log, spool) and the database's rows. */
function homeText(home: string): string {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) out.push(readFileSync(path, "latin1"));
    }
  };
  walk(home);
  return out.join("\n");
}

beforeAll(async () => {
  // Its own server: the shared one's socket dir is its user's alone (0700), and the daemons here run
  // as other users; this one's is opened for them to connect (trust auth on the socket, as before).
  server = await TestPostgres.start();
  chmodSync(server.dir, 0o711);
  chmodSync(server.socketDir, 0o711);
  url = await server.createDatabase("vigil_trust");
  userA = unixUser("vigil-trust-a");
  const userB = unixUser("vigil-trust-b");
  a = await TestDaemon.start({ env: { VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: "laptop-a" }, user: userA });
  b = await TestDaemon.start({ env: { VIGIL_DATABASE_URL: url, VIGIL_HOST_NAME: "ci-b" }, user: userB });
  aHostId = ((await a.api("GET", "/api/status")).body as { host: { id: string } }).host.id;

  markerDir = mkdtempSync(join(tmpdir(), "vigil-trust-marker-"));
  chmodSync(markerDir, 0o777);
  marker = join(markerDir, "ran-as-a");
  attack = `id > ${marker}; printf '%s\\n' "\${secret:DEPLOY_TOKEN}" >> ${marker}`;

  expect((await a.api("PUT", "/api/vault/DEPLOY_TOKEN", { value: TOKEN })).status).toBe(200);
  expect((await a.api("POST", "/api/sessions", { id: "dev-a" })).status).toBe(201);
  // A's own command check: a real sealed row (its seal is what a peer would copy).
  const own = await a.api("POST", "/api/sessions/dev-a/monitors", {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 60,
    timeoutSeconds: 600,
  });
  expect(own.status, JSON.stringify(own.body)).toBe(201);
  const made = await a.api("POST", "/api/sessions/dev-a/waitpoints", { label: "deploy", intent: "read the run" });
  expect(made.status).toBe(201);
  waitpoint = (made.body as { id: string }).id;
});

afterAll(async () => {
  await Promise.all([a?.dispose(), b?.dispose()]);
  await server?.stop();
});

describe("two hosts, two Unix users, one database", () => {
  test("the daemons run as their own users, each home 0700 and its host.key 0600 owned by that user", () => {
    for (const daemon of [a, b]) {
      const owner = daemon.user as { uid: number };
      expect(statSync(`/proc/${daemon.pid}`).uid).toBe(owner.uid);
      expect(statSync(daemon.home).mode & 0o777).toBe(0o700);
      const key = statSync(join(daemon.home, "host.key"));
      expect([key.uid, key.mode & 0o777, key.size]).toEqual([owner.uid, 0o600, 32]);
    }
  });

  test("through B's socket every write about A's session is refused (409 naming host A) and nothing runs as A", async () => {
    // B's own vault has a key of that name, so the reference passes B's arming checks; A would fill in its own value.
    expect((await b.api("PUT", "/api/vault/DEPLOY_TOKEN", { value: "b-own-value" })).status).toBe(200);
    const adapterArgv = ["/bin/sh", "-c", `id > ${marker}`];
    // The destructive ones last: on a daemon without the check, each would otherwise hide the next.
    const attempts: Array<[string, string, unknown?]> = [
      ["POST", "/api/sessions/dev-a/monitors", { source: { kind: "command", command: attack }, intervalSeconds: 1 }],
      ["PATCH", "/api/sessions/dev-a", { adapter: { kind: "command", argv: adapterArgv } }],
      ["POST", "/api/sessions/dev-a/turn", { state: "busy", leaseSeconds: 600 }],
      ["POST", "/api/sessions/dev-a/monitors/events", { type: "deploy.done", payload: {} }],
      ["POST", "/api/sessions/dev-a/wakes/claim"],
      ["POST", "/api/sessions/dev-a/wakes/wake-1/retry"],
      ["POST", "/api/sessions/dev-a/wakes/wake-1/dismiss"],
      ["POST", "/api/sessions/dev-a/monitors/clear-ended"],
      ["POST", "/api/sessions/dev-a/waitpoints", { label: "forged", intent: "x" }],
      ["POST", `/api/waitpoints/${waitpoint}/signal`, { status: "ok", message: "forged: deploy succeeded" }],
      ["DELETE", `/api/sessions/dev-a/waitpoints/${waitpoint}`],
      ["POST", "/api/sessions/dev-a/monitors/mon-1/control", { action: "cancel" }],
      ["DELETE", "/api/sessions/dev-a"],
    ];
    for (const [method, path, body] of attempts) {
      const reply = await b.api(method, path, body);
      expect([method, path, reply.status]).toEqual([method, path, 409]);
      expect(message(reply)).toMatch(
        new RegExp(
          `^Expected ".+" \\(${method} \\S+\\) through the daemon of its session's host, got session dev-a of host laptop-a \\(${aHostId}\\): ask that host's daemon there$`,
        ),
      );
    }
    // The same id made anew through B is refused too (it was already).
    expect((await b.api("POST", "/api/sessions", { id: "dev-a", adapter: { kind: "inbox" } })).status).toBe(409);

    // Nothing changed on A: its check and its waitpoint still armed, the waitpoint unsignalled; no adapter.
    const monitors = (await a.api("GET", "/api/sessions/dev-a/monitors")).body as Array<{ id: string; state: string }>;
    expect(monitors.map((m) => [m.id, m.state])).toEqual([
      ["mon-1", "waiting"],
      [waitpoint, "waiting"],
    ]);
    const wp = (await a.api("GET", `/api/sessions/dev-a/waitpoints/${waitpoint}`)).body;
    expect(wp).toMatchObject({ state: "armed", received: 0, lastSignalAt: null });
    expect((await a.api("GET", "/api/sessions/dev-a")).body).toMatchObject({
      adapter: { kind: "inbox" },
      busyUntil: null,
    });
    expect(existsSync(marker)).toBe(false);
  });

  test("rows a peer writes straight into the database for A's session are refused by A: the check log says why, Needs you shows it, nothing runs", async () => {
    const [real] = await sql<{ seal: string | null }>(
      "SELECT t.seal FROM triggers t JOIN monitors m ON m.uid = t.monitor_uid WHERE m.session_id = 'dev-a' AND m.id = 'mon-1'",
    );
    expect(real?.seal).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await forgeCheck("mon-90", aHostId, real?.seal ?? null); // A's real seal, copied onto another source
    await forgeCheck("mon-91", aHostId, randomBytes(32).toString("base64url")); // a random seal
    await forgeCheck("mon-92", null, null); // no seal, no host (any host would take it)
    // A's own sealed row, its command changed in place (the seal kept).
    await sql("UPDATE monitors SET source = $1 WHERE session_id = 'dev-a' AND id = 'mon-1'", [
      JSON.stringify({ kind: "command", command: attack }),
    ]);
    await sql(
      "UPDATE triggers SET next_due_at = $1 WHERE monitor_uid = (SELECT uid FROM monitors WHERE session_id = 'dev-a' AND id = 'mon-1')",
      [Date.now()],
    );

    const forged = ["mon-1", "mon-90", "mon-91", "mon-92"];
    for (const id of forged) {
      const checks = await waitFor(
        async () => {
          const log = (await a.api("GET", `/api/sessions/dev-a/monitors/${id}/checks`)).body as CheckEntry[];
          return log.some((c) => c.excerpt?.startsWith("refused:")) ? log : null;
        },
        { timeoutMs: 20_000, what: `the refusal of ${id} in its check log` },
      );
      expect(checks.at(-1)).toMatchObject({
        outcome: "error",
        excerpt:
          "refused: this host did not arm this check (its seal does not verify); arm it again through this host's daemon",
      });
      expect(await a.monitor("dev-a", id)).toMatchObject({ state: "paused" });
    }
    const needs = await attention(a);
    expect(
      needs
        .filter((item) => item.reason === "unsealed")
        .map((item) => item.monitorId)
        .sort(),
    ).toEqual(forged);
    expect(existsSync(marker)).toBe(false);

    // A resume is refused the same way: still nothing runs.
    expect((await a.api("POST", "/api/sessions/dev-a/monitors/mon-90/control", { action: "resume" })).status).toBe(200);
    await waitFor(async () => ((await a.monitor("dev-a", "mon-90")) as { state: string }).state === "paused", {
      what: "mon-90 refused again after its resume",
    });
    expect(existsSync(marker)).toBe(false);
  });

  test("an adapter a peer writes into the database (another session's seal, or none) is refused: the wake waits for review, nothing runs", async () => {
    // A's own command adapter on another session: a real sealed adapter whose seal a peer copies.
    const harmless = ["/bin/sh", "-c", "exit 0"];
    expect(
      (await a.api("POST", "/api/sessions", { id: "dev-a-own", adapter: { kind: "command", argv: harmless } })).status,
    ).toBe(201);
    const [own] = await sql<{ adapter_seal: string | null }>(
      "SELECT adapter_seal FROM sessions WHERE id = 'dev-a-own'",
    );
    expect(own?.adapter_seal).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await a.api("POST", "/api/sessions", { id: "dev-a-bare" })).status).toBe(201);
    const forgedAdapter = JSON.stringify({ kind: "command", argv: ["/bin/sh", "-c", attack], timeoutSeconds: 5 });
    await sql("UPDATE sessions SET adapter = $1, adapter_seal = $2 WHERE id = 'dev-a-own'", [
      forgedAdapter,
      own?.adapter_seal,
    ]);
    await sql("UPDATE sessions SET adapter = $1, adapter_seal = NULL WHERE id = 'dev-a-bare'", [forgedAdapter]);

    for (const sid of ["dev-a-own", "dev-a-bare"]) {
      // A wake for the session, through A's own API (the owner's signal on its own host).
      const made = await a.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "ci", intent: "read it" });
      expect(made.status).toBe(201);
      const id = (made.body as { id: string }).id;
      expect((await a.api("POST", `/api/waitpoints/${id}/signal`, { status: "ok", message: "green" })).status).toBe(
        202,
      );
      const [wake] = await waitFor(
        async () => {
          const wakes = (await a.api("GET", `/api/sessions/${sid}/wakes`)).body as WakeView[];
          return wakes.some((w) => w.state === "needs_review") ? wakes : null;
        },
        { timeoutMs: 20_000, what: `the wake of ${sid} in review` },
      );
      expect(wake).toMatchObject({
        state: "needs_review",
        lastError:
          "refused: this host did not set this session's adapter (its seal does not verify); nothing was run or sent; set the adapter again through this host's daemon, then retry the wake",
        output: null,
      });
    }
    const needs = await attention(a);
    expect(
      needs
        .filter((item) => item.reason === "unsealed" && item.wakeId !== undefined)
        .map((item) => item.sessionId)
        .sort(),
    ).toEqual(["dev-a-bare", "dev-a-own"]);
    expect(existsSync(marker)).toBe(false);
  });

  test("a sandbox a peer clears or widens in the database arms nothing: A refuses command checks from that row (409), nothing runs", async () => {
    const box = { agent: "codex", mode: "read-only", root: markerDir };
    for (const sid of ["dev-a-cleared", "dev-a-widened"]) {
      const made = await a.api("POST", "/api/sessions", { id: sid, sandbox: box });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    await sql("UPDATE sessions SET sandbox = NULL WHERE id = 'dev-a-cleared'");
    await sql("UPDATE sessions SET sandbox = $1 WHERE id = 'dev-a-widened'", [
      JSON.stringify({ ...box, mode: "danger-full-access" }),
    ]);
    for (const sid of ["dev-a-cleared", "dev-a-widened"]) {
      // What the sandboxed agent itself asks, through A's own daemon.
      const armed = await a.api("POST", `/api/sessions/${sid}/monitors`, {
        source: { kind: "command", command: attack },
        intervalSeconds: 60,
        timeoutSeconds: 600,
      });
      expect(armed.status).toBe(409);
      expect((armed.body as { error: { message: string } }).error.message).toContain(
        `Expected session ${sid}'s row to carry this host's seal to arm a command check`,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });

  test("A's vault value appears nowhere B can read: B's home, B's answers, the database", async () => {
    expect(homeText(b.home)).not.toContain(TOKEN);
    expect(JSON.stringify((await b.api("GET", "/api/panel")).body)).not.toContain(TOKEN);
    expect(JSON.stringify(await sql("SELECT * FROM monitors"))).not.toContain(TOKEN);
    expect(JSON.stringify(await sql("SELECT * FROM checks"))).not.toContain(TOKEN);
    expect(JSON.stringify(await sql("SELECT * FROM wakes"))).not.toContain(TOKEN);
    expect(existsSync(marker)).toBe(false);
  });
});
