import { readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

const SECRET = "s3cr3t-VALUE-9f8e7d";
let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

test("a vault secret reaches the command and never appears in any stored or returned text", async () => {
  const set = await daemon.cli(["vault", "set", "API_TOKEN"], { input: `${SECRET}\n` });
  expect(set.exitCode, String(set.stderr)).toBe(0);

  const refused = await daemon.api("POST", "/api/sessions", { id: "v" }).then(() =>
    daemon.api("POST", "/api/sessions/v/monitors", {
      source: { kind: "command", command: "echo ${secret:MISSING_KEY}" },
      intervalSeconds: 5,
    }),
  );
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain("Vault key MISSING_KEY is not set");

  const made = await daemon.api("POST", "/api/sessions/v/monitors", {
    name: "uses ${secret:API_TOKEN}",
    source: { kind: "command", command: 'echo "token=${secret:API_TOKEN}"; echo "env=$VIGIL_SECRET_API_TOKEN" >&2' },
    intervalSeconds: 0.2,
    timeoutSeconds: 60,
  });
  expect(made.status).toBe(201);
  expect(made.body.source.command).toContain("${secret:API_TOKEN}");
  const ended = await daemon.waitForState("v", "mon-1", ["ready"]);
  expect(ended.lastEvent).toBe("token=[secret:API_TOKEN]\nenv=[secret:API_TOKEN]");
  await daemon.api("POST", "/api/sessions/v/monitors", {
    source: { kind: "watch", command: "echo watch-${secret:API_TOKEN}; exit 0" },
  });
  await daemon.waitForState("v", "mon-2", ["ready"]);

  // A header that an endpoint reflects back, and a webhook adapter that sends it.
  const reflector = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ youSent: req.headers.authorization, status: "done" }));
  });
  await new Promise<void>((resolve) => reflector.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(reflector.address() as AddressInfo).port}/echo`;
  await daemon.api("POST", "/api/sessions/v/monitors", {
    source: {
      kind: "tool",
      name: "http__get",
      args: { url, headers: { authorization: "Bearer ${secret:API_TOKEN}" } },
      condition: { path: "body.status", operator: "equals", value: "done" },
    },
    intervalSeconds: 10,
  });
  const tool = await daemon.waitForState("v", "mon-3", ["ready", "finished"]);
  expect(tool.lastObservation.body.youSent).toBe("Bearer [secret:API_TOKEN]");
  await daemon.api("PATCH", "/api/sessions/v", {
    adapter: { kind: "webhook", url, headers: { authorization: "Bearer ${secret:API_TOKEN}" } },
  });
  await daemon.api("POST", "/api/sessions/v/monitors", {
    source: { kind: "command", command: "echo after" },
    intervalSeconds: 5,
  });
  await daemon.waitForState("v", "mon-4", ["finished"]);
  reflector.close();

  const returned = JSON.stringify([
    (await daemon.api("GET", "/api/sessions/v/monitors")).body,
    (await daemon.api("GET", "/api/sessions/v/monitors/mon-1/events")).body,
    (await daemon.api("GET", "/api/sessions/v/monitors/mon-2/events")).body,
    (await daemon.api("GET", "/api/sessions/v/wakes")).body,
    (await daemon.api("GET", "/api/vault")).body,
  ]);
  expect(returned).toContain("[secret:API_TOKEN]");
  expect(returned).not.toContain(SECRET);

  const list = await daemon.cli(["vault", "list"]);
  expect(String(list.stdout)).toMatch(/API_TOKEN · set .* · used by .*v\/mon-1 \(start/);
  expect(String(list.stdout)).not.toContain(SECRET);

  // Every stored table but the vault itself, and the log.
  const tables = await daemon.tables(["vault"]);
  expect(Object.keys(tables)).toContain("wakes");
  for (const [table, rows] of Object.entries(tables)) expect(JSON.stringify(rows), table).not.toContain(SECRET);
  expect(readFileSync(join(daemon.home, "vigil.log"), "utf8")).not.toContain(SECRET);
  // The store itself (SQLite's file and WAL, or every PostgreSQL table): values live in vault.json (0600).
  expect(await daemon.storedText()).not.toContain(SECRET);
  expect(statSync(join(daemon.home, "vault.json")).mode & 0o777).toBe(0o600);
  expect(daemon.stderr).not.toContain(SECRET);
});

test("a secret cut in two by the output cap, or written with JSON escapes, is still masked", async () => {
  const value = "cut-SECRET-0a9b8c7d6e";
  await daemon.cli(["vault", "set", "CUT_TOKEN"], { input: `${value}\n` });
  await daemon.api("POST", "/api/sessions", { id: "cut" });
  // The output keeps its last 16,000 characters: this puts the cut 9 characters into the secret.
  await daemon.api("POST", "/api/sessions/cut/monitors", {
    source: { kind: "command", command: "printf '%s' \"${secret:CUT_TOKEN}\"; printf '%15991s' '' | tr ' ' y" },
    intervalSeconds: 5,
  });
  const cut = await daemon.waitForState("cut", "mon-1", ["ready"]);
  expect(cut.lastEvent.slice(0, 20)).toBe("…[secret:CUT_TOKEN]y");
  // JSON that spells the secret's first letter, "c", as \u0063.
  await daemon.api("POST", "/api/sessions/cut/monitors", {
    source: {
      kind: "command",
      command: `printf '{"t":"\\\\u0063%s"}' "$(printf %s \${secret:CUT_TOKEN} | cut -c2-)"`,
    },
    intervalSeconds: 5,
  });
  const escaped = await daemon.waitForState("cut", "mon-2", ["ready"]);
  expect(escaped.lastEvent).toBe('{"t":"[secret:CUT_TOKEN]"}');
  const everything = JSON.stringify([
    (await daemon.api("GET", "/api/sessions/cut/monitors")).body,
    (await daemon.api("GET", "/api/sessions/cut/monitors/mon-1/events")).body,
    (await daemon.api("GET", "/api/sessions/cut/monitors/mon-2/events")).body,
    (await daemon.api("GET", "/api/sessions/cut/wakes")).body,
  ]);
  expect(everything).not.toContain(value.slice(-9));
  expect(everything).not.toContain(value.slice(1));
});
