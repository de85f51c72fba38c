/**
 * Issue 25, findings 1 and 3: same-user clients reach the daemon only over the owner-only Unix
 * socket. A stale daemon.json whose port another user took hands them nothing (no token, no
 * secret); SIGHUP stops the daemon cleanly; TCP carries only the public routes unless tcpApi opts
 * in; idle sockets on TCP lock no one out; a daemon that closes or never answers makes
 * `vigil signal` keep the signal in the spool (and say so) instead of losing it.
 * Design: docs/design.md §8.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await daemon?.dispose();
  daemon = undefined;
});

/** A waitpoint armed over the socket: its id and one-time secret. */
async function armed(on: TestDaemon): Promise<{ sid: string; id: string; secret: string }> {
  const sid = await on.newSession("wp");
  const reply = await on.api("POST", `/api/sessions/${sid}/waitpoints`, {
    label: "job",
    intent: "look at the result",
    max_signals: 24,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { sid, id: reply.body.id, secret: reply.body.secret };
}

const signalsOf = async (on: TestDaemon, w: { sid: string; id: string }) =>
  (await on.api("GET", `/api/sessions/${w.sid}/waitpoints/${w.id}`)).body.signals as unknown[];

describe("a stale daemon.json and a squatted port", () => {
  test("no client sends the token or a waitpoint secret to whoever holds the port now", async () => {
    daemon = await TestDaemon.start();
    const w = await armed(daemon);
    const port = Number(new URL(daemon.url).port);
    await daemon.kill9();
    expect(existsSync(join(daemon.home, "daemon.json"))).toBe(true);
    // Another user's server on the freed port: answers /healthz like a daemon and keeps every request.
    const seen: string[] = [];
    const squatter: Server = createHttpServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on("end", () => {
        seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(req.url === "/healthz" ? '{"ok":true}' : "{}");
      });
    });
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    closers.push(() => squatter.close());

    const status = await daemon.cli(["status"]);
    const list = await daemon.cli(["ls"]);
    expect(list.exitCode).toBe(1);
    expect(String(list.stderr)).toContain("The Vigil daemon is not running");
    const signal = await execSignal(daemon, ["signal", "--id", w.id, "--status", "ok"], {
      VIGIL_SIGNAL_SECRET: w.secret,
    });
    expect(signal.exitCode).toBe(0);
    expect(String(signal.stdout)).toContain("spooled to");
    const everything = seen.join("\n");
    expect(everything).not.toContain(daemon.token);
    expect(everything).not.toContain(w.secret);
    expect(seen.filter((line) => !line.startsWith("GET /healthz"))).toEqual([]);
    expect(String(status.stdout) + String(status.stderr)).not.toContain(daemon.token);

    // The owner's daemon comes back (on another port): the spooled signal is heard, once.
    squatter.close();
    await daemon.spawn();
    await waitFor(async () => (await signalsOf(daemon as TestDaemon, w)).length === 1, { what: "the spooled signal" });
  });
});

/** `vigil signal` as a job runs it, with the job's environment. */
function execSignal(on: TestDaemon, args: string[], env: Record<string, string> = {}) {
  return on.cli(args, { env });
}

