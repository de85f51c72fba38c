/**
 * Group commit on POST /webhook/signal: the signals that arrive in one turn of the event loop share
 * one transaction, and each is answered 202 only after the commit that holds it. 64 connections
 * keep a burst of signals going (batches of many signals each), the daemon is killed -9 in the
 * middle of it, three times; afterwards every key that got a 202 is in the database.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

const CONNECTIONS = 64;
const KILLS = 3;
const home = mkdtempSync(join(tmpdir(), "vigil-group-commit-"));
const daemon = new TestDaemon(home, {});
afterAll(() => daemon.dispose());

test(`kill -9 during a burst on ${CONNECTIONS} connections, ${KILLS} times: every signal answered 202 was committed`, async () => {
  await daemon.spawn();
  await daemon.api("POST", "/api/sessions", { id: "burst" });
  const mailboxes: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < 20; i++) {
    const reply = await daemon.api("POST", "/api/sessions/burst/waitpoints", {
      label: `m${i}`,
      intent: "burst",
      max_signals: 1000,
    });
    mailboxes.push(reply.body);
  }
  const accepted: string[] = [];
  let sent = 0;
  let biggestTurn = 0;

  for (let kill = 0; kill < KILLS; kill++) {
    if (kill > 0) await daemon.spawn();
    const url = `${daemon.url}/webhook/signal`;
    let firing = true;
    let answeredThisTurn = 0;
    const fire = async () => {
      while (firing) {
        const n = sent++;
        const w = mailboxes[n % mailboxes.length] as { id: string; secret: string };
        const key = `k${kill}-${n}`;
        try {
          const r = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ id: w.id, secret: w.secret, status: n % 5 === 0 ? "ok" : "progress", key }),
          });
          await r.arrayBuffer();
          if (r.status === 202) {
            accepted.push(key);
            answeredThisTurn++;
          }
        } catch {
          return; // the daemon died mid-request: no answer, no promise made
        }
      }
    };
    const workers = Array.from({ length: CONNECTIONS }, fire);
    // Until the burst is well under way (hundreds answered), then kill at once.
    while (answeredThisTurn < 300 + 200 * kill) await new Promise((resolve) => setImmediate(resolve));
    await daemon.kill9();
    firing = false;
    await Promise.all(workers);
    biggestTurn = Math.max(biggestTurn, answeredThisTurn);
  }

  const db = new Database(join(home, "vigil.db"), { readonly: true });
  const stored = new Set((db.prepare("SELECT key FROM signals").all() as Array<{ key: string }>).map((r) => r.key));
  const turns = db.prepare("SELECT count(*) AS n FROM signals").get() as { n: number };
  db.close();
  const lost = accepted.filter((key) => !stored.has(key));
  process.stdout.write(
    `\ngroup commit: ${KILLS} kill -9s during bursts on ${CONNECTIONS} connections · ${accepted.length} answered 202, ${turns.n} stored, lost ${lost.length}\n`,
  );
  expect(biggestTurn).toBeGreaterThanOrEqual(300);
  expect(lost).toEqual([]);
});
