/**
 * Team mode survives a database restart under load (#41 item 3, design.md §9.1): two daemons on one
 * real PostgreSQL (its own durable cluster, started here: the faults project has no shared server,
 * and a crash must not lose what was committed, so fsync and synchronous_commit are on) while
 * clients send signals to both and one-shot waitpoints of a session on alpha are signalled through
 * either. The server is stopped with `pg_ctl stop -m fast`, and in the other test `-m immediate` (a
 * crash). Meanwhile each daemon answers 503 with Retry-After (nothing stored); when the server is
 * back, each takes signals again by itself (no daemon restart). Afterwards every signal answered 202
 * is stored exactly once, and every one-shot wake was pushed exactly once (counted at the adapter).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { FIXTURES, TestDaemon, waitFor } from "../helpers/daemon.js";
import { TestPostgres } from "../helpers/postgres.js";
import { deliveriesPerWake, expectEachPushedOnce } from "../helpers/recorder.js";

let server: TestPostgres;
const daemons: TestDaemon[] = [];

beforeAll(async () => {
  server = await TestPostgres.start({ durable: true });
}, 120_000);

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
  await server?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  retryAfter: string | null;
  error: string;
}

/** One signal over TCP; no answer at all (the daemon gone) comes back as status 0. */
async function signal(to: TestDaemon, body: Record<string, unknown>): Promise<Answer> {
  let r: Response;
  let text: string;
  try {
    r = await fetch(`${to.url}/webhook/signal`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    text = await r.text();
  } catch (error) {
    return { status: 0, retryAfter: null, error: `no answer: ${String((error as Error).cause ?? error)}` };
  }
  return { status: r.status, retryAfter: r.headers.get("retry-after"), error: r.status === 202 ? "" : text };
}

test.each(["fast", "immediate"] as const)(
  "PostgreSQL stopped -m %s under load: 503 meanwhile, back by itself, every 202 stored once, every one-shot woken once",
  async (mode) => {
    const url = await server.createDatabase(`vigil_restart_${mode}`);
    const receiver = mkdtempSync(join(tmpdir(), `vigil-restart-receiver-${mode}-`));
    const pair: TestDaemon[] = [];
    for (const name of ["alpha", "beta"]) {
      const daemon = new TestDaemon(mkdtempSync(join(tmpdir(), `vigil-restart-${name}-`)), {
        VIGIL_DATABASE_URL: url,
        VIGIL_HOST_NAME: name,
        VIGIL_INTERVAL_FLOOR_SECONDS: "0.2",
        VIGIL_DELIVERY_RETRY_BASE_MS: "50",
        // The load here is the test's own: no waitpoint's signal budget (429) in the way.
        VIGIL_WAITPOINT_SIGNALS_PER_MINUTE: "100000",
      });
      await daemon.spawn();
      daemons.push(daemon);
      pair.push(daemon);
    }
    const [alpha, beta] = pair as [TestDaemon, TestDaemon];
    await beta.api("POST", "/api/sessions", { id: "sig" });
    await alpha.api("POST", "/api/sessions", {
      id: "del",
      adapter: { kind: "command", argv: [join(FIXTURES, "adapter-recorder.sh"), receiver, "0.1"], timeoutSeconds: 2 },
    });
    const mailboxes: Array<{ id: string; secret: string }> = [];
    for (let i = 0; i < 6; i++) {
      const reply = await beta.api("POST", "/api/sessions/sig/waitpoints", {
        label: `m${i}`,
        intent: "restart",
        max_signals: 1000,
      });
      mailboxes.push({ id: reply.body.id, secret: reply.body.secret });
    }

    const accepted = new Map<string, string>(); // key → waitpoint
    const oneShots: string[] = [];
    /** Answers other than 202 and a storage 503 (with its Retry-After): each one a failure. */
    const unexpected: string[] = [];
    const unavailable = new Map<TestDaemon, number>(pair.map((d) => [d, 0]));
    const acceptedBy = new Map<TestDaemon, number>(pair.map((d) => [d, 0]));
    const note = (to: TestDaemon, answer: Answer) => {
      if (answer.status === 202) acceptedBy.set(to, (acceptedBy.get(to) ?? 0) + 1);
      else if (answer.status === 503 && answer.retryAfter !== null && /Database unreachable/.test(answer.error))
        unavailable.set(to, (unavailable.get(to) ?? 0) + 1);
      else unexpected.push(`${answer.status} retry-after=${answer.retryAfter}: ${answer.error}`);
    };

    let firing = true;
    let sent = 0;
    const fire = async (worker: number) => {
      while (firing) {
        const n = sent++;
        const key = `w${worker}-${n}`;
        const w = mailboxes[n % mailboxes.length] as { id: string; secret: string };
        const to = pair[n % 2] as TestDaemon;
        const answer = await signal(to, { id: w.id, secret: w.secret, status: "progress", key });
        note(to, answer);
        if (answer.status === 202) accepted.set(key, w.id);
        else await pause(20);
      }
    };
    const oneShot = async () => {
      let n = 0;
      while (firing) {
        const made = await alpha
          .api("POST", "/api/sessions/del/waitpoints", { label: "once", intent: "restart" })
          .catch((error: unknown) => ({ status: 0, body: { error: `no answer: ${String(error)}` } }));
        if (made.status === 0) unexpected.push(String(made.body.error));
        if (made.status !== 201) {
          await pause(20);
          continue;
        }
        // Signalled until it is taken: an answer lost to the outage is asked again with the same key, as
        // a careful client does (a crash can cut the answer to a commit that happened: the key makes
        // the second one a duplicate, answered 202 and not stored again).
        const to = pair[n++ % 2] as TestDaemon;
        for (;;) {
          const answer = await signal(to, {
            id: made.body.id,
            secret: made.body.secret,
            status: "ok",
            key: `once-${made.body.id}`,
          });
          note(to, answer);
          if (answer.status === 202) {
            oneShots.push(made.body.id);
            break;
          }
          if (answer.status !== 503) break;
          await pause(50);
        }
      }
    };
    const workers = [...Array.from({ length: 8 }, (_, i) => fire(i)), oneShot(), oneShot()];
    const countsNow = () => pair.map((d) => acceptedBy.get(d) ?? 0);

    await waitFor(() => countsNow().every((n) => n >= 100) && oneShots.length >= 4, {
      what: "signals flowing to both daemons",
      timeoutMs: 60_000,
    });
    server.pause(mode);
    try {
      await waitFor(() => pair.every((d) => (unavailable.get(d) ?? 0) >= 3), {
        what: "both daemons answering 503 while the database is away",
        timeoutMs: 60_000,
      });
    } catch (error) {
      firing = false;
      await Promise.all(workers);
      const said = pair.map((d) => {
        const log = existsSync(join(d.home, "vigil.log")) ? readFileSync(join(d.home, "vigil.log"), "utf8") : "";
        return `${d.env.VIGIL_HOST_NAME} (exit ${d.child?.exitCode}, signal ${d.child?.signalCode}): ${d.stderr.slice(-1500)} log: ${log.slice(-1500)}`;
      });
      throw new Error(`${(error as Error).message}; answers: ${unexpected.slice(-5).join(" | ")}; ${said.join("\n")}`);
    } finally {
      server.resume();
    }
    const duringOutage = countsNow();
    // No daemon restart: each takes signals again by itself.
    await waitFor(() => countsNow().every((n, i) => n >= (duringOutage[i] ?? 0) + 100), {
      what: "both daemons taking signals again after the restart",
      timeoutMs: 60_000,
    });
    const oneShotsBefore = oneShots.length;
    await waitFor(() => oneShots.length >= oneShotsBefore + 2, { what: "one-shots taken after the restart" });
    firing = false;
    await Promise.all(workers);

    // Every wake settles: delivered, or needing review when the crash cut its push.
    const wakesOf = async () =>
      (await alpha.api("GET", "/api/sessions/del/wakes")).body as Array<{
        id: string;
        state: string;
        lastError: string | null;
        monitors: string[];
      }>;
    const monitorOf = new Map(
      (
        await alpha.query<{ id: string; monitor: string }>(
          "SELECT wp.id, m.id AS monitor FROM waitpoints wp JOIN monitors m ON m.uid = wp.monitor_uid",
        )
      ).map((r) => [r.id, r.monitor]),
    );
    let seen = "";
    await waitFor(
      async () => {
        const wakes = await wakesOf();
        const settled = new Set(wakes.filter((w) => w.state === "delivered").flatMap((w) => w.monitors));
        const unwoken = oneShots.filter((id) => !settled.has(monitorOf.get(id) ?? ""));
        seen = `wakes ${JSON.stringify(wakes.map((w) => [w.id, w.state, w.lastError, w.monitors]))}; unwoken ${unwoken.map((id) => monitorOf.get(id))}`;
        return wakes.every((w) => w.state === "delivered" || w.state === "needs_review") && unwoken.length === 0;
      },
      { timeoutMs: 60_000, what: "every one-shot's wake delivered" },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}: ${seen}`);
    });
    const wakes = await wakesOf();

    const rows = await alpha.query<{ key: string; n: number }>(
      "SELECT key, count(*)::int AS n FROM signals WHERE key IS NOT NULL GROUP BY key",
    );
    const stored = new Map(rows.map((r) => [r.key, r.n]));
    const twice = rows.filter((r) => r.n > 1);
    // A waitpoint keeps its last 100 progress signals and counts those it let go (#37): per waitpoint,
    // the accepted keys not stored are exactly as many as it counts dropped.
    const dropped = new Map(
      (await alpha.query<{ id: string; progress_dropped: number }>("SELECT id, progress_dropped FROM waitpoints")).map(
        (r) => [r.id, Number(r.progress_dropped)],
      ),
    );
    const absent = new Map<string, number>();
    for (const [key, id] of accepted) if (!stored.has(key)) absent.set(id, (absent.get(id) ?? 0) + 1);
    const lost = [...absent].filter(([id, count]) => count !== (dropped.get(id) ?? 0));
    const oneShotSignals = await alpha.query<{ id: string; n: number }>(
      "SELECT wp.id, count(*)::int AS n FROM waitpoints wp JOIN signals s ON s.monitor_uid = wp.monitor_uid WHERE s.status = 'ok' GROUP BY wp.id",
    );
    const oneShotStored = new Map(oneShotSignals.map((r) => [r.id, r.n]));
    const oneShotsNotOnce = oneShots.filter((id) => oneShotStored.get(id) !== 1);
    const perWake = deliveriesPerWake(receiver);
    const review = wakes.filter((w) => w.state === "needs_review");

    process.stdout.write(
      `\nPostgreSQL restart (-m ${mode}) under load, 2 daemons · signals accepted ${accepted.size} ` +
        `(alpha ${countsNow()[0]}, beta ${countsNow()[1]}), lost ${lost.length}, stored twice ${twice.length} · ` +
        `503s while away: alpha ${unavailable.get(alpha)}, beta ${unavailable.get(beta)} · one-shots ${oneShots.length}, ` +
        `not stored once ${oneShotsNotOnce.length} · wakes ${wakes.length}, needs review ${review.length}, ` +
        `pushed twice ${[...perWake].filter(([, n]) => n > 1).length} · other answers ${unexpected.length}\n`,
    );
    expect(unexpected).toEqual([]);
    expect(lost).toEqual([]);
    expect(twice).toEqual([]);
    expect(oneShotsNotOnce).toEqual([]);
    expectEachPushedOnce(wakes, perWake);
    // Each one-shot woke the session: its wake pushed exactly once.
    for (const id of oneShots) {
      const wake = wakes.find((w) => w.state === "delivered" && w.monitors.includes(monitorOf.get(id) ?? ""));
      expect(wake && perWake.get(wake.id)).toBe(1);
    }
    expect(review).toEqual([]);
  },
);
