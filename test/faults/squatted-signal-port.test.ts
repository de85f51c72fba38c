/**
 * Issue #37 lower 9: after kill -9 of a daemon on the default port, another user can bind it, and a
 * CI job's signal goes there. `vigil signal --url` never sends the secret (a proof instead) and
 * refuses an answer the daemon did not sign; a captured proof cannot be altered or counted twice;
 * the pasted curl line fails loudly on a refusal (--fail-with-body) — though it cannot tell who
 * answered. Design: docs/design.md §5, §8.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

let daemon: TestDaemon;
let squatter: Server;
/** What the squatter received: each request's headers and body. */
const received: Array<{ headers: string; body: string }> = [];
let squatterUrl = "";

beforeAll(async () => {
  daemon = await TestDaemon.start();
  // Another user's server on a port a job was told: it keeps what it gets and says "accepted".
  squatter = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      received.push({ headers: JSON.stringify(req.headers), body });
      res.writeHead(202, { "content-type": "application/json" });
      res.end('{"accepted":true}');
    });
  });
  await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
  squatterUrl = `http://127.0.0.1:${(squatter.address() as AddressInfo).port}`;
});
afterAll(async () => {
  squatter?.close();
  squatter?.closeAllConnections();
  await daemon?.dispose();
});

async function armed(args: Record<string, unknown> = {}) {
  const sid = await daemon.newSession("sq");
  const reply = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, { label: "ci", intent: "look", ...args });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  const secretFile = join(daemon.home, `secret-${reply.body.id}`);
  writeFileSync(secretFile, `${reply.body.secret}\n`, { mode: 0o600 });
  return {
    sid,
    id: reply.body.id as string,
    secret: reply.body.secret as string,
    secretFile,
    how: reply.body.how_to_signal,
  };
}

const post = (body: string) =>
  fetch(`${daemon.url}/webhook/signal`, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as any }),
  );

describe("a signal sent to whoever holds the port", () => {
  test("vigil signal --url refuses the squatter's unsigned 'accepted', which never saw the secret; the daemon's answer verifies", async () => {
    const w = await armed({ max_signals: 2 });
    const args = ["signal", "--id", w.id, "--secret-file", w.secretFile, "--message", "build 7 done"];
    const fooled = await daemon.cli([...args, "--url", squatterUrl]);
    expect(fooled.exitCode).toBe(1);
    expect(fooled.stderr).toContain(
      `the server at ${squatterUrl} could not prove it is the Vigil daemon holding this waitpoint: the signal was not delivered`,
    );
    expect(received.length).toBeGreaterThan(0);
    for (const request of received) expect(`${request.headers} ${request.body}`).not.toContain(w.secret);
    const real = await daemon.cli([...args, "--url", daemon.url]);
    expect(real.exitCode, String(real.stderr)).toBe(0);
    expect(real.stdout).toContain(`accepted: ${w.id} ok`);
    const view = (await daemon.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body;
    expect(view.signals.map((s: { message: string }) => s.message)).toEqual(["build 7 done"]);
  });

  test("what the squatter captured, replayed to the daemon: altered it is refused, and as sent it counts once", async () => {
    const w = await armed({ max_signals: 5 });
    const before = received.length;
    await daemon.cli([
      "signal",
      "--id",
      w.id,
      "--secret-file",
      w.secretFile,
      "--status",
      "progress",
      "--url",
      squatterUrl,
    ]);
    const captured = received[before]?.body as string;
    expect(JSON.parse(captured)).toMatchObject({ id: w.id, status: "progress" });
    expect(JSON.parse(captured).secret).toBeUndefined();
    const altered = await post(captured.replace('"status":"progress"', '"status":"fail"'));
    expect(altered.status).toBe(401);
    expect(altered.body.error.message).toContain("Wrong proof");
    const first = await post(captured);
    const again = await post(captured);
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.duplicate).toBe(true);
    const view = (await daemon.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body;
    expect(view.signals).toHaveLength(1);
  });

  test("a body with both a secret and a proof, or half a proof, is a 400 saying what was expected", async () => {
    const w = await armed();
    const both = await post(
      JSON.stringify({ id: w.id, secret: w.secret, nonce: "a".repeat(32), proof: "b".repeat(64) }),
    );
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain("Expected either secret, or nonce and proof; got secret, nonce, proof");
    const half = await post(JSON.stringify({ id: w.id, nonce: "a".repeat(32) }));
    expect(half.status).toBe(400);
    expect(half.body.error.message).toContain("got nonce");
  });

  test("the pasted curl line has --fail-with-body: a refused signal fails the job's step", async () => {
    const w = await armed();
    expect(w.how.curl).toContain("curl -sS --fail-with-body ");
    const wrong = join(daemon.home, "wrong-secret");
    writeFileSync(wrong, `${"0".repeat(48)}\n`, { mode: 0o600 });
    const refused = await execa("sh", ["-c", w.how.curl.replace("SECRET_FILE", wrong)], { reject: false });
    expect(refused.exitCode).toBe(22);
    expect(refused.stdout).toContain("wrong_secret");
    const ok = await execa("sh", ["-c", w.how.curl.replace("SECRET_FILE", w.secretFile)], { reject: false });
    expect(ok.exitCode, ok.stderr).toBe(0);
  });
});
