import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../native-host/src/delivery/signature.js";
import { FIXTURES, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let n = 0;

beforeAll(async () => {
  daemon = await TestDaemon.start({
    env: {
      VIGIL_DELIVERY_RETRY_BASE_MS: "100",
      VIGIL_DELIVERY_LEASE_GRACE_MS: "300",
      VIGIL_DELIVERY_MAX_ATTEMPTS: "4",
    },
  });
});
afterAll(() => daemon.dispose());

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver answering with the statuses given, then 200. */
async function receiver(statuses: number[] = [], options: { hang?: boolean } = {}) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (options.hang) return;
      res.statusCode = statuses.shift() ?? 200;
      res.end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    });
  return { url, received, close };
}

async function session(adapter?: unknown) {
  const id = `d-${++n}`;
  const reply = await daemon.api("POST", "/api/sessions", { id, ...(adapter ? { adapter } : {}) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { id, webhookSecret: reply.body.webhookSecret as string | undefined };
}

/** A wait that is met on its first check. */
async function endsAtOnce(sid: string, name = "quick") {
  const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    name,
    source: { kind: "command", command: `echo ${name} done` },
    intervalSeconds: 5,
  });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}

const wakes = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];
const turn = (sid: string, state: "busy" | "idle") => daemon.api("POST", `/api/sessions/${sid}/turn`, { state });

