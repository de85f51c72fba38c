/**
 * The notifier's rules on a real SQLite store and a real local HTTP receiver, with the clock and
 * the Needs-you list in the test's hands: each entry once per channel, grouped, at most one message
 * per channel per rate window (the rest as one digest), nothing for an entry that cleared first,
 * retries with backoff, filters, and a restart that sends what was left once.
 */
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { AttentionItem, AttentionReason } from "../../../shared/schemas/views.js";
import { type Logger, silentLogger } from "../base/log.js";
import { Shield } from "../secrets/shield.js";
import { SqliteEngine } from "../store/engine.js";
import { Store } from "../store/store.js";
import { Notifier, type NotifySettings } from "./notifier.js";

const SETTINGS: NotifySettings = {
  passMs: 60_000,
  groupMs: 1000,
  rateMs: 60_000,
  retry: { maxAttempts: 3, baseMs: 1000, capMs: 10_000 },
  concurrency: 2,
};

let server: Server;
let base = "";
let received: Array<{ path: string; body: { content: string } }> = [];
/** What the receiver answers next (a status per path; 204 by default). */
const answers = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const status = answers.get(req.url ?? "") ?? 204;
      if (status < 300) received.push({ path: req.url ?? "", body: JSON.parse(body) });
      res.writeHead(status);
      res.end(status >= 300 ? "upstream is down" : "");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

let dir: string;
let store: SqliteEngine;
let now: number;
let items: AttentionItem[];
let warnings: string[];
let notifier: Notifier;

const log: Logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };

function entry(monitorId: string, reason: AttentionReason = "monitor_error", sessionId = "s1"): AttentionItem {
  return {
    reason,
    rank: 5,
    sessionId,
    monitorId,
    title: `watch ${monitorId}`,
    headline: "",
    label: "failed",
    primary: null,
    detail: `${monitorId}: connection refused\nmore lines`,
    since: new Date(now).toISOString(),
    actions: ["cancel", "open"],
  };
}

function makeNotifier(hostId = "h_a"): Notifier {
  return new Notifier({
    store,
    log,
    shield: new Shield([["TOKEN", "s3cr3t-value"]]),
    now: () => now,
    hostId,
    team: true,
    attention: async () => items,
    settings: SETTINGS,
  });
}

async function addChannel(name: string, over: { sessions?: string[]; causes?: string[]; hostId?: string | null } = {}) {
  await store.tables.notify.add({
    name,
    kind: "discord",
    config: { url: `${base}/${name}` },
    sessions: over.sessions ?? [],
    causes: over.causes ?? [],
    hostId: over.hostId === undefined ? "h_a" : over.hostId,
    createdAt: now,
  });
}

