/**
 * The real Gemini CLI (pinned, from a cache outside the repo) against a scripted fake Gemini API
 * (GOOGLE_GEMINI_BASE_URL), wired to a real Vigil daemon by `vigil setup gemini` alone: the agent
 * arms a wait through its shell tool with no session flag (Gemini names no session to its tools:
 * the SessionStart hook's record of the Gemini process binds it), and the wake comes back to that
 * same session — resumed headless once the process has exited, in-session through its AfterAgent
 * hook while it lives. Pre-seeded as test setup, never by the product: the API-key auth choice and
 * the project folder's trust.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import { fakeGeminiHome } from "./gemini-home.js";

const world = useAgentWorld("gemini", ({ api, home, work }) => fakeGeminiHome(home, work, api.url));
const vigil = (...args: string[]) => world.vigil(...args);

function gemini(prompt: string) {
  return execa("gemini", ["-p", prompt, "--yolo", "--output-format", "json"], {
    cwd: world.work,
    env: world.env,
    reject: false,
    timeout: 120_000,
    input: "",
  });
}

const flag = () => join(world.work, "build-done");
const ARM = () => `RUN: vigil wait --until 0.3 --timeout 120 --description "the build" -- test -f ${flag()}`;
const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");

/** Every transcript file of the session (Gemini starts a new file when it resumes one). */
function transcripts(sessionId: string): string {
  const chats = join(world.home, ".gemini", "tmp", "project", "chats");
  return readdirSync(chats)
    .filter((name) => name.endsWith(`${sessionId.slice(0, 8)}.jsonl`))
    .map((name) => readFileSync(join(chats, name), "utf8"))
    .join("\n");
}

const explain = async (error: Error, sessionId: string) => {
  const wakes = await vigil("inbox", "--all", "--session", sessionId).catch(() => []);
  return new Error(
    `${error.message}\n--- wakes ---\n${JSON.stringify(wakes)}\n--- vigil.log ---\n${log().slice(-3000)}`,
  );
};

test("a closed Gemini CLI session is resumed headless with the wake, once", async () => {
  const first = await gemini(`Run the build in the background and come back when it is done.\n${ARM()}`);
  expect(first.exitCode, first.stderr).toBe(0);
  const sessionId = JSON.parse(first.stdout).session_id as string;

  // Its SessionStart hook bound the session; the wait armed from its shell tool landed in it.
  const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === sessionId);
  expect(session?.adapter).toMatchObject({ kind: "gemini", transcriptPath: expect.stringContaining(".jsonl") });
  expect(session?.adapter.pid).toBeUndefined(); // its SessionEnd hook forgot the process
  expect((await vigil("ls", "--session", sessionId))[0]).toMatchObject({ state: "waiting", name: "the build" });
  expect(world.api.main().some((r) => r.text.includes(`Vigil is running for this session (${sessionId})`))).toBe(true);

  writeFileSync(flag(), "");
  const wake = await untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 90_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    throw await explain(error, sessionId);
  });
  expect(wake.deliveredVia).toBe("gemini --resume (headless)");
  // The model saw the resumed conversation with the wake, in one request, once.
  const withWake = world.api.main().filter((r) => r.last.includes("Vigil wake for session"));
  expect(withWake).toHaveLength(1);
  // …in the same conversation: its history holds the shell call that armed the wait.
  expect(JSON.stringify(withWake[0]?.body.contents)).toContain("vigil wait --until 0.3");
  expect(transcripts(sessionId)).toContain(`Vigil wake for session ${sessionId}`);
});

test("a live Gemini CLI session takes its wake through its AfterAgent hook; no second process resumes it", async () => {
  // Keep the agent's process alive on its last answer (after the shell tool ran) until the wake is ready.
  const gate = world.api.hold(
    (r) => r.api === "gemini" && r.main && (r.body.contents?.at(-1)?.parts ?? []).some((p: any) => p.functionResponse),
  );
  const running = gemini(`Wait for the build.\n${ARM()}`);
  await waitFor(() => gate.held() > 0, { timeoutMs: 90_000, what: "the agent to be waiting on its last answer" });
  const sessionId = (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "gemini")
    ?.id as string;
  expect(sessionId).toBeTruthy();
  writeFileSync(flag(), "");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), {
    timeoutMs: 30_000,
    what: "the ready wake to be held for the live session",
  });
  const [held] = await vigil("ls", "--session", sessionId);
  expect(held.delivery).toMatchObject({ state: "ready", waitingFor: expect.stringContaining("Gemini CLI session") });
  gate.release();
  const result = await running;
  expect(result.exitCode, result.stderr).toBe(0);
  expect(JSON.parse(result.stdout).session_id).toBe(sessionId);

  // Delivered once the session's own transcript shows the wake the hook handed over.
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
  expect(wakes[0]).toMatchObject({ state: "delivered", deliveredVia: "Gemini CLI AfterAgent hook" });
  expect(world.api.main().filter((r) => r.last.includes("Vigil wake for session"))).toHaveLength(1);
  expect(log()).not.toContain("delivering turn");
});
