/**
 * Needs-you notifications end to end (issue #40): a real daemon, channels added with the real CLI,
 * receivers that check the formats their services document (ntfy, Slack, Discord, a Standard
 * Webhooks receiver), a real SMTP server (`smtp-server`: STARTTLS with a certificate made here,
 * AUTH) and a `notify-send` on the daemon's PATH. A monitor whose checks fail is the Needs-you entry.
 */
import { once } from "node:events";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { verifyWebhook } from "../../native-host/src/delivery/signature.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { armFailingMonitor } from "../helpers/failing-monitor.js";

const NTFY_TOKEN = "tk_ntfy-9f8e7d6c5b4a";
const SMTP_PASSWORD = "smtp-pass-71c3a9e2";
/** The Slack webhook URL's path is its password. */
const SLACK_PATH = "/slack/T0001/B0002/xoxSlackPathSecret77";

interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let work: string;
let http: Server;
let base = "";
const hits: Hit[] = [];
/** Paths answered 500 (a channel that is down). */
const down = new Set<string>(["/down"]);
let smtp: SMTPServer;
let smtpPort = 0;
const mails: Array<{ raw: string; user: unknown; secure: boolean }> = [];
let daemon: TestDaemon;
/** Everything the CLI printed in this file (checked for secrets at the end). */
const printed: string[] = [];

const hitsTo = (path: string) => hits.filter((hit) => hit.path === path);

async function vigil(args: string[], input?: string) {
  const result = await daemon.cli(args, input === undefined ? {} : { input });
  printed.push(String(result.stdout), String(result.stderr));
  return result;
}

