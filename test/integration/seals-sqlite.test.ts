/**
 * Seals on SQLite (#37): one host, the home's own file, so rows armed before seals (migration 0018)
 * are sealed at the next start and go on running; a row written into the file while the daemon runs
 * is still refused (it is sealed only at a start).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { CheckEntry } from "../../shared/schemas/views.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let work: string;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-seals-"));
});

afterAll(async () => {
  await daemon?.dispose();
});

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : []);

/** Writes to the daemon's SQLite file directly (as the account, or an older Vigil, can). */
function write(sql: string, params: unknown[] = []): void {
  const db = new Database(join(daemon.home, "vigil.db"));
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

test("a check and an adapter armed before seals are sealed at the next start and go on running", async () => {
  const checked = join(work, "checked");
  const pushed = join(work, "pushed");
  expect(
    (
      await daemon.api("POST", "/api/sessions", {
        id: "old",
        adapter: { kind: "command", argv: ["/bin/sh", "-c", `echo pushed >> ${pushed}`] },
      })
    ).status,
  ).toBe(201);
  const armed = await daemon.api("POST", "/api/sessions/old/monitors", {
    source: { kind: "command", command: `echo ran >> ${checked}; exit 1` },
    intervalSeconds: 1,
    timeoutSeconds: 300,
  });
  expect(armed.status, JSON.stringify(armed.body)).toBe(201);
  await waitFor(() => lines(checked).length >= 1, { what: "the first check" });
  expect(await daemon.stop()).toBe(0);

  // As an older Vigil left them: no seals.
  write("UPDATE triggers SET seal = NULL");
  write("UPDATE sessions SET adapter_seal = NULL");
  const before = lines(checked).length;
  await daemon.spawn();
  await waitFor(() => lines(checked).length > before, { what: "a check after the restart" });
  const [row] = await daemon.query<{ seal: string | null }>("SELECT seal FROM triggers");
  expect(row?.seal).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const checks = (await daemon.api("GET", "/api/sessions/old/monitors/mon-1/checks")).body as CheckEntry[];
  expect(checks.some((c) => c.excerpt?.startsWith("refused:"))).toBe(false);

  const made = await daemon.api("POST", "/api/sessions/old/waitpoints", { label: "ci", intent: "read it" });
  const id = (made.body as { id: string }).id;
  expect((await daemon.api("POST", `/api/waitpoints/${id}/signal`, { status: "ok" })).status).toBe(202);
  await waitFor(() => lines(pushed).length >= 1, { what: "the command adapter's push" });
});

test("a command row written into the file while the daemon runs is refused (sealed only at a start)", async () => {
  const forged = join(work, "forged");
  expect((await daemon.api("POST", "/api/sessions", { id: "live" })).status).toBe(201);
  const now = Date.now();
  const db = new Database(join(daemon.home, "vigil.db"));
  try {
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO monitors (session_id, id, name, kind, source, interval_ms, timeout_ms, created_at)
         VALUES ('live', 'mon-9', 'forged', 'command', ?, 1000, 300000, ?)`,
      )
      .run(JSON.stringify({ kind: "command", command: `echo ran >> ${forged}` }), now);
    db.prepare("INSERT INTO triggers (monitor_uid, mode, next_due_at, deadline_at) VALUES (?, 'poll', ?, ?)").run(
      lastInsertRowid,
      now,
      now + 300_000,
    );
  } finally {
    db.close();
  }
  // Nothing announces a write made behind the daemon's back: arming through it makes it look again.
  await daemon.api("POST", "/api/sessions/live/monitors", {
    source: { kind: "time", at: new Date(now + 600_000).toISOString() },
  });
  const view = await daemon.waitForState("live", "mon-9", ["paused"]);
  expect(view.lastError).toMatch(/^refused: this host did not arm this check/);
  expect(existsSync(forged)).toBe(false);
});
