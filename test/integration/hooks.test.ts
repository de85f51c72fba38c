/** `vigil hook claude stop` against a real daemon: it hands over ready wakes, but never past the block cap. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

const stopHook = (input: object) =>
  execa(process.execPath, [BIN, "--home", daemon.home, "hook", "claude", "stop"], {
    input: JSON.stringify(input),
    reject: false,
  });

test("the Stop hook takes ready wakes as a block, but never one Claude Code would discard past its cap", async () => {
  const sid = "claude-cap-test";
  await daemon.api("POST", "/api/sessions", { id: sid });
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "echo built" },
    intervalSeconds: 5,
  });
  const wakes = async () => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<any>;
  await waitFor(async () => (await wakes()).some((w) => w.state === "ready"), { what: "a ready wake" });

  // Seven blocks in a row already: an eighth would be Claude Code's last, so the wake stays ready.
  mkdirSync(join(daemon.home, "rewake"), { recursive: true });
  writeFileSync(join(daemon.home, "rewake", `${sid}.blocks`), "7");
  const capped = await stopHook({ session_id: sid, stop_hook_active: true });
  expect(capped.exitCode).toBe(0);
  expect(capped.stdout).toBe("");
  expect((await wakes())[0].state).toBe("ready");

  // A fresh Stop (not a continuation) hands it over.
  const fresh = await stopHook({ session_id: sid, stop_hook_active: false });
  expect(JSON.parse(fresh.stdout)).toMatchObject({ decision: "block", reason: expect.stringContaining("built") });
  expect((await wakes())[0]).toMatchObject({ state: "delivered", deliveredVia: "Claude Code Stop hook" });
  expect((await stopHook({ session_id: sid, stop_hook_active: true })).stdout).toBe("");
});
