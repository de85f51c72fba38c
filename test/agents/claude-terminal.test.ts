/**
 * The real Claude Code TUI in a terminal (tmux), wired by `vigil setup claude-code` alone, against
 * the scripted fake Messages API: an idle open TUI is woken by itself (its background rewake hook),
 * one closed with /exit is resumed headless once, and a busy one takes the wake through its Stop
 * hook with no second Claude process on the session (sampled from /proc throughout).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import { homeOf, openTerminal, processes, sampleProcesses, type Terminal } from "./terminal.js";

const API_KEY = "sk-ant-test";

const world = useAgentWorld("claude-code", ({ api, home, work }) => {
  const configDir = join(home, ".claude");
  mkdirSync(configDir, { recursive: true });
  // Test setup only: what Claude Code asks on first start (onboarding, the API key, folder trust).
  writeFileSync(
    join(configDir, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      projects: { [work]: { hasTrustDialogAccepted: true } },
    }),
  );
  return {
    CLAUDE_CONFIG_DIR: configDir,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    TERM: "xterm-256color",
  };
});
const vigil = (...args: string[]) => world.vigil(...args);

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
});

const flag = () => join(world.work, "build-done");
const ARM = () =>
  `Wait for the build. RUN: vigil wait --until 0.3 --timeout 120 --description "the build" -- test -f ${flag()}`;
/** A second Claude process on the session: a headless `claude --resume`. */
const resumes = () =>
  sampleProcesses(world.home, (cmdline) => /claude\S* .*--resume /.test(cmdline) && / -p\b/.test(cmdline));
const wakeRequests = () => world.api.main().filter((r) => r.text.includes("Vigil wake for session"));
const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");

async function openClaude(): Promise<Terminal> {
  terminal = await openTerminal(
    ["bash", "-c", "claude --permission-mode default --allowedTools Bash; echo CLAUDE-EXITED; exec sleep 600"],
    { cwd: world.work, env: world.env },
  );
  await terminal.waitFor("? for shortcuts", "the Claude Code TUI to be ready");
  return terminal;
}

/** Arms the wait from the TUI; returns the session once the turn ended (the TUI idle). */
async function arm(tui: Terminal): Promise<string> {
  await tui.type(ARM());
  // The shell command ran and the model answered it.
  await tui.waitFor(/Ran 1 shell command[\s\S]*\n● /, "the first turn to end");
  const sessionId = world.api.main()[0]?.session as string;
  // Ended for good: the background rewake hook waits and the Stop hook (started with it) has run.
  await waitFor(
    () =>
      existsSync(join(world.vigilHome, "rewake", `${sessionId}.pid`)) &&
      ![...processes()].some(([pid, cmdline]) => cmdline.includes("hook claude stop") && homeOf(pid) === world.home),
    { what: "the turn's Stop hooks to have run" },
  );
  expect((await vigil("ls", "--session", sessionId))[0]).toMatchObject({ state: "waiting", name: "the build" });
  return sessionId;
}

async function deliveredWake(sessionId: string) {
  return untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 120_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    throw new Error(
      `${error.message}\n--- vigil.log ---\n${log().slice(-3000)}\n--- terminal ---\n${await terminal?.screen()}`,
    );
  });
}

test("an idle open Claude Code TUI is woken by itself, in the same session, once, with no second process", async () => {
  const tui = await openClaude();
  const sessionId = await arm(tui);
  const sampler = resumes();
  writeFileSync(flag(), "");
  const wake = await deliveredWake(sessionId);
  const seen = sampler.stop();
  expect(wake.deliveredVia).toBe("Claude Code rewake hook");
  // The TUI shows the rewake's message as the hook's feedback, and the model's answer to it.
  await tui.waitFor("Stop hook feedback", "the TUI to show the wake");
  // The TUI shows the feedback before it sends the turn: under load the request comes a little later.
  await waitFor(() => wakeRequests().length > 0, { timeoutMs: 60_000, what: "the woken turn to reach the model" });
  expect(wakeRequests()).toHaveLength(1);
  expect(wakeRequests()[0]?.session).toBe(sessionId);
  expect([...seen.values()]).toEqual([]);
});

test("a Claude Code TUI closed with /exit is resumed headless with the wake, once", async () => {
  const tui = await openClaude();
  const sessionId = await arm(tui);
  await tui.type("/exit");
  await tui.waitFor("CLAUDE-EXITED", "the TUI to exit");
  const sampler = resumes();
  writeFileSync(flag(), "");
  const wake = await deliveredWake(sessionId);
  const seen = sampler.stop();
  expect(wake.deliveredVia).toBe("claude --resume (headless)");
  expect(wakeRequests()).toHaveLength(1);
  expect(wakeRequests()[0]?.session).toBe(sessionId);
  // One resume ran (its launcher and the program it starts share the session id on their command lines).
  expect(new Set([...seen.values()].map((cmdline) => cmdline.match(/--resume (\S+)/)?.[1]))).toEqual(
    new Set([sessionId]),
  );
});

test("a busy Claude Code TUI takes the wake through its own hooks when its turn ends, never through a second process", async () => {
  const tui = await openClaude();
  // The turn stays busy on its last answer until released.
  const gate = world.api.hold(
    (r) =>
      r.main &&
      r.body.messages
        ?.filter((m: { role: string }) => m.role === "user")
        .at(-1)
        ?.content?.some?.((b: { type?: string }) => b.type === "tool_result"),
  );
  await tui.type(ARM());
  await waitFor(() => gate.held() > 0, { timeoutMs: 120_000, what: "the turn to be busy on its last answer" });
  const sessionId = world.api.main()[0]?.session as string;
  const sampler = resumes();
  writeFileSync(flag(), "");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), {
    timeoutMs: 30_000,
    what: "the wake to be held for the live session",
  });
  gate.release();
  const wake = await deliveredWake(sessionId);
  const seen = sampler.stop();
  // The turn's end starts both Stop hooks: the blocking one or the background rewake takes it, in-session.
  expect(wake.deliveredVia).toMatch(/^Claude Code (Stop|rewake) hook$/);
  // The hook answers before the TUI sends the woken turn: under load the request comes a little later.
  await waitFor(() => wakeRequests().length > 0, { timeoutMs: 60_000, what: "the woken turn to reach the model" });
  expect(wakeRequests()).toHaveLength(1);
  expect([...seen.values()]).toEqual([]);
  expect(log()).not.toContain("delivering turn");
});