/** Quoted-printable text as it reads. */
const unQuote = (text: string) =>
  Buffer.from(
    text
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "vigil-notify-"));
  // The SMTP server's certificate, made for this run; the daemon trusts it through NODE_EXTRA_CA_CERTS.
  await execa("openssl", [
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"],
    ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ...["-keyout", join(work, "key.pem"), "-out", join(work, "cert.pem")],
  ]);
  smtp = new SMTPServer({
    key: readFileSync(join(work, "key.pem")),
    cert: readFileSync(join(work, "cert.pem")),
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "me" && auth.password === SMTP_PASSWORD) callback(null, { user: "me" });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({ raw: Buffer.concat(chunks).toString("utf8"), user: session.user, secure: session.secure });
        callback();
      });
    },
  });
  smtp.listen(0, "127.0.0.1");
  await once(smtp.server, "listening");
  smtpPort = (smtp.server.address() as AddressInfo).port;

  http = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const path = req.url ?? "";
      hits.push({ path, headers: req.headers, body });
      const refused = down.has(path);
      res.writeHead(refused ? 500 : 200, { "content-type": "application/json" });
      res.end(refused ? "upstream is down" : "{}");
    });
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  // notify-send on the daemon's PATH writes what it was given.
  const bin = join(work, "bin");
  mkdirSync(bin);
  mkdirSync(join(work, "desktop"));
  writeFileSync(join(bin, "notify-send"), `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(work, "desktop")}/$$.txt"\n`);
  chmodSync(join(bin, "notify-send"), 0o755);
  daemon = await TestDaemon.start({
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      NODE_EXTRA_CA_CERTS: join(work, "cert.pem"),
      VIGIL_NOTIFY_PASS_MS: "200",
      VIGIL_NOTIFY_GROUP_MS: "300",
      VIGIL_NOTIFY_RATE_MS: "60000",
      VIGIL_NOTIFY_RETRY_BASE_MS: "100",
    },
  });
  for (const id of ["alpha", "beta", "gamma"])
    expect((await daemon.api("POST", "/api/sessions", { id })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await daemon?.dispose();
  http?.close();
  smtp?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("each channel", () => {
  let signingSecret = "";

  test("is added with one command each; secrets are kept in the vault", async () => {
    expect((await vigil(["vault", "set", "NTFY_TOKEN"], `${NTFY_TOKEN}\n`)).exitCode).toBe(0);
    expect((await vigil(["vault", "set", "SMTP_PASSWORD"], `${SMTP_PASSWORD}\n`)).exitCode).toBe(0);
    const adds = [
      ["ntfy", `${base}/ntfy/alerts`, "--token-secret", "NTFY_TOKEN", "--name", "phone"],
      ["slack", `${base}${SLACK_PATH}`],
      ["discord", `${base}/discord/123/abc`],
      ["webhook", `${base}/hook`],
      ["desktop"],
      ...[["email", "--smtp", `smtp://127.0.0.1:${smtpPort}`, "--from", "vigil@test.local", "--to", "me@test.local"]],
    ];
    for (const args of adds) {
      const extra = args[0] === "email" ? ["--user", "me", "--password-secret", "SMTP_PASSWORD", "--starttls"] : [];
      const result = await vigil(["notify", "add", ...args, ...extra, "--session", "alpha"]);
      expect(result.exitCode, String(result.stderr)).toBe(0);
      if (args[0] === "webhook") signingSecret = /whsec_[A-Za-z0-9+/=]+/.exec(String(result.stdout))?.[0] ?? "";
    }
    expect(signingSecret).toMatch(/^whsec_/);
    const ls = await vigil(["notify", "ls", "--json"]);
    const channels = JSON.parse(String(ls.stdout)) as Array<{ name: string; target: string }>;
    expect(channels.map((c) => c.name).sort()).toEqual(["desktop", "discord", "email", "phone", "slack", "webhook"]);
    expect(channels.find((c) => c.name === "slack")?.target).toBe(`${base} (path hidden)`);
  });

  test("receives the entry with its reason, in the format its service documents", async () => {
    await armFailingMonitor(daemon, "alpha", "Metrics endpoint");
    await waitFor(
      () =>
        hitsTo("/ntfy/alerts").length > 0 &&
        hitsTo(SLACK_PATH).length > 0 &&
        hitsTo("/discord/123/abc").length > 0 &&
        hitsTo("/hook").length > 0 &&
        mails.length > 0 &&
        readdirSync(join(work, "desktop")).length > 0,
      { what: "a message on every channel", timeoutMs: 30_000 },
    );
    const reason = /GET http:\/\/127\.0\.0\.1:1\/health failed/;
    // ntfy: the body is the text, Title/Priority/Tags headers, the token as a bearer.
    const [ntfy] = hitsTo("/ntfy/alerts") as [Hit];
    expect(ntfy.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(ntfy.headers.title).toMatch(/^(Vigil: checks failing|=\?UTF-8\?B\?)/);
    expect(ntfy.headers.priority).toBe("default");
    expect(ntfy.headers.tags).toBe("warning");
    expect(ntfy.body.split("\n")[0]).toMatch(reason);
    expect(ntfy.body).toContain("session: alpha");
    expect(ntfy.body).toMatch(/monitor: Metrics endpoint \(mon-1\)/);
    expect(ntfy.body).toContain("act: vigil show mon-1 --session alpha");
    // Slack: JSON with text and blocks.
    const slack = JSON.parse((hitsTo(SLACK_PATH)[0] as Hit).body);
    expect(slack.text).toMatch(reason);
    expect(slack.blocks.map((b: { type: string }) => b.type)).toEqual(["header", "section"]);
    expect(slack.blocks[1].text.type).toBe("mrkdwn");
    // Discord: content of at most 2,000 characters, no mentions.
    const discord = JSON.parse((hitsTo("/discord/123/abc")[0] as Hit).body);
    expect(discord.content.length).toBeLessThanOrEqual(2000);
    expect(discord.content).toMatch(reason);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    // Webhook: Standard Webhooks signature over the body, type vigil.attention.
    const hook = hitsTo("/hook")[0] as Hit;
    const signed = verifyWebhook(
      signingSecret,
      {
        id: String(hook.headers["webhook-id"]),
        timestamp: String(hook.headers["webhook-timestamp"]),
        signature: String(hook.headers["webhook-signature"]),
      },
      hook.body,
    );
    expect(signed).toBe(true);
    const payload = JSON.parse(hook.body);
    expect(payload).toMatchObject({ type: "vigil.attention", id: hook.headers["webhook-id"] });
    expect(payload.entries[0]).toMatchObject({ reason: "monitor_error", sessionId: "alpha", monitorId: "mon-1" });
    // E-mail: over STARTTLS, logged in, the reason in the text.
    const [mail] = mails as [(typeof mails)[0]];
    expect(mail.secure).toBe(true);
    expect(mail.user).toBe("me");
    expect(mail.raw).toMatch(/^To: me@test\.local/m);
    expect(unQuote(mail.raw)).toMatch(reason);
    // Desktop: notify-send was given a title and the text as arguments.
    const [file] = readdirSync(join(work, "desktop")) as [string];
    const argv = readFileSync(join(work, "desktop", file), "utf8");
    expect(argv).toMatch(/^--app-name=Vigil\n--urgency=normal\n--\nVigil: checks failing · Metrics endpoint\n/);
    expect(argv).toMatch(reason);
    // Each channel got one message for the one entry.
    expect(hitsTo("/ntfy/alerts")).toHaveLength(1);
    expect(mails).toHaveLength(1);
  });

  test("vigil notify test sends now and says what came of it", async () => {
    const before = hitsTo("/ntfy/alerts").length;
    const result = await vigil(["notify", "test", "phone"]);
    expect(result.exitCode, String(result.stderr)).toBe(0);
    expect(String(result.stdout)).toBe("phone: sent");
    expect(hitsTo("/ntfy/alerts")).toHaveLength(before + 1);
    expect(hitsTo("/ntfy/alerts").at(-1)?.headers.title).toBe("Vigil: test message");
  });
});

test("bad input is refused saying what was expected, and nothing is stored", async () => {
  const clear = await vigil(["notify", "add", "ntfy", "http://example.org/topic", "--name", "clear"]);
  expect(clear.exitCode).not.toBe(0);
  expect(String(clear.stderr)).toContain(
    "Expected https://… (http:// only to this machine), got http://example.org: a notification is never sent in clear text",
  );
  const missing = await vigil([
    "notify",
    "add",
    "ntfy",
    `${base}/x`,
    "--name",
    "nokey",
    "--token-secret",
    "NO_SUCH_KEY",
  ]);
  expect(String(missing.stderr)).toContain(
    "Expected the vault to hold NO_SUCH_KEY (vigil vault set NO_SUCH_KEY), got no such key",
  );
  const kind = await vigil(["notify", "add", "pager", "https://example.org"]);
  expect(kind.exitCode).toBe(2);
  expect(String(kind.stderr)).toContain("Expected a kind (ntfy, slack, discord, webhook, desktop, email), got pager");
  const taken = await vigil(["notify", "add", "desktop"]);
  expect(String(taken.stderr)).toContain("Expected a new channel name, got desktop (taken): pass --name");
  const plain = await vigil([
    ...["notify", "add", "email", "--smtp", "smtp://mail.example.org:25", "--from", "a@b.c", "--to", "d@e.f"],
    ...["--user", "me", "--password-secret", "SMTP_PASSWORD", "--plain", "--name", "plain"],
  ]);
  expect(String(plain.stderr)).toContain("a password is never sent in clear text");
  const names = ((await daemon.api("GET", "/api/notify")).body as Array<{ name: string }>).map((c) => c.name);
  expect(names).not.toContain("clear");
  expect(names).not.toContain("nokey");
  expect(names).not.toContain("plain");
  const keys = ((await daemon.api("GET", "/api/vault")).body as Array<{ key: string }>).map((entry) => entry.key);
  expect(keys).not.toContain("NOTIFY_CLEAR_URL");
  expect(keys).not.toContain("NOTIFY_NOKEY_URL");
});

test("a paused channel is sent nothing; resumed it is; removed it is gone with its queue", async () => {
  expect(
    (await vigil(["notify", "add", "discord", `${base}/paused`, "--name", "quiet", "--session", "delta"])).exitCode,
  ).toBe(0);
  expect(String((await vigil(["notify", "pause", "quiet"])).stdout)).toBe("quiet paused");
  expect((await daemon.api("POST", "/api/sessions", { id: "delta" })).status).toBe(201);
  await armFailingMonitor(daemon, "delta", "Quiet export");
  await waitFor(
    async () => {
      const page = (await daemon.api("GET", "/api/panel?limit=1")).body;
      return page.attention.some((item: { sessionId?: string }) => item.sessionId === "delta");
    },
    { what: "delta's entry in Needs you" },
  );
  const quiet = async () =>
    ((await daemon.api("GET", "/api/notify")).body as Array<{ name: string; pending: number }>).find(
      (c) => c.name === "quiet",
    );
  expect((await quiet())?.pending).toBe(0);
  expect(hitsTo("/paused")).toEqual([]);
  expect(String((await vigil(["notify", "resume", "quiet"])).stdout)).toBe("quiet resumed");
  await waitFor(() => hitsTo("/paused").length === 1, { what: "the message once resumed" });
  expect(String((await vigil(["notify", "rm", "quiet"])).stdout)).toBe("removed quiet");
  expect(await quiet()).toBeUndefined();
  expect((await vigil(["notify", "rm", "quiet"])).exitCode).not.toBe(0);
});

test("a channel answering 500 is retried, shown failing in notify ls and status, logged once, and wakes go on", async () => {
  expect(
    (await vigil(["notify", "add", "webhook", `${base}/down`, "--name", "down", "--session", "beta"])).exitCode,
  ).toBe(0);
  await armFailingMonitor(daemon, "beta", "Flaky API");
  await waitFor(() => hitsTo("/down").length >= 3, { what: "three attempts at the down channel", timeoutMs: 30_000 });
  const ls = await vigil(["notify", "ls"]);
  expect(String(ls.stdout)).toMatch(/^down · webhook · http:\/\/127\.0\.0\.1:\d+ \(path hidden\) · FAILING$/m);
  expect(String(ls.stdout)).toMatch(
    /last error .*: POST http:\/\/127\.0\.0\.1:\d+ \(path hidden\) answered 500: upstream is down/,
  );
  const status = await vigil(["status"]);
  expect(String(status.stdout)).toMatch(/NOTIFY CHANNEL FAILING: down: POST .* answered 500/);
  // A wake is delivered meanwhile: a met monitor's wake is ready for the inbox session.
  const met = await daemon.api("POST", "/api/sessions/beta/monitors", {
    name: "Deploy done",
    source: { kind: "command", command: "true" },
    intervalSeconds: 5,
  });
  expect(met.status).toBe(201);
  await waitFor(async () => (await daemon.api("GET", "/api/sessions/beta/wakes/ready")).body.ready > 0, {
    what: "the wake ready while the channel fails",
  });
  const log = readFileSync(join(daemon.home, "vigil.log"), "utf8");
  expect(log.match(/notify channel down failing/g)).toHaveLength(1);
});

test("kill -9 with a message unsent: the next daemon sends it, once", async () => {
  down.add("/later");
  expect(
    (await vigil(["notify", "add", "discord", `${base}/later`, "--name", "later", "--session", "gamma"])).exitCode,
  ).toBe(0);
  await armFailingMonitor(daemon, "gamma", "Nightly export");
  await waitFor(() => hitsTo("/later").length >= 1, { what: "a refused attempt", timeoutMs: 30_000 });
  await daemon.kill9();
  down.delete("/later");
  const tried = hitsTo("/later").length;
  await daemon.spawn();
  await waitFor(
    async () => {
      const channels = (await daemon.api("GET", "/api/notify")).body as Array<{
        name: string;
        lastSentAt: unknown;
        pending: number;
      }>;
      const later = channels.find((c) => c.name === "later");
      return later?.lastSentAt && later.pending === 0;
    },
    { what: "the message sent after the restart", timeoutMs: 30_000 },
  );
  expect(hitsTo("/later")).toHaveLength(tried + 1);
  expect(JSON.parse((hitsTo("/later").at(-1) as Hit).body).content).toContain("Nightly export");
});

test("the vault's token and password, and a URL kept as a secret, are in no output, log, stored row or API answer", async () => {
  const answers = await Promise.all(
    ["/api/notify", "/api/status", "/api/panel", "/api/vault"].map(async (path) =>
      JSON.stringify((await daemon.api("GET", path)).body),
    ),
  );
  const log = readFileSync(join(daemon.home, "vigil.log"), "utf8");
  const stored = await daemon.storedText();
  for (const secret of [NTFY_TOKEN, SMTP_PASSWORD, SLACK_PATH.slice(1)]) {
    for (const text of [...printed, ...answers, log, stored, daemon.stderr]) expect(text).not.toContain(secret);
  }
});
