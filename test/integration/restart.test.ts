import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

test("kill -9: a polled wait resumes and meets its condition; a watch ends lost with exactly one wake", async () => {
  const work = mkdtempSync(join(tmpdir(), "vigil-restart-"));
  const flag = join(work, "done.flag");
  await daemon.api("POST", "/api/sessions", { id: "r" });
  const made = await daemon.api("POST", "/api/sessions/r/monitors", {
    source: { kind: "command", command: `test -f ${flag} && echo resumed-ok`, cwd: work },
    intervalSeconds: 0.2,
    timeoutSeconds: 120,
  });
  expect(made.status).toBe(201);
  await daemon.api("POST", "/api/sessions/r/monitors", {
    source: { kind: "watch", command: "echo started; sleep 300" },
  });
  await waitFor(async () => (await daemon.monitor("r", "mon-2")).eventCount === 1, { what: "watch output" });
  await waitFor(async () => (await daemon.monitor("r", "mon-1")).polls >= 1, { what: "a first check" });

  await daemon.kill9();
  writeFileSync(flag, "");
  await daemon.spawn();

  const wait = await daemon.waitForState("r", "mon-1", ["ready"]);
  expect(wait.ending.reason).toBe("met");
  expect(wait.deadlineAt).toBeNull();
  expect(wait.lastEvent).toBe("resumed-ok");
  const watch = await daemon.monitor("r", "mon-2");
  expect(watch.state).toBe("ready");
  expect(watch.ending.reason).toBe("lost");

  // A second restart must not wake anyone again.
  expect(await daemon.stop()).toBe(0);
  await daemon.spawn();
  const wakes = (await daemon.api("GET", "/api/sessions/r/wakes")).body as any[];
  const endings = wakes.filter((w) => w.kind === "ending");
  expect(endings.map((w) => [w.monitors[0], w.payload.reason]).sort()).toEqual([
    ["mon-1", "met"],
    ["mon-2", "lost"],
  ]);
  expect(endings.find((w) => w.monitors[0] === "mon-2").text).toContain("the Vigil daemon restarted");
});
