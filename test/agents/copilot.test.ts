/**
 * The real GitHub Copilot CLI (pinned, from a cache outside the repo) against a scripted fake
 * OpenAI-compatible Chat Completions API (BYOK: COPILOT_PROVIDER_BASE_URL, no GitHub login), wired
 * to a real Vigil daemon by `vigil setup copilot` alone (a hook file in ~/.copilot/hooks): the agent
 * arms a wait through its bash tool with no session flag (Copilot gives the tool
 * COPILOT_AGENT_SESSION_ID), and the wake comes back to that same session — resumed headless once
 * the process has exited, in-session through its agentStop hook while it lives, with no second
 * process on the session (sampled from /proc). Pre-seeded as test setup, never by the product: the
 * BYOK provider, offline mode, and a shared cache for the package Copilot unpacks on first start.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { CLI_CACHE } from "./agent-clis.js";
import { useAgentWorld } from "./agent-world.js";
import { sampleProcesses } from "./terminal.js";

const world = useAgentWorld("copilot", ({ api }) => ({
  COPILOT_PROVIDER_BASE_URL: `${api.url}/v1`,
  COPILOT_MODEL: "fake-model",
  COPILOT_OFFLINE: "true",
  COPILOT_AUTO_UPDATE: "false",
  // Copilot unpacks ~235 MB into $XDG_CACHE_HOME/copilot on first start: once, not per HOME.
  XDG_CACHE_HOME: join(CLI_CACHE, "xdg-cache"),
}));
const vigil = (...args: string[]) => world.vigil(...args);

function copilot(prompt: string) {
  return execa("copilot", ["-p", prompt, "--allow-all-tools", "--output-format", "json"], {
    cwd: world.work,
    env: world.env,
    reject: false,
    timeout: 120_000,
    input: "",
  });
}

/** The session the run's closing `result` event names. */
const sessionOf = (stdout: string) =>
  stdout
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { type?: string; sessionId?: string }];
      } catch {
        return [];
      }
    })
    .findLast((event) => event.type === "result")?.sessionId;

const flag = () => join(world.work, "build-done");
const ARM = () => `RUN: vigil wait --until 0.3 --timeout 120 --description "the build" -- test -f ${flag()}`;
const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");
const transcript = (sessionId: string) =>
  readFileSync(join(world.home, ".copilot", "session-state", sessionId, "events.jsonl"), "utf8");
const resumes = () => sampleProcesses(world.home, (cmdline) => /copilot\S* .*--resume=/.test(cmdline));
const withWake = () => world.api.main().filter((r) => r.last.includes("Vigil wake for session"));

const explain = async (error: Error, sessionId: string) => {
  const wakes = await vigil("inbox", "--all", "--session", sessionId).catch(() => []);
  return new Error(
    `${error.message}\n--- wakes ---\n${JSON.stringify(wakes)}\n--- vigil.log ---\n${log().slice(-3000)}`,
  );
};

test("a closed Copilot CLI session is resumed headless with the wake, once", async () => {
  const first = await copilot(`Run the build in the background and come back when it is done.\n${ARM()}`);
  expect(first.exitCode, first.stderr).toBe(0);
  const sessionId = sessionOf(first.stdout) as string;
  expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

  // Its sessionStart hook bound the session; the wait armed from its bash tool landed in it.
  const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === sessionId);
  expect(session?.adapter).toMatchObject({
    kind: "copilot",
    transcriptPath: join(world.home, ".copilot", "session-state", sessionId, "events.jsonl"),
  });
  expect(session?.adapter.pid).toBeUndefined(); // its sessionEnd hook forgot the process
  expect((await vigil("ls", "--session", sessionId))[0]).toMatchObject({ state: "waiting", name: "the build" });
  expect(world.api.main().some((r) => r.text.includes(`Vigil is running for this session (${sessionId})`))).toBe(true);

  const sampler = resumes();
  writeFileSync(flag(), "");
  const wake = await untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 90_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    throw await explain(error, sessionId);
  });
  const seen = sampler.stop();
  expect(wake.deliveredVia).toBe("copilot --resume (headless)");
  // One resume (npm's launcher and the binary it starts carry the same command line), one request.
  expect(new Set([...seen.values()].map((cmdline) => cmdline.replace(/^.*?copilot\S* /, ""))).size).toBe(1);
  expect(withWake()).toHaveLength(1);
  // …in the same conversation: its history holds the shell call that armed the wait.
  expect(JSON.stringify(withWake()[0]?.body.messages)).toContain("vigil wait --until 0.3");
  expect(transcript(sessionId)).toContain(`Vigil wake for session ${sessionId}`);
});

test("a live Copilot CLI session takes its wake through its agentStop hook; no second process resumes it", async () => {
  // Keep the agent's process alive on its last answer (after the bash tool ran) until the wake is ready.
  const gate = world.api.hold((r) => r.api === "chat" && r.main && r.body.messages?.at(-1)?.role === "tool");
  const sampler = resumes();
  const running = copilot(`Wait for the build.\n${ARM()}`);
  await waitFor(() => gate.held() > 0, { timeoutMs: 90_000, what: "the agent to be waiting on its last answer" });
  const sessionId = (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "copilot")
    ?.id as string;
  expect(sessionId).toBeTruthy();
  writeFileSync(flag(), "");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), {
    timeoutMs: 30_000,
    what: "the ready wake to be held for the live session",
  });
  expect((await vigil("ls", "--session", sessionId))[0].delivery).toMatchObject({
    state: "ready",
    waitingFor: expect.stringContaining("Copilot CLI session"),
  });
  gate.release();
  const result = await running;
  expect(result.exitCode, result.stderr).toBe(0);
  expect(sessionOf(result.stdout)).toBe(sessionId);

  // Delivered once the session's own events.jsonl shows the wake the hook handed over.
  const wakes = await untilCli(
    async () => {
      const all = await vigil("inbox", "--all", "--session", sessionId);
      return all[0]?.state === "delivered" ? all : null;
    },
    { what: "the handed-over wake to show in the transcript" },
  ).catch(async (error: Error) => {
    throw await explain(error, sessionId);
  });
  expect(wakes).toHaveLength(1);
  expect(wakes[0]).toMatchObject({ state: "delivered", deliveredVia: "Copilot CLI agentStop hook" });
  expect(withWake()).toHaveLength(1);
  expect([...sampler.stop().values()]).toEqual([]);
  expect(log()).not.toContain("delivering turn");
});
