/**
 * Hook handovers against hostile transcripts (design.md §6, §8): the real daemon and the real
 * `vigil hook claude stop`. A FIFO as the transcript never stops the daemon and confirms nothing;
 * a tag written into the transcript before the claim (or one with a guessed nonce) confirms
 * nothing; the tag the daemon made at the claim, appended after it, does.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

/** A daemon stuck in a blocking read never answers SIGTERM: kill it so the run ends. */
async function shutdown(d: TestDaemon): Promise<void> {
  const child = d.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    try {
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 5000, what: "exit" });
    } catch {
      await d.kill9();
    }
  }
  rmSync(d.home, { recursive: true, force: true });
}

/** A request that must be answered within 2 s (a frozen daemon accepts and never answers). */
async function get(d: TestDaemon, path: string): Promise<any> {
  const reply = await d.api("GET", path, undefined, {}, 2000);
  expect(reply.status).toBe(200);
  return reply.body;
}

/** A Claude Code session whose transcript is `transcript`, with one ready wake. */
async function arm(d: TestDaemon, sid: string, transcript: string): Promise<string> {
  await d.api("POST", "/api/sessions", { id: sid, adapter: { kind: "claude", transcriptPath: transcript } });
  await d.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: `echo ${sid}` },
    intervalSeconds: 5,
  });
  const wake = await waitFor(async () => (await d.api("GET", `/api/sessions/${sid}/wakes`)).body[0], {
    what: "a wake",
  });
  await waitFor(async () => (await d.api("GET", `/api/sessions/${sid}/wakes`)).body[0]?.state === "ready", {
    what: "a ready wake",
  });
  return wake.id as string;
}

/** The Stop hook, as Claude Code runs it: the reason it prints is what the transcript will show. */
async function stopHook(d: TestDaemon, sid: string): Promise<string> {
  const result = await execa(process.execPath, [BIN, "--home", d.home, "hook", "claude", "stop"], {
    input: JSON.stringify({ session_id: sid, stop_hook_active: false }),
    env: { VIGIL_HOME: d.home },
  });
  return JSON.parse(result.stdout).reason as string;
}

/** The wake once it has left `delivering`, with /healthz answering within 2 s all along. */
async function settled(d: TestDaemon, sid: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    expect(await get(d, "/healthz")).toBeTruthy();
    const [wake] = await get(d, `/api/sessions/${sid}/wakes`);
    if (wake.state !== "delivering") return wake;
    if (Date.now() > deadline) throw new Error(`Expected the wake to settle, got ${wake.state} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a FIFO as the transcript: the daemon keeps answering and the handover is not confirmed", async () => {
  const daemon = await TestDaemon.start({ env: { VIGIL_HOOK_CONFIRM_SECONDS: "3" } });
  try {
    const fifo = join(daemon.home, "transcript.fifo");
    execFileSync("mkfifo", [fifo]);
    await arm(daemon, "fifo-session", fifo);
    const reason = await stopHook(daemon, "fifo-session");
    expect(reason).toContain("fifo-session");
    // Rechecked every second for 3 s: a blocking read of the FIFO would stop /healthz answering.
    const wake = await settled(daemon, "fifo-session");
    expect(wake.state).toBe("needs_review");
    expect(wake.lastError).toContain("transcript never showed it");
    expect(wake.lastError).toContain("Expected the transcript to be a regular file, got a FIFO");
  } finally {
    await shutdown(daemon);
  }
});

test("a tag in the transcript before the claim, or with a guessed nonce, never confirms; the claim's tag appended after does", async () => {
  const daemon = await TestDaemon.start({ env: { VIGIL_HOOK_CONFIRM_SECONDS: "4" } });
  try {
    const transcript = join(daemon.home, "session.jsonl");
    writeFileSync(transcript, "");
    const line = (text: string) =>
      appendFileSync(transcript, `${JSON.stringify({ type: "user", message: { content: text } })}\n`);

    // Written before the claim: the tag as the hook printed it before nonces, and one with a guess.
    const early = await arm(daemon, "early-tag", transcript);
    line(`[vigil ${early} early-ta]`);
    line(`[vigil ${early} early-ta 0000000000000000]`);
    const reason = await stopHook(daemon, "early-tag");
    // After the claim: a forged tag with another nonce.
    line(`[vigil ${early} early-ta ${"f".repeat(16)}]`);
    const unseen = await settled(daemon, "early-tag");
    expect(unseen.state).toBe("needs_review");
    expect(unseen.lastError).toContain("transcript never showed it");
    expect(reason).toMatch(/\[vigil wake-\d+ early-ta [0-9a-f]{16}\]/);

    // The claim's own tag, as Claude Code writes the Stop hook's reason, after the claim: delivered.
    const shown = await arm(daemon, "shown-tag", transcript);
    line(`[vigil ${shown} shown-ta]`);
    const shownReason = await stopHook(daemon, "shown-tag");
    expect(shownReason).toMatch(/\[vigil wake-\d+ shown-ta [0-9a-f]{16}\]/);
    line(`Stop hook feedback:\n${shownReason}`);
    const delivered = await settled(daemon, "shown-tag");
    expect(delivered).toMatchObject({ state: "delivered", deliveredVia: "Claude Code Stop hook" });
  } finally {
    await shutdown(daemon);
  }
});
