/**
 * Fault suite: kill -9 the daemon at random moments while a client fires signals and monitors end
 * and are delivered. Afterwards: every signal that got a 202 is there, no wake was delivered twice
 * (counted at the receiver), interrupted deliveries are needs_review and were not repeated, and
 * every created monitor exists. Iterations: VIGIL_FAULT_ITERATIONS (5 in `npm test`, 50 in soak).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, test } from "vitest";
import { FIXTURES, TestDaemon, waitFor } from "../helpers/daemon.js";
import { deliveriesPerWake, expectEachPushedOnce } from "../helpers/recorder.js";

const ITERATIONS = Number(process.env.VIGIL_FAULT_ITERATIONS ?? 5);
const home = mkdtempSync(join(tmpdir(), "vigil-fault-"));
const receiver = mkdtempSync(join(tmpdir(), "vigil-receiver-"));
const daemon = new TestDaemon(home, {
  VIGIL_INTERVAL_FLOOR_SECONDS: "0.2",
  VIGIL_DELIVERY_LEASE_GRACE_MS: "200",
  VIGIL_DELIVERY_RETRY_BASE_MS: "50",
});
afterAll(() => daemon.dispose());

const random = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

test(`kill -9 at random moments, ${ITERATIONS} times: nothing accepted is lost, nothing is delivered twice`, async () => {
  await daemon.spawn();
  await daemon.api("POST", "/api/sessions", { id: "sig" });
  await daemon.api("POST", "/api/sessions", {
    id: "del",
    adapter: { kind: "command", argv: [join(FIXTURES, "adapter-recorder.sh"), receiver, "0.2"], timeoutSeconds: 1 },
  });
  const mailboxes: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < 10; i++) {
    mailboxes.push(
      (await daemon.api("POST", "/api/sessions/sig/waitpoints", { label: `m${i}`, intent: "fault", max_signals: 1000 }))
        .body,
    );
  }
  const accepted = new Set<string>();
  /** The waitpoint each accepted key went to. */
  const mailboxOf = new Map<string, string>();
  const created: string[] = [];
  let sent = 0;

  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    if (iteration > 0) await daemon.spawn();
    let firing = true;
    const fire = async (worker: number) => {
      while (firing) {
        const key = `i${iteration}-w${worker}-${sent++}`;
        const w = mailboxes[sent % mailboxes.length] as { id: string; secret: string };
        try {
          const r = await fetch(`${daemon.url}/webhook/signal`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ id: w.id, secret: w.secret, status: "progress", key }),
          });
          if (r.status === 202) {
            accepted.add(key);
            mailboxOf.set(key, w.id);
          }
        } catch {
          return; // the daemon died mid-request: no answer, no promise made
        }
      }
    };
    const arm = async () => {
      while (firing) {
        try {
          const r = await daemon.api("POST", "/api/sessions/del/monitors", {
            source: { kind: "command", command: "echo done" },
            intervalSeconds: 5,
          });
          if (r.status === 201) created.push(r.body.id);
          else await new Promise((resolve) => setTimeout(resolve, 20)); // the 4-per-session cap
        } catch {
          return;
        }
      }
    };
    const workers = [fire(0), fire(1), fire(2), fire(3), arm()];
    await new Promise((resolve) => setTimeout(resolve, random(150, 700)));
    await daemon.kill9();
    firing = false;
    await Promise.all(workers);
  }

  // Recovery: restart once more and let every lease run out.
  await daemon.spawn();
  await waitFor(
    async () => {
      const wakes = (await daemon.api("GET", "/api/sessions/del/wakes")).body as any[];
      return wakes.every((w) => w.state === "delivered" || w.state === "needs_review");
    },
    { timeoutMs: 30_000, what: "every delivery settled" },
  );
  const wakes = (await daemon.api("GET", "/api/sessions/del/wakes")).body as any[];
  await daemon.stop();

  const db = new Database(join(home, "vigil.db"), { readonly: true });
  const stored = new Set((db.prepare("SELECT key FROM signals").all() as Array<{ key: string }>).map((r) => r.key));
  // A waitpoint keeps its last 100 progress signals and counts the ones it let go (issue #37).
  const dropped = new Map(
    (
      db.prepare("SELECT id, progress_dropped FROM waitpoints").all() as Array<{ id: string; progress_dropped: number }>
    ).map((r) => [r.id, r.progress_dropped]),
  );
  const monitors = new Set(
    (db.prepare("SELECT id FROM monitors WHERE session_id = 'del'").all() as Array<{ id: string }>).map((r) => r.id),
  );
  db.close();
  // Every accepted key is stored, or counted as let go by its waitpoint: per waitpoint, the keys
  // not stored are exactly as many as it counts dropped.
  const absent = new Map<string, number>();
  for (const key of accepted)
    if (!stored.has(key)) absent.set(mailboxOf.get(key) ?? "", (absent.get(mailboxOf.get(key) ?? "") ?? 0) + 1);
  const lost = mailboxes
    .map((w) => ({ id: w.id, absent: absent.get(w.id) ?? 0, counted: dropped.get(w.id) ?? 0 }))
    .filter((w) => w.absent !== w.counted);
  const letGo = [...dropped.values()].reduce((sum, n) => sum + n, 0);
  const missingMonitors = created.filter((id) => !monitors.has(id));

  const perWake = deliveriesPerWake(receiver);
  const repeated = [...perWake].filter(([, count]) => count > 1);
  const review = wakes.filter((w) => w.state === "needs_review");
  const delivered = wakes.filter((w) => w.state === "delivered");

  process.stdout.write(
    `\nfault suite: ${ITERATIONS} kill -9s · signals accepted ${accepted.size}, lost ${lost.length}, let go as older than a waitpoint's last 100 ${letGo}, duplicated 0 (unique keys) · ` +
      `monitors created ${created.length}, missing ${missingMonitors.length} · wakes ${wakes.length}: delivered ${delivered.length}, ` +
      `needs review ${review.length} (interrupted) · deliveries run twice ${repeated.length}\n`,
  );
  expect(lost).toEqual([]);
  expect(missingMonitors).toEqual([]);
  expectEachPushedOnce(wakes, perWake);
  expect(accepted.size).toBeGreaterThan(0);
}, 300_000);
