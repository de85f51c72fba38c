/** `vigil hook claude stop` against a real daemon: it hands over ready wakes, but never past the block cap. */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
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

test("a wake a hook took counts once the session's transcript shows it, and needs review if it never does", async () => {
  const own = await TestDaemon.start({ env: { VIGIL_HOOK_CONFIRM_SECONDS: "2" } });
  try {
    const transcript = join(own.home, "session.jsonl");
    writeFileSync(transcript, "");
    const arm = async (sid: string) => {
      await own.api("POST", "/api/sessions", { id: sid, adapter: { kind: "claude", transcriptPath: transcript } });
      await own.api("POST", `/api/sessions/${sid}/monitors`, {
        source: { kind: "command", command: `echo ${sid}` },
        intervalSeconds: 5,
      });
      await waitFor(async () => (await own.api("GET", `/api/sessions/${sid}/wakes`)).body[0]?.state === "ready", {
        what: "a ready wake",
      });
    };
    const hook = (sid: string) =>
      execa(process.execPath, [BIN, "--home", own.home, "hook", "claude", "stop"], {
        input: JSON.stringify({ session_id: sid, stop_hook_active: false }),
      });
    const wake = async (sid: string) => (await own.api("GET", `/api/sessions/${sid}/wakes`)).body[0];

    await arm("shown-session");
    const reason = JSON.parse((await hook("shown-session")).stdout).reason as string;
    expect(reason).toMatch(/\[vigil wake-1 shown-se [0-9a-f]{16}\]/);
    expect((await wake("shown-session")).state).toBe("delivering");
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: "user", message: { content: `Stop hook feedback:\n${reason}` } })}\n`,
    );
    await waitFor(async () => (await wake("shown-session")).state === "delivered", { what: "the wake to count" });
    expect((await wake("shown-session")).deliveredVia).toBe("Claude Code Stop hook");

    await arm("dropped-session");
    await hook("dropped-session");
    const dropped = await waitFor(
      async () => {
        const w = await wake("dropped-session");
        return w.state === "needs_review" ? w : null;
      },
      { what: "the unseen wake to need review" },
    );
    expect(dropped.lastError).toMatch(/transcript never showed it/);
  } finally {
    await own.dispose();
  }
});

test("a wake a hook took counts within seconds while other changes come many times a second", async () => {
  // Every change (here: progress signals to a waitpoint, 5 a second) pokes the delivery scheduler;
  // the look at the transcript must still come a second after the last one, not be pushed back.
  const sid = "busy-daemon-session";
  const transcript = join(daemon.home, "busy-session.jsonl");
  writeFileSync(transcript, "");
  await daemon.api("POST", "/api/sessions", { id: sid, adapter: { kind: "claude", transcriptPath: transcript } });
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "echo busy" },
    intervalSeconds: 5,
  });
  const wake = async () => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body[0];
  await waitFor(async () => (await wake())?.state === "ready", { what: "a ready wake" });
  const other = await daemon.api("POST", "/api/sessions", { id: "busy-other" });
  expect(other.status).toBe(201);
  const waitpoint = await daemon.api("POST", "/api/sessions/busy-other/waitpoints", {
    label: "stream",
    intent: "nothing",
  });
  let streaming = true;
  const stream = (async () => {
    while (streaming) {
      await daemon.api("POST", `/api/waitpoints/${waitpoint.body.id}/signal`, { status: "progress", message: "tick" });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  try {
    const took = await stopHook({ session_id: sid, stop_hook_active: false });
    // A hook that fails prints nothing (it never breaks the agent) and says why on stderr.
    expect(took.stdout, took.stderr).toMatch(/"decision": ?"block"/);
    const reason = JSON.parse(took.stdout).reason as string;
    expect((await wake()).state).toBe("delivering");
    appendFileSync(
      transcript,
      `${JSON.stringify({ type: "user", message: { content: `Stop hook feedback:\n${reason}` } })}\n`,
    );
    // Delivered while the stream goes on (before the fix: only once it stopped, or at the deadline).
    await waitFor(async () => ((await wake()).state === "delivered" ? true : null), {
      what: "the wake to count while changes keep coming",
    });
  } finally {
    streaming = false;
    await stream;
  }
});

test("the rewake hook wakes an idle session with one message: the wake and what to do with it", async () => {
  const sid = "claude-rewake-test";
  const transcript = join(daemon.home, "rewake-session.jsonl");
  writeFileSync(transcript, "");
  await daemon.api("POST", "/api/sessions", { id: sid, adapter: { kind: "claude", transcriptPath: transcript } });
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "echo rewake-built" },
    intervalSeconds: 5,
  });
  const wake = async () => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body[0];
  const hook = await execa(process.execPath, [BIN, "--home", daemon.home, "hook", "claude", "rewake"], {
    input: JSON.stringify({ session_id: sid }),
    reject: false,
  });
  // Exit 2 wakes the idle session with stderr as its one message: the wake itself, tagged, and what to do.
  expect(hook.exitCode).toBe(2);
  expect(hook.stderr).toContain("rewake-built");
  expect(hook.stderr).toMatch(/Act on it now/);
  expect(hook.stderr).not.toMatch(/end your turn/i);
  const tag = /\[vigil wake-\d+ claude-r [0-9a-f]{16}\]/.exec(hook.stderr)?.[0];
  expect(tag).toBeTruthy();
  // Taken by this hook (nothing is left for the prompt hook to add), counted once the transcript shows it.
  expect((await wake()).state).toBe("delivering");
  appendFileSync(transcript, `${JSON.stringify({ type: "user", message: { content: hook.stderr } })}\n`);
  await waitFor(async () => (await wake()).state === "delivered", { what: "the rewake's wake to count" });
  expect((await wake()).deliveredVia).toBe("Claude Code rewake hook");
});