describe("the daemon's sockets", () => {
  test("api.sock is the owner's alone (0600 in the 0700 home) and SIGHUP stops the daemon cleanly", async () => {
    daemon = await TestDaemon.start();
    const socket = statSync(daemon.socket);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(daemon.home).mode & 0o777).toBe(0o700);
    const child = daemon.child;
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
    child?.kill("SIGHUP");
    expect(await exited).toBe(0);
    expect(existsSync(join(daemon.home, "daemon.json"))).toBe(false);
    expect(existsSync(daemon.socket)).toBe(false);
  });

  test("TCP serves /healthz and /webhook/signal only; the rest needs tcpApi and the token", async () => {
    daemon = await TestDaemon.start();
    const auth = { authorization: `Bearer ${daemon.token}` };
    expect((await daemon.tcp("GET", "/healthz")).status).toBe(200);
    const refused = await daemon.tcp("GET", "/api/status", undefined, auth);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("api.sock");
    expect((await daemon.api("GET", "/api/status")).status).toBe(200);
    await daemon.dispose();

    daemon = await TestDaemon.start({ env: { VIGIL_TCP_API: "1" } });
    expect(
      (await daemon.tcp("GET", "/api/status", undefined, { authorization: `Bearer ${daemon.token}` })).status,
    ).toBe(200);
    expect((await daemon.tcp("GET", "/api/status")).status).toBe(401);
  });

  test("idle sockets holding every TCP connection lock out no client of the owner", async () => {
    daemon = await TestDaemon.start({ env: { VIGIL_HTTP_MAX_CONNECTIONS: "8" } });
    const w = await armed(daemon);
    const port = Number(new URL(daemon.url).port);
    const idle: Socket[] = [];
    closers.push(() => {
      for (const socket of idle) socket.destroy();
    });
    for (let i = 0; i < 16; i++) {
      const socket = connect(port, "127.0.0.1");
      socket.on("error", () => {});
      idle.push(socket);
    }
    await Promise.all(idle.map((s) => new Promise((resolve) => s.once("connect", resolve).once("close", resolve))));
    const status = await daemon.cli(["status"]);
    expect(status.exitCode, String(status.stderr)).toBe(0);
    const signal = await daemon.cli(["signal", "--id", w.id, "--message", "through the socket"]);
    expect(signal.exitCode, String(signal.stderr)).toBe(0);
    expect(String(signal.stdout)).toBe(`accepted: ${w.id} ok`);
    expect(await signalsOf(daemon, w)).toHaveLength(1);
    // Written to the spool first, removed after the 202: nothing is left behind.
    expect(readdirSync(join(daemon.home, "tmp", "signals")).filter((name) => name.endsWith(".json"))).toEqual([]);
  });
});

describe("a daemon that closes the connection or never answers", () => {
  /** Stands in for the daemon on its socket: `mode` closes each connection at once, or holds it. */
  async function impostor(home: string, mode: "close" | "hang"): Promise<NetServer> {
    const held: Socket[] = [];
    const server = createNetServer((socket) => {
      if (mode === "close") socket.destroy();
      else held.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(join(home, "api.sock"), resolve));
    closers.push(() => {
      for (const socket of held) socket.destroy();
      server.close();
    });
    return server;
  }

  test.each(["close", "hang"] as const)(
    "%s: vigil signal keeps the signal in the spool, says so, and it is heard once the daemon runs",
    async (mode) => {
      daemon = await TestDaemon.start({ env: { VIGIL_CLIENT_TIMEOUT_MS: "500" } });
      const w = await armed(daemon);
      await daemon.stop();
      const server = await impostor(daemon.home, mode);
      const signal = await daemon.cli(["signal", "--id", w.id, "--status", "fail", "--message", "exit=3"]);
      expect(signal.exitCode, String(signal.stderr)).toBe(0);
      expect(String(signal.stdout)).toMatch(
        mode === "close"
          ? /closed the connection without answering\); spooled to .*\.json/
          : /did not answer within 0\.5 s\); spooled to .*\.json/,
      );
      const spooled = readdirSync(join(daemon.home, "tmp", "signals")).filter((name) => name.endsWith(".json"));
      expect(spooled).toHaveLength(1);
      expect(JSON.parse(readFileSync(join(daemon.home, "tmp", "signals", spooled[0] as string), "utf8"))).toEqual({
        id: w.id,
        status: "fail",
        message: "exit=3",
      });
      // Any other command ends too, with a line that says what happened.
      const list = await daemon.cli(["sessions"]);
      expect(list.exitCode).toBe(1);
      expect(String(list.stderr)).toMatch(/did not answer|closed the connection/);

      const closed = new Promise((resolve) => server.once("close", resolve));
      for (const close of closers.splice(0)) close();
      await closed;
      rmSync(join(daemon.home, "api.sock"), { force: true });
      await daemon.spawn();
      await waitFor(async () => (await signalsOf(daemon as TestDaemon, w)).length === 1, {
        what: "the spooled signal",
      });
    },
  );
});