describe("webhook adapter", () => {
  test("two monitors that end while the session is busy arrive as exactly one signed POST", async () => {
    const hook = await receiver();
    const { id: sid, webhookSecret } = await session({ kind: "webhook", url: hook.url });
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect((await daemon.api("GET", `/api/sessions/${sid}`)).body.webhookSecret).toBeUndefined();

    expect((await turn(sid, "busy")).body.busyUntil).not.toBeNull();
    await endsAtOnce(sid, "first");
    await endsAtOnce(sid, "second");
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    await daemon.waitForState(sid, "mon-2", ["ready"]);
    expect(hook.received).toHaveLength(0);

    await turn(sid, "idle");
    await waitFor(async () => (await wakes(sid)).every((w) => w.state === "delivered"), { what: "delivered" });
    expect(hook.received).toHaveLength(1);
    const [post] = hook.received as [Received];
    const signed = verifyWebhook(
      webhookSecret as string,
      {
        id: String(post.headers["webhook-id"]),
        timestamp: String(post.headers["webhook-timestamp"]),
        signature: String(post.headers["webhook-signature"]),
      },
      post.body,
    );
    expect(signed).toBe(true);
    expect(
      verifyWebhook(
        webhookSecret as string,
        {
          id: "msg_other",
          timestamp: String(post.headers["webhook-timestamp"]),
          signature: String(post.headers["webhook-signature"]),
        },
        post.body,
      ),
    ).toBe(false);
    const body = JSON.parse(post.body);
    expect(body).toMatchObject({ type: "vigil.wakes", sessionId: sid });
    // Both checks run at once, so either may end first: the wakes come in the order they ended.
    expect(body.wakes.map((w: any) => w.monitor.name).sort()).toEqual(["first", "second"]);
    expect(body.wakes[0].text).toContain("Ended (met)");
    for (const id of ["mon-1", "mon-2"]) {
      const view = await daemon.monitor(sid, id);
      expect(view.state).toBe("finished");
      expect(view.delivery).toMatchObject({ state: "delivered", deliveredVia: "webhook", attempts: 1 });
    }
    await hook.close();
  });

  test("a failing receiver is retried with backoff, visibly, then succeeds: one webhook-id, byte-identical bodies", async () => {
    const hook = await receiver([503, 503]);
    const { id: sid } = await session({ kind: "webhook", url: hook.url });
    await endsAtOnce(sid);
    const retrying = await waitFor(async () => {
      const view = await daemon.monitor(sid, "mon-1");
      return view.delivery?.attempts >= 1 && view.delivery.state === "ready" ? view : null;
    });
    expect(retrying.delivery.lastError).toBe(`POST ${hook.url} answered 503`);
    expect(retrying.delivery.nextAttemptAt).not.toBeNull();
    const done = await daemon.waitForState(sid, "mon-1", ["finished"]);
    expect(done.delivery).toMatchObject({ state: "delivered", attempts: 3, lastError: null });
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    // Standard Webhooks: one id, one content. The body names the message, not the attempt.
    expect(new Set(hook.received.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(hook.received[0]?.body ?? "")).toMatchObject({ id: hook.received[0]?.headers["webhook-id"] });
    expect(JSON.parse(hook.received[0]?.body ?? "")).not.toHaveProperty("turn");
    await hook.close();
  });

  test("a receiver failing past the retry budget leaves the wake needing review; a 4xx at once", async () => {
    const down = await receiver([500, 500, 500, 500, 500]);
    const { id: sid } = await session({ kind: "webhook", url: down.url });
    await endsAtOnce(sid);
    const review = await daemon.waitForState(sid, "mon-1", ["needs_review"]);
    expect(review.delivery.lastError).toBe(`POST ${down.url} answered 500 (gave up after 4 attempts)`);
    expect(down.received).toHaveLength(4);
    // A manual retry is a new message: a new id (the wakes inside keep theirs).
    await daemon.api("POST", `/api/sessions/${sid}/wakes/${review.delivery.wakeId}/retry`);
    await waitFor(() => down.received.length === 5, { what: "the manual retry" });
    const [first, , , , resent] = down.received as Received[];
    expect(resent?.headers["webhook-id"]).not.toBe(first?.headers["webhook-id"]);
    expect(JSON.parse(resent?.body ?? "").wakes[0].id).toBe(JSON.parse(first?.body ?? "").wakes[0].id);
    // The receiver answers 200 from the sixth request on: the resend's own retry delivers it.
    await daemon.waitForState(sid, "mon-1", ["finished"]);
    expect(down.received[5]?.headers["webhook-id"]).toBe(resent?.headers["webhook-id"]);

    const refusing = await receiver([400]);
    await daemon.api("PATCH", `/api/sessions/${sid}`, { adapter: { kind: "webhook", url: refusing.url } });
    await endsAtOnce(sid, "again");
    const refused = await daemon.waitForState(sid, "mon-2", ["needs_review"]);
    expect(refused.delivery).toMatchObject({ attempts: 1, lastError: `POST ${refusing.url} answered 400` });
    await down.close();
    await refusing.close();
  });

  test("a receiver that hangs does not hold up another session's delivery", async () => {
    const hanging = await receiver([], { hang: true });
    const slow = await session({ kind: "webhook", url: hanging.url, timeoutSeconds: 20 });
    const dir = mkdtempSync(join(tmpdir(), "vigil-other-"));
    const fast = await session({ kind: "command", argv: [join(FIXTURES, "adapter-recorder.sh"), dir] });
    await endsAtOnce(slow.id);
    await waitFor(() => hanging.received.length === 1, { what: "the hanging POST" });
    await endsAtOnce(fast.id);
    await daemon.waitForState(fast.id, "mon-1", ["finished"]);
    expect((await daemon.monitor(slow.id, "mon-1")).state).toBe("continuing");
    await daemon.api("DELETE", `/api/sessions/${slow.id}`);
    await hanging.close();
  });
});

describe("command adapter", () => {
  test("runs the argv template with the wake text on stdin and the JSON in VIGIL_WAKE_FILE, once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigil-cmd-"));
    const { id: sid } = await session({
      kind: "command",
      argv: [join(FIXTURES, "adapter-recorder.sh"), dir, "0", "0", "--session={session}", "{wake_id}"],
    });
    await endsAtOnce(sid, "build");
    const done = await daemon.waitForState(sid, "mon-1", ["finished"]);
    expect(done.delivery).toMatchObject({ state: "delivered", deliveredVia: "command" });
    const runs = readFileSync(join(dir, "runs"), "utf8").trim().split("\n");
    expect(runs).toEqual([
      `run 1 session=${sid} wakes=wake-${done.delivery.wakeId.slice(5)} args=${dir} 0 0 --session=${sid} ${done.delivery.wakeId}`,
    ]);
    expect(readFileSync(join(dir, "stdin-1"), "utf8")).toContain('mon-1 "build" (command wait)');
    const json = JSON.parse(readFileSync(join(dir, "wake-1.json"), "utf8"));
    expect(json.wakes[0]).toMatchObject({ id: done.delivery.wakeId, reason: "met", monitor: { name: "build" } });
    const [wake] = await wakes(sid);
    expect(wake.output).toBe("recorded run 1");
  });

  test("a command adapter that hangs is killed at its timeout and counts as a failed attempt", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigil-hang-"));
    const { id: sid } = await session({
      kind: "command",
      argv: [join(FIXTURES, "adapter-recorder.sh"), dir, "30"],
      timeoutSeconds: 1,
    });
    await endsAtOnce(sid);
    const view = await waitFor(async () => {
      const v = await daemon.monitor(sid, "mon-1");
      return v.delivery?.lastError ? v : null;
    });
    expect(view.delivery.lastError).toBe("the command ran over 1s and was killed");
    expect(view.delivery.attempts).toBeGreaterThanOrEqual(1);
    await daemon.api("DELETE", `/api/sessions/${sid}`);
  });

  test("kill -9 during a delivery: after restart the wake needs review and is not run again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigil-crash-"));
    const { id: sid } = await session({
      kind: "command",
      argv: [join(FIXTURES, "adapter-recorder.sh"), dir, "1"],
      timeoutSeconds: 2,
    });
    await endsAtOnce(sid);
    await waitFor(() => existsSync(join(dir, "runs")), { what: "the delivery to start" });
    await daemon.kill9();
    await daemon.spawn();
    const review = await daemon.waitForState(sid, "mon-1", ["needs_review"]);
    expect(review.delivery.lastError).toMatch(/^delivery interrupted: the daemon stopped while delivering/);
    await waitFor(() => existsSync(join(dir, "stdin-1")));
    expect(readFileSync(join(dir, "runs"), "utf8").trim().split("\n")).toHaveLength(1);

    // A person decides it is safe and sends it again, on purpose.
    const retried = await daemon.api("POST", `/api/sessions/${sid}/wakes/${review.delivery.wakeId}/retry`);
    expect(retried.status).toBe(200);
    await daemon.waitForState(sid, "mon-1", ["finished"]);
    expect(readFileSync(join(dir, "runs"), "utf8").trim().split("\n")).toHaveLength(2);
    const again = await daemon.api("POST", `/api/sessions/${sid}/wakes/${review.delivery.wakeId}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("is delivered");
  });
});

describe("inbox claims and the turn queue", () => {
  test("a long-poll claim answers as soon as a monitor ends, and the wake is taken once", async () => {
    const { id: sid } = await session();
    const claim = daemon.api("POST", `/api/sessions/${sid}/wakes/claim?wait=60`);
    await endsAtOnce(sid);
    const reply = await claim;
    // Answered by the ending (a claim that ran out its wait answers with no wakes).
    expect(reply.body.wakes).toHaveLength(1);
    expect(reply.body.wakes[0]).toMatchObject({ state: "delivered", deliveredVia: "inbox claim", monitors: ["mon-1"] });
    expect((await daemon.monitor(sid, "mon-1")).state).toBe("finished");
    expect((await daemon.api("POST", `/api/sessions/${sid}/wakes/claim?wait=0`)).body.wakes).toEqual([]);
  });

  test("wakes wait behind a declared busy turn and then go out together as one turn", async () => {
    const { id: sid } = await session();
    await turn(sid, "busy");
    await endsAtOnce(sid, "a");
    // Wakes go out in the order the monitors ended: let the first end before arming the second.
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    await endsAtOnce(sid, "b");
    await daemon.waitForState(sid, "mon-2", ["ready"]);
    expect((await daemon.api("POST", `/api/sessions/${sid}/wakes/claim?wait=0`)).body.wakes).toEqual([]);
    const claim = daemon.api("POST", `/api/sessions/${sid}/wakes/claim?wait=60`);
    await turn(sid, "idle");
    const taken = (await claim).body.wakes;
    expect(taken.map((w: any) => w.monitors[0])).toEqual(["mon-1", "mon-2"]);
    expect(new Set(taken.map((w: any) => w.turn)).size).toBe(1);
  });

  test("vigil inbox --wait prints the wake text; --all shows delivery states", async () => {
    const { id: sid } = await session();
    const waiting = daemon.cli(["inbox", "--session", sid, "--wait", "60"]);
    await endsAtOnce(sid, "cli-wake");
    const result = await waiting;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toContain('mon-1 "cli-wake" (command wait)');
    const all = await daemon.cli(["inbox", "--session", sid, "--all"]);
    expect(String(all.stdout)).toMatch(/── wake-\d+ · delivered · via inbox claim · mon-1/);
    const none = await daemon.cli(["inbox", "--session", sid]);
    expect(String(none.stdout).trim()).toBe(`no new wakes for session ${sid}`);
  });

  test("cancelling a monitor cancels its ready wake; a delivery in flight cannot be cancelled", async () => {
    const { id: sid } = await session();
    await turn(sid, "busy");
    await endsAtOnce(sid);
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    const cancelled = await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "cancel" });
    expect(cancelled.body).toMatchObject({ state: "cancelled", delivery: { state: "cancelled" } });
    await turn(sid, "idle");
    expect((await daemon.api("POST", `/api/sessions/${sid}/wakes/claim?wait=0`)).body.wakes).toEqual([]);

    const hanging = await receiver([], { hang: true });
    await daemon.api("PATCH", `/api/sessions/${sid}`, { adapter: { kind: "webhook", url: hanging.url } });
    await endsAtOnce(sid, "in flight");
    await daemon.waitForState(sid, "mon-2", ["continuing"]);
    const refused = await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-2/control`, { action: "cancel" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(
      "Cannot cancel mon-2: its wake is being delivered, and a delivery already started cannot be undone",
    );
    await daemon.api("DELETE", `/api/sessions/${sid}`);
    await hanging.close();
  });
});

describe("adapter configuration", () => {
  test.each([
    [{ kind: "command", argv: [] }, "adapter.argv: Expected argv with a program"],
    [
      { kind: "command", argv: ["/bin/echo", "{nonsense}"] },
      "Expected placeholders {session}, {wake_id}, {wake_ids}, {turn}, got {nonsense}",
    ],
    [{ kind: "command", argv: ["{session}"] }, "Expected a program path without placeholders"],
    [{ kind: "webhook", url: "ftp://example.com/x" }, "adapter.url: Expected an absolute http(s) URL"],
    [
      { kind: "webhook", url: "http://127.0.0.1:9/x", headers: { Authorization: "Bearer ${secret:NOT_THERE}" } },
      "Vault key NOT_THERE is not set",
    ],
    [{ kind: "carrier-pigeon" }, "adapter.kind"],
  ])("%j is refused with a clear 400 and the session keeps its adapter", async (adapter, message) => {
    const { id: sid } = await session();
    const reply = await daemon.api("PATCH", `/api/sessions/${sid}`, { adapter });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain(message);
    expect((await daemon.api("GET", `/api/sessions/${sid}`)).body.adapter).toEqual({ kind: "inbox" });
  });
});
