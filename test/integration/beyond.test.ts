/** Beyond the peers (design.md §6.1): consecutive, lookback, heartbeat timeouts, the check log, arm-time notes. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FIXTURES, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

const session = () => daemon.newSession("b");
const wakes = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];

describe("consecutive", () => {
  test("a flicker (met, not met, met) with consecutive 2 does not wake; with consecutive 1 it does", async () => {
    const sid = await session();
    const twice = mkdtempSync(join(tmpdir(), "vigil-flicker-"));
    const once = mkdtempSync(join(tmpdir(), "vigil-flicker-"));
    const flicker = (dir: string) => `sh ${FIXTURES}/count-then.sh ${dir} "0 1 0 1 1"`;
    await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "command", command: flicker(twice), consecutive: 2 },
      intervalSeconds: 0.2,
      timeoutSeconds: 60,
    });
    await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "command", command: flicker(once) },
      intervalSeconds: 0.2,
      timeoutSeconds: 60,
    });
    expect((await daemon.waitForState(sid, "mon-2", ["ready"])).ending.reason).toBe("met");
    const held = await waitFor(async () => {
      const view = await daemon.monitor(sid, "mon-1");
      return view.polls >= 5 ? view : null;
    });
    expect(held.state).toBe("waiting");
    expect(held.consecutive).toBe("0/2 consecutive");
    expect((await wakes(sid)).map((w) => w.monitors[0])).toEqual(["mon-2"]);
    const log = (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/checks`)).body.map((c: any) => c.outcome);
    expect(log.slice(0, 4)).toEqual(["met", "not_met", "met", "not_met"]);
  });
});

describe("event lookback", () => {
  test("an event posted before arming wakes a monitor with lookback, not one without", async () => {
    const sid = await session();
    await daemon.api("POST", `/api/sessions/${sid}/monitors/events`, { type: "ci.done", payload: { run: 5 } });
    const without = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "event", type: "ci.done", match: { run: 5 } },
    });
    expect(without.body.state).toBe("waiting");
    const withLookback = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "event", type: "ci.done", match: { run: 5 }, lookbackSeconds: 5 },
    });
    expect(withLookback.body).toMatchObject({ id: "mon-2", state: "ready", ending: { reason: "met" } });
    expect((await daemon.monitor(sid, "mon-1")).state).toBe("waiting");
    expect(
      (
        await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
          source: { kind: "event", type: "x", lookbackSeconds: 3601 },
        })
      ).body.error.message,
    ).toContain("Expected at most 3600 seconds");
  });
});

describe("heartbeat timeout", () => {
  test("no signal for the timeout wakes the owner with 'stalled'; it stays armed unless fail_fast", async () => {
    const sid = await session();
    const armed = (
      await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
        label: "training",
        intent: "watch it",
        heartbeat_timeout_seconds: 1,
        fail_fast: false,
      })
    ).body;
    expect(armed.how_to_signal.heartbeat).toContain("--status progress");
    const [stalled] = await waitFor(async () => ((await wakes(sid)).length > 0 ? wakes(sid) : null));
    expect(stalled.payload.reason).toBe("stalled");
    expect(stalled.text).toContain("it stalled: no signal of any kind arrived within its heartbeat timeout");
    expect(stalled.text).toMatch(/no signal of any kind since it was armed at .* \(heartbeat timeout 1s\)/);
    expect((await daemon.api("GET", `/api/sessions/${sid}/waitpoints/${armed.id}`)).body.state).toBe("armed");

    const fatal = (
      await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
        label: "job",
        intent: "x",
        heartbeat_timeout_seconds: 1,
      })
    ).body;
    await fetch(`${daemon.url}/webhook/signal`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: fatal.id, secret: fatal.secret, status: "progress", message: "step 1" }),
    });
    const ended = await daemon.waitForState(sid, fatal.id, ["ready"]);
    expect(ended.ending.reason).toBe("failed");
    expect(ended.ending.detail).toMatch(/^stalled: no signal of any kind since the last signal at/);
  });
});

describe("the check log", () => {
  test("shows unavailable, not met, error and met entries in order, with durations and excerpts", async () => {
    const sid = await session();
    const dir = mkdtempSync(join(tmpdir(), "vigil-seq-"));
    await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: {
        kind: "command",
        command: `sh ${FIXTURES}/sequence.sh ${dir}`,
        condition: { path: "json.status", operator: "equals", value: "done" },
      },
      intervalSeconds: 0.2,
      timeoutSeconds: 60,
    });
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    const checks = (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/checks`)).body;
    expect(checks.map((c: any) => c.outcome)).toEqual(["unavailable", "not_met", "error", "met"]);
    expect(checks[1].excerpt).toBe('{"status":"running"}');
    expect(checks[2].excerpt).toMatch(/^exit 127/);
    expect(checks.every((c: any) => typeof c.durationMs === "number")).toBe(true);
    const cli = await daemon.cli(["checks", "mon-1", "--session", sid]);
    expect(String(cli.stdout).split("\n")[0]).toMatch(/^#1 \S+ unavailable \(\d+ ms\)/);
  });
});

describe("arm-time check", () => {
  test("a condition already true when armed ends at the first check and says so in the wake", async () => {
    const sid = await session();
    await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: { kind: "command", command: "true" },
      intervalSeconds: 5,
    });
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect((await wakes(sid))[0].text).toContain("held on check 1 — already true when armed");
  });
});
