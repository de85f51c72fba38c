/**
 * Idempotency keys are scoped per waitpoint (issue 25, finding 5; Stripe scopes them per account):
 * a job holding waitpoint A's secret cannot make waitpoint B's signal vanish by sending B's key
 * first — neither over HTTP nor by reusing a spool file name. A repeat to the same waitpoint is
 * still a duplicate.
 */
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  // The sweep is off: a spool file collected here was collected by the folder watch.
  daemon = await TestDaemon.start({ env: { VIGIL_WAITPOINT_SWEEP_MS: "0" } });
});
afterAll(() => daemon.dispose());

interface Armed {
  sid: string;
  id: string;
  secret: string;
}

async function arm(args: Record<string, unknown> = {}): Promise<Armed> {
  const sid = await daemon.newSession("job");
  const reply = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
    label: "a job",
    intent: "read its result",
    ...args,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { sid, id: reply.body.id, secret: reply.body.secret };
}

const signal = (body: Record<string, unknown>) =>
  fetch(`${daemon.url}/webhook/signal`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

const view = async (w: Armed) => (await daemon.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body;
const wakes = async (w: Armed) => (await daemon.api("GET", `/api/sessions/${w.sid}/wakes`)).body as unknown[];

/** Drops a signal file into the daemon's spool the way writers do (NAME.tmp renamed to NAME.json). */
async function spool(name: string, body: Record<string, unknown>): Promise<void> {
  const dir = join(daemon.home, "tmp", "signals");
  writeFileSync(join(dir, `${name}.tmp`), JSON.stringify(body));
  renameSync(join(dir, `${name}.tmp`), join(dir, `${name}.json`));
  await waitFor(() => !existsSync(join(dir, `${name}.json`)), { what: `${name}.json collected` });
}

test("HTTP: the same key sent to another waitpoint is that waitpoint's own signal; to the same one, a duplicate", async () => {
  const a = await arm();
  const b = await arm();
  expect(await signal({ id: a.id, secret: a.secret, status: "ok", key: "run-42" })).toEqual({
    status: 202,
    body: { accepted: true, id: a.id, status: "ok" },
  });
  expect(await signal({ id: b.id, secret: b.secret, status: "ok", key: "run-42" })).toEqual({
    status: 202,
    body: { accepted: true, id: b.id, status: "ok" },
  });
  const resolved = await waitFor(
    async () => {
      const current = await view(b);
      return current.state === "resolved" ? current : null;
    },
    { what: "waitpoint B resolved by its own signal" },
  );
  expect(resolved.signals).toHaveLength(1);
  expect(await waitFor(async () => (await wakes(b)).length === 1, { what: "waitpoint B's wake" })).toBe(true);

  // A repeat to the same waitpoint is still recognised (a mailbox, so it is not refused as ended).
  const mailbox = await arm({ max_signals: 5 });
  const progress = { id: mailbox.id, secret: mailbox.secret, status: "progress", key: "run-42" };
  expect((await signal(progress)).body).toEqual({ accepted: true, id: mailbox.id, status: "progress" });
  expect((await signal(progress)).body).toEqual({ accepted: true, duplicate: true, id: mailbox.id });
  expect((await view(mailbox)).signals).toHaveLength(1);
});

test("spool: a file name reused for another waitpoint is that waitpoint's signal; for the same one, a duplicate", async () => {
  const a = await arm();
  const b = await arm();
  await spool("build-7", { id: a.id, secret: a.secret, status: "ok" });
  expect((await view(a)).signals).toHaveLength(1);
  await spool("build-7", { id: b.id, secret: b.secret, status: "ok" });
  const resolved = await waitFor(
    async () => {
      const current = await view(b);
      return current.state === "resolved" ? current : null;
    },
    { what: "waitpoint B resolved by its spool file" },
  );
  expect(resolved.signals).toEqual([expect.objectContaining({ status: "ok", via: "spool" })]);

  const mailbox = await arm({ max_signals: 5 });
  await spool("beat", { id: mailbox.id, secret: mailbox.secret, status: "progress" });
  await spool("beat", { id: mailbox.id, secret: mailbox.secret, status: "progress" });
  expect((await view(mailbox)).signals).toHaveLength(1);
});
