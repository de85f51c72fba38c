/**
 * Seals (#37): a host verifies only what it sealed itself, over exactly the fields that decide what
 * runs; any change of a covered field, another host's key or id, a copied or missing seal fails.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import type { MonitorRecord } from "../store/monitors.js";
import type { SessionRow } from "../store/sessions.js";
import { canonicalJson, Sealer, sealedSessionFields, sealedTriggerFields } from "./seals.js";

const KEY = randomBytes(32);
const HOST = "h_aaaaaaaaaaaa";

function commandRecord(overrides: Partial<MonitorRecord> = {}): MonitorRecord {
  return {
    uid: 7,
    sessionId: "dev-a",
    id: "mon-1",
    name: "build",
    kind: "command",
    source: { kind: "command", command: "make test", cwd: "/srv/app" } as MonitorRecord["source"],
    continuation: null,
    intervalMs: 10_000,
    timeoutMs: 600_000,
    createdAt: 0,
    state: "waiting",
    eventCount: 0,
    wakedSeq: 0,
    lastEvent: null,
    lastObservation: null,
    lastCheckAt: null,
    lastError: null,
    errorCount: 0,
    endingReason: null,
    endingAt: null,
    endingDetail: null,
    cleared: false,
    trigger: {
      mode: "poll",
      nextDueAt: 0,
      deadlineAt: 600_000,
      leaseUntil: null,
      polls: 0,
      unrunnableStreak: 0,
      conditionState: {},
      hostId: HOST,
      seal: null,
      sandbox: { mode: "workspace-write", root: "/srv/app", codex: "/usr/local/bin/codex" },
    },
    ...overrides,
  };
}

const sealed = (sealer: Sealer, record: MonitorRecord): MonitorRecord => ({
  ...record,
  trigger: { ...(record.trigger as NonNullable<MonitorRecord["trigger"]>), seal: sealer.sealTrigger(record) },
});

const withSeal = (record: MonitorRecord, seal: string | null): MonitorRecord => ({
  ...record,
  trigger: { ...(record.trigger as NonNullable<MonitorRecord["trigger"]>), seal },
});

describe("trigger seals", () => {
  const sealer = new Sealer(KEY, HOST);
  const good = sealed(sealer, commandRecord());

  test("the host that sealed a row verifies it", () => {
    expect(sealer.triggerVerifies(good)).toBe(true);
  });

  test.each([
    ["uid", { uid: 8 }],
    ["monitor id", { id: "mon-2" }],
    ["session", { sessionId: "dev-b" }],
    ["command", { source: { kind: "command", command: "id > /tmp/pwned" } }],
    ["cwd", { source: { kind: "command", command: "make test", cwd: "/tmp" } }],
    ["kind", { kind: "watch", source: { kind: "watch", command: "make test", cwd: "/srv/app" } }],
  ] as Array<[string, Partial<MonitorRecord>]>)(
    "its seal on a row with another %s does not verify",
    (_field, change) => {
      const forged = { ...good, ...change } as MonitorRecord;
      expect(sealer.triggerVerifies(forged)).toBe(false);
    },
  );

  test("its seal on a row whose sandbox a peer cleared or widened does not verify", () => {
    const trigger = good.trigger as NonNullable<MonitorRecord["trigger"]>;
    for (const sandbox of [
      null,
      { ...(trigger.sandbox as NonNullable<typeof trigger.sandbox>), mode: "danger-full-access" as never },
      { ...(trigger.sandbox as NonNullable<typeof trigger.sandbox>), root: "/" },
      { ...(trigger.sandbox as NonNullable<typeof trigger.sandbox>), codex: "/tmp/fake-codex" },
    ]) {
      expect(sealer.triggerVerifies({ ...good, trigger: { ...trigger, sandbox } })).toBe(false);
    }
  });

  test("another host's key, or the same key under another host id, does not verify it", () => {
    expect(new Sealer(randomBytes(32), HOST).triggerVerifies(good)).toBe(false);
    expect(new Sealer(KEY, "h_bbbbbbbbbbbb").triggerVerifies(good)).toBe(false);
  });

  test("no seal, a random seal, an empty or garbled one: refused", () => {
    for (const seal of [null, randomBytes(32).toString("base64url"), "", "not base64 !!", "AAAA"]) {
      expect(sealer.triggerVerifies(withSeal(good, seal))).toBe(false);
    }
  });

  test("a host-free check (http__get with anyHost, a time) needs no seal; a host-bound http__get or one holding a ${secret:…} does", () => {
    const time = commandRecord({ kind: "time", source: { kind: "time", at: "2030-01-01T00:00:00Z" } as never });
    expect(sealer.triggerVerifies(time)).toBe(true);
    const get = commandRecord({
      kind: "tool",
      source: { kind: "tool", name: "http__get", args: { url: "https://example.com" }, anyHost: true } as never,
    });
    expect(sealer.triggerVerifies(get)).toBe(true);
    const hostBound = commandRecord({
      kind: "tool",
      source: { kind: "tool", name: "http__get", args: { url: "https://example.com" } } as never,
    });
    expect(sealer.triggerVerifies(hostBound)).toBe(false);
    expect(sealer.triggerVerifies(sealed(sealer, hostBound))).toBe(true);
    const secret = commandRecord({
      kind: "tool",
      source: {
        kind: "tool",
        name: "http__get",
        args: { url: "https://example.com", headers: { authorization: "Bearer ${secret:TOKEN}" } },
      } as never,
    });
    expect(sealer.triggerVerifies(secret)).toBe(false);
    expect(sealer.triggerVerifies(sealed(sealer, secret))).toBe(true);
  });

  test("the source is sealed in canonical form: key order does not matter, values do", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    const reordered = commandRecord({ source: { cwd: "/srv/app", command: "make test", kind: "command" } as never });
    expect(sealer.triggerVerifies(withSeal(reordered, good.trigger?.seal ?? null))).toBe(true);
    expect(sealedTriggerFields(good, HOST)).toEqual([
      "trigger",
      7,
      "mon-1",
      "dev-a",
      HOST,
      "command",
      canonicalJson(good.source),
      canonicalJson(good.trigger?.sandbox),
    ]);
  });
});

describe("adapter seals", () => {
  const sealer = new Sealer(KEY, HOST);
  const session: SessionRow = {
    id: "dev-a",
    label: null,
    root: "/srv/app",
    adapter: { kind: "command", argv: ["notify-send", "{text}"] } as SessionRow["adapter"],
    createdAt: 0,
    webhookSecret: null,
    busyUntil: null,
    hostId: HOST,
    adapterSeal: null,
    sandbox: null,
  };
  const good = { ...session, adapterSeal: sealer.sealSession(session) };

  test("verifies for its host; inbox and MCP sessions run nothing and need none", () => {
    expect(sealer.adapterVerifies(good)).toBe(true);
    expect(sealer.adapterVerifies({ ...session, adapter: { kind: "inbox" } })).toBe(true);
    expect(sealer.adapterVerifies({ ...session, adapter: { kind: "mcp" } as SessionRow["adapter"] })).toBe(true);
  });

  test.each([
    ["session id", { id: "dev-b" }],
    ["root", { root: "/tmp/evil" }],
    ["adapter", { adapter: { kind: "command", argv: ["/bin/sh", "-c", "id > /tmp/pwned"] } }],
    ["webhook secret", { webhookSecret: "whsec_forged" }],
    ["sandbox", { sandbox: { agent: "codex", mode: "danger-full-access", root: "/" } }],
  ] as Array<[string, Partial<SessionRow>]>)(
    "its seal on a session with another %s does not verify",
    (_field, change) => {
      expect(sealer.adapterVerifies({ ...good, ...change })).toBe(false);
    },
  );

  test("a sandboxed session's seal covers its sandbox: cleared or widened, the row no longer verifies", () => {
    const boxed: SessionRow = { ...session, sandbox: { agent: "codex", mode: "workspace-write", root: "/srv/app" } };
    const sealedBoxed = { ...boxed, adapterSeal: sealer.sealSession(boxed) };
    expect(sealer.sessionVerifies(sealedBoxed)).toBe(true);
    expect(sealer.sessionVerifies({ ...sealedBoxed, sandbox: null })).toBe(false);
    // An inbox session runs nothing when woken, but its sandbox still decides its checks' power.
    const inbox: SessionRow = { ...boxed, adapter: { kind: "inbox" } };
    expect(sealer.sessionVerifies({ ...inbox, adapterSeal: sealer.sealSession(inbox), sandbox: null })).toBe(false);
  });

  test("no seal, or another host's, does not verify", () => {
    expect(sealer.adapterVerifies(session)).toBe(false);
    expect(new Sealer(randomBytes(32), HOST).adapterVerifies(good)).toBe(false);
    expect(sealedSessionFields(session, HOST)).toEqual([
      "session",
      "dev-a",
      HOST,
      "/srv/app",
      canonicalJson(session.adapter),
      null,
      "null",
    ]);
  });
});
