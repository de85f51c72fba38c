/**
 * The real Claude Code CLI (pinned, from a cache outside the repo) against a scripted fake model
 * API, wired to a real Vigil daemon by `vigil setup claude-code` alone: the agent arms a wait
 * through its Bash tool with no session flag, and the wake comes back to that same session —
 * resumed headless when the process has exited, in-session through its Stop hook while it lives.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";

const world = useAgentWorld("claude-code", ({ api, home }) => ({
  CLAUDE_CONFIG_DIR: join(home, ".claude"),
  ANTHROPIC_BASE_URL: api.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
}));
const vigil = (...args: string[]) => world.vigil(...args);

function claude(prompt: string) {
  return execa("claude", ["-p", prompt, "--allowedTools", "Bash", "--output-format", "json"], {
    cwd: world.work,
    env: world.env,
    reject: false,
    timeout: 120_000,
  });
}

const flag = () => join(world.work, "build-done");
const ARM = () => `RUN: vigil wait --until 0.3 --timeout 120 --description "the build" -- test -f ${flag()}`;

function transcriptOf(sessionId: string): string {
  const projects = join(world.env.CLAUDE_CONFIG_DIR as string, "projects");
  for (const dir of readdirSync(projects)) {
    const file = join(projects, dir, `${sessionId}.jsonl`);
    if (existsSync(file)) return readFileSync(file, "utf8");
  }
  throw new Error(`no transcript for ${sessionId}`);
}

test("a closed session is resumed headless with the wake, once, in its own transcript", async () => {
  const first = await claude(`Run the build in the background and come back when it is done.\n${ARM()}`);
  expect(first.exitCode, first.stderr).toBe(0);
  const sessionId = JSON.parse(first.stdout).session_id as string;

  // The agent armed the wait through its Bash tool with no session flag: it landed in its own session.
  const [monitor] = await vigil("ls", "--session", sessionId);
  expect(monitor).toMatchObject({ state: "waiting", name: "the build" });
  const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === sessionId);
  expect(session.adapter.kind).toBe("claude");

  writeFileSync(flag(), "");
  const wake = await untilCli(
    async () => {
      const wakes = await vigil("inbox", "--all", "--session", sessionId);
      return wakes.find((w: { state: string }) => w.state === "delivered");
    },
    { timeoutMs: 90_000, what: "the wake to be delivered" },
  );
  expect(wake.deliveredVia).toBe("claude --resume (headless)");

  // The model saw the resumed conversation: the first prompt and the wake, in one request, once.
  const withWake = world.api.main().filter((r) => r.last.includes("Vigil wake for session"));
  expect(withWake).toHaveLength(1);
  expect(withWake[0]?.text).toContain("Run the build in the background");
  expect(withWake[0]?.session).toBe(sessionId);
  expect(transcriptOf(sessionId)).toContain(`Vigil wake for session ${sessionId}`);
});

test("a live session takes its wake through its Stop hook; no second process ever resumes it", async () => {
  // Keep the agent's process alive on its last answer until the wake is ready.
  const gate = world.api.hold(
    (r) => r.main && r.body.messages?.at(-1)?.content?.some?.((b: any) => b.type === "tool_result"),
  );
  const running = claude(`Wait for the build.\n${ARM()}`);
  await waitFor(() => gate.held() > 0, { timeoutMs: 90_000, what: "the agent to be waiting on its last answer" });
  const sessionId = world.api.main()[0]?.session as string;
  writeFileSync(flag(), "");
  await untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).some((w: { state: string }) => w.state === "ready"),
    { timeoutMs: 30_000, what: "the wake to be ready" },
  );
  // Held while the process lives: still ready a few delivery rounds later, no resume started.
  const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), { what: "the hold to be logged" });
  // People see who it waits for, in `vigil ls` and the side panel.
  const [held] = await vigil("ls", "--session", sessionId);
  expect(held.delivery).toMatchObject({ state: "ready", waitingFor: expect.stringContaining("Claude Code session") });
  gate.release();
  const result = await running;
  expect(result.exitCode, result.stderr).toBe(0);

  // Delivered once the session's own transcript shows the wake the hook handed over.
  const wakes = await untilCli(
    async () => {
      const all = await vigil("inbox", "--all", "--session", sessionId);
      return all[0]?.state === "delivered" ? all : null;
    },
    { what: "the handed-over wake to show in the transcript" },
  );
  expect(wakes).toHaveLength(1);
  expect(wakes[0]).toMatchObject({ state: "delivered", deliveredVia: "Claude Code Stop hook" });
  expect(world.api.main().filter((r) => r.last.includes("Vigil wake for session"))).toHaveLength(1);
  expect(log()).not.toContain(`delivering turn`);
  expect(transcriptOf(sessionId)).toContain(`Vigil wake for session ${sessionId}`);
});

test("an idle open session is woken by its background rewake hook and takes the wake in-session", async () => {
  const session = execa(
    "claude",
    ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash"],
    { cwd: world.work, env: world.env, reject: false, timeout: 180_000 },
  );
  let out = "";
  session.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const results = () => out.split("\n").filter((line) => line.includes('"type":"result"')).length;
  session.stdin?.write(
    `${JSON.stringify({ type: "user", message: { role: "user", content: `Wait for the build.\n${ARM()}` } })}\n`,
  );
  // The first turn ends: the session is open and idle (stdin stays open), waiting for nobody.
  await waitFor(() => results() === 1, { timeoutMs: 90_000, what: "the first turn to end" });
  const sessionId = world.api.main()[0]?.session as string;
  writeFileSync(flag(), "");
  // No prompt is typed: the background rewake hook wakes the session.
  const wake = await untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 40_000, what: "the wake to be taken in-session" },
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}\n--- requests ---\n${world.api
        .main()
        .map((r) => r.last.slice(-300))
        .join(
          "\n---\n",
        )}\n--- out ---\n${out.slice(-3000)}\n--- log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-1500)}`,
    );
  });
  // The rewake hook took the wake and woke the session with it: one message, the wake and what to do.
  expect(wake.deliveredVia).toBe("Claude Code rewake hook");
  const woken = await waitFor(() => world.api.main().find((r) => r.text.includes("Vigil wake for session")), {
    what: "the model to be sent the wake",
  });
  expect(woken.text).toContain("Act on it now");
  expect(woken.text).not.toMatch(/end your turn to receive/i);
  // The woken turn ends; then the session is stopped rather than closed: with its input closed,
  // Claude Code waits ~30 s for the next background rewake hook (started by that turn's Stop) before
  // it exits, which would only time Claude Code.
  await waitFor(() => results() === 2, { timeoutMs: 60_000, what: "the woken turn to end" });
  session.kill("SIGTERM");
  await session;
  // Taken once, by one hook; nothing resumed the session behind its back.
  const wakes = await vigil("inbox", "--all", "--session", sessionId);
  expect(wakes.map((w: { state: string }) => w.state)).toEqual(["delivered"]);
  expect(readFileSync(join(world.vigilHome, "vigil.log"), "utf8")).not.toContain("delivering turn");
});