const messagesTo = (name: string) => received.filter((r) => r.path === `/${name}`).map((r) => r.body.content);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vigil-notifier-"));
  store = new SqliteEngine(Store.open(join(dir, "vigil.db")), { checkScope: true });
  now = 1_000_000;
  items = [];
  received = [];
  warnings = [];
  answers.clear();
  notifier = makeNotifier();
});
afterEach(async () => {
  await notifier.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("one message per entry and channel", () => {
  test("a new entry is sent once, after the group window, its reason first; later passes send nothing", async () => {
    await addChannel("phone");
    items = [entry("mon-1")];
    await notifier.pass();
    expect(messagesTo("phone")).toEqual([]);
    now += SETTINGS.groupMs;
    await notifier.pass();
    const [message] = messagesTo("phone");
    expect(message?.split("\n")[1]).toBe("mon-1: connection refused");
    expect(message).toContain("session: s1");
    expect(message).toContain("monitor: watch mon-1 (mon-1)");
    expect(message).toContain("act: vigil show mon-1 --session s1");
    for (let i = 0; i < 3; i++) {
      now += SETTINGS.rateMs;
      await notifier.pass();
    }
    expect(messagesTo("phone")).toHaveLength(1);
  });

  test("an entry that clears before it was sent is never sent; one that comes back after being sent is not sent again", async () => {
    await addChannel("phone");
    items = [entry("mon-1")];
    await notifier.pass();
    items = [];
    now += SETTINGS.groupMs;
    await notifier.pass();
    items = [entry("mon-2")];
    await notifier.pass();
    now += SETTINGS.groupMs;
    await notifier.pass();
    expect(messagesTo("phone")).toHaveLength(1);
    expect(messagesTo("phone")[0]).toContain("mon-2");
    expect(messagesTo("phone")[0]).not.toContain("mon-1");
    items = [];
    await notifier.pass();
    items = [entry("mon-2")];
    now += 2 * SETTINGS.rateMs;
    await notifier.pass();
    expect(messagesTo("phone")).toHaveLength(1);
  });
});

describe("bursts", () => {
  test("20 entries at once: one message per channel; what comes within the rate goes as one digest after it", async () => {
    await addChannel("phone");
    await addChannel("chat");
    items = Array.from({ length: 20 }, (_, i) => entry(`mon-${i + 1}`));
    await notifier.pass();
    now += SETTINGS.groupMs;
    await notifier.pass();
    for (const name of ["phone", "chat"]) {
      expect(messagesTo(name)).toHaveLength(1);
      expect(messagesTo(name)[0]).toMatch(/^\*\*Vigil: 20 need you\*\*\n20 need you: checks failing/);
      expect(messagesTo(name)[0]).toContain("… and 5 more entries");
    }
    // Three more arise over the next half minute: none goes out before the minute is over.
    for (let i = 21; i <= 23; i++) {
      items = [...items, entry(`mon-${i}`)];
      now += 10_000;
      await notifier.pass();
    }
    expect(messagesTo("phone")).toHaveLength(1);
    now += SETTINGS.rateMs;
    await notifier.pass();
    expect(messagesTo("phone")).toHaveLength(2);
    expect(messagesTo("phone")[1]).toContain("3 need you");
    expect(messagesTo("chat")).toHaveLength(2);
  });
});

describe("failures", () => {
  test("a channel answering 500 is retried with backoff, its error kept and logged once, until it works", async () => {
    await addChannel("down");
    answers.set("/down", 500);
    items = [entry("mon-1")];
    await notifier.pass();
    now += SETTINGS.groupMs;
    await notifier.pass();
    const failing = await store.tables.notify.get("down");
    expect(failing?.lastError).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+ \(path hidden\) answered 500: upstream is down$/,
    );
    // Not tried again before its backoff (1 s ± 20 %).
    now += 500;
    await notifier.pass();
    now += 1000;
    await notifier.pass();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("notify channel down failing");
    answers.delete("/down");
    now += 5000;
    await notifier.pass();
    expect(messagesTo("down")).toHaveLength(1);
    expect((await store.tables.notify.get("down"))?.lastError).toBeNull();
    expect((await store.tables.notify.pendingCounts()).get("down")).toBeUndefined();
  });

  test("a receiver that keeps refusing is given up after the last attempt", async () => {
    await addChannel("down");
    answers.set("/down", 503);
    items = [entry("mon-1")];
    await notifier.pass();
    for (let i = 0; i < 6; i++) {
      now += 20_000;
      await notifier.pass();
    }
    expect((await store.tables.notify.pendingCounts()).get("down")).toBeUndefined();
    answers.delete("/down");
    now += 60_000;
    await notifier.pass();
    expect(messagesTo("down")).toEqual([]);
  });
});

describe("filters and hosts", () => {
  test("a channel takes only its sessions and causes; a retried delivery is not a cause by default", async () => {
    await addChannel("s2-only", { sessions: ["s2"] });
    await addChannel("stalls", { causes: ["waitpoint_stalled"] });
    await addChannel("defaults");
    items = [entry("mon-1"), entry("mon-2", "delivery_retrying"), entry("mon-3", "waitpoint_stalled", "s2")];
    await notifier.pass();
    now += SETTINGS.groupMs;
    await notifier.pass();
    expect(messagesTo("s2-only")).toHaveLength(1);
    expect(messagesTo("s2-only")[0]).toContain("mon-3");
    expect(messagesTo("stalls")[0]).toContain("mon-3");
    expect(messagesTo("stalls")[0]).not.toContain("mon-1");
    expect(messagesTo("defaults")[0]).toContain("2 need you");
    expect(messagesTo("defaults")[0]).not.toContain("mon-2");
  });

  test("team: a host's channel is for its own sessions; an all-hosts channel is sent once by one host", async () => {
    await store.tables.sessions.insert({
      id: "s1",
      label: null,
      root: "/r",
      adapter: { kind: "inbox" },
      createdAt: 1,
      hostId: "h_a",
    });
    await addChannel("team", { hostId: null });
    await addChannel("b-only", { hostId: "h_b" });
    const other = makeNotifier("h_b");
    items = [entry("mon-1")];
    await Promise.all([notifier.pass(), other.pass()]);
    now += SETTINGS.groupMs;
    await Promise.all([notifier.pass(), other.pass()]);
    await other.stop();
    expect(messagesTo("team")).toHaveLength(1);
    expect(messagesTo("b-only")).toEqual([]);
    expect(await store.tables.notify.pendingCounts()).toEqual(new Map());
  });
});

test("durable: a message left unsent when the daemon stopped is sent once by the next one", async () => {
  await addChannel("phone");
  answers.set("/phone", 500);
  items = [entry("mon-1")];
  await notifier.pass();
  now += SETTINGS.groupMs;
  await notifier.pass();
  await notifier.stop();
  await store.close();
  answers.delete("/phone");
  store = new SqliteEngine(Store.open(join(dir, "vigil.db")), { checkScope: true });
  notifier = makeNotifier();
  now += 10_000;
  await notifier.pass();
  await notifier.pass();
  now += 10_000;
  await notifier.pass();
  expect(messagesTo("phone")).toHaveLength(1);
});
