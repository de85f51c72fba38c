/**
 * The real Codex TUI in a terminal (tmux), wired by `vigil setup codex` alone, against the scripted
 * fake Responses API: an idle open TUI is woken by itself, one closed with /exit is woken within
 * seconds through the app-server that still holds its thread, and a busy one takes the wake after
 * its turn — each once, through Codex's own queue, with no second Codex process on the thread
 * (sampled from /proc throughout).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import { fakeCodexHome } from "./codex-home.js";
import { openTerminal, sampleProcesses, type Terminal } from "./terminal.js";

const QUEUE_VIA = "codex queue (the thread's app-server)";

const world = useAgentWorld("codex", ({ api, home, work }) => {
  const codexHome = fakeCodexHome(home, api.url, work);
  return { CODEX_HOME: codexHome, FAKE_API_KEY: "sk-fake", TERM: "xterm-256color" };
});
const vigil = (...args: string[]) => world.vigil(...args);

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
  // The TUI's managed app-server outlives it: end the one this test started (its pid is in Codex's home).
  for (const [pid, cmdline] of (await import("./terminal.js")).processes()) {
    if (cmdline.includes(join(world.home, ".codex")) && cmdline.includes("app-server")) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone.
      }
    }
  }
});

const flag = () => join(world.work, "build-done");
const ARM = () =>
  `Wait for the build. RUN: vigil wait --until 2 --timeout 120 --description "the build" -- test -f ${flag()}`;
/** Any second Codex process on the thread: a headless `codex exec` (a resume). */
const secondWriters = () => sampleProcesses(world.home, (cmdline) => /codex\S* exec\b/.test(cmdline));

/** Opens the TUI and types the prompt that arms the wait. */
async function openAndAsk(): Promise<Terminal> {
  const open = await openCodex();
  terminal = open;
  await open.waitFor("Ask Codex to do anything", "the Codex TUI to be ready");
  const asked = world.api.main().length;
  await open.type(ARM());
  // A TUI still settling may drop the Enter (CI saw it now and then: the prompt never reached the
  // model): pressed again when no request came; on an empty composer it does nothing.
  const sent = await waitFor(() => (world.api.main().length > asked ? true : null), {
    timeoutMs: 30_000,
    what: "the prompt to reach the model",
  }).catch(() => false);
  if (!sent) await open.keys("Enter");
  return open;
}

/** Opens the TUI, arms the wait through its shell tool, and returns the thread once the turn ended. */
async function openAndArm(): Promise<string> {
  terminal = await openAndAsk();
  const thread = await untilCli(
    async () => (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "codex")?.id,
    { timeoutMs: 120_000, what: "the thread to bind itself" },
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}\n--- terminal ---\n${await terminal?.screen()}`);
  });
  await untilCli(async () => (await vigil("ls", "--session", thread))[0]?.state === "waiting", {
    timeoutMs: 120_000,
    what: "the wait to be armed from the TUI",
  });
  await terminal.waitFor(/• done/, "the first turn to end");
  // Ended for good, its Stop hook run too (Codex records task_complete after it): the TUI is idle.
  await waitFor(() => readFileSync(findRollout(thread as string), "utf8").includes('"type":"task_complete"'), {
    what: "the turn to be complete in the thread's rollout",
  });
  return thread as string;
}

async function deliveredWake(thread: string) {
  return untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", thread)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 120_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    const wakes = await vigil("inbox", "--all", "--session", thread);
    throw new Error(
      `${error.message}\n--- wakes ---\n${JSON.stringify(wakes)}\n--- vigil.log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-3000)}\n--- terminal ---\n${await terminal?.screen()}`,
    );
  });
}

/** The TUI in a shell that stays after it exits (so the terminal shows how it ended). */
const openCodex = () =>
  openTerminal(["bash", "-c", "codex; echo CODEX-EXITED; exec sleep 600"], { cwd: world.work, env: world.env });

/** The thread's rollout file in the world's Codex home. */
function findRollout(thread: string): string {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(join(dir, entry.name))
        : entry.name.endsWith(`-${thread}.jsonl`)
          ? [join(dir, entry.name)]
          : [],
    );
  const [found] = walk(join(world.home, ".codex", "sessions"));
  if (!found) throw new Error(`no rollout for thread ${thread}`);
  return found;
}

/** The requests that handed the model a wake: the file Vigil's queue notice names, read by the model. */
const wakeRequests = () =>
  world.api
    .main()
    .filter((r) => r.toolOutput?.includes("Vigil wake for session") || r.last.includes("Vigil wake for session"));

test("an idle open Codex TUI is woken by itself, in the same thread, once, with no second process", async () => {
  const thread = await openAndArm();
  const sampler = secondWriters();
  writeFileSync(flag(), "");
  const wake = await deliveredWake(thread);
  const seen = sampler.stop();
  expect(wake.deliveredVia).toBe(QUEUE_VIA);
  // The TUI ran the wake as its next turn, in the same thread: the model was sent it once, after the first prompt.
  await terminal?.waitFor("Vigil has a wake", "the TUI to show the wake's notice");
  expect(wakeRequests()).toHaveLength(1);
  expect(wakeRequests()[0]?.text).toContain("Wait for the build.");
  expect([...seen.values()]).toEqual([]);
});

test("a Codex TUI closed with /exit is woken within seconds through the app-server still holding its thread", async () => {
  const thread = await openAndArm();
  await terminal?.type("/exit");
  // The TUI is gone; its app-server keeps the thread's writer lock for about a minute.
  await terminal?.waitFor("CODEX-EXITED", "the TUI to exit");
  const sampler = secondWriters();
  const at = Date.now();
  writeFileSync(flag(), "");
  const wake = await deliveredWake(thread);
  const seen = sampler.stop();
  // Not a headless resume after the lock is let go (that is ~60 s): Codex's own app-server ran it.
  expect(wake.deliveredVia).toBe(QUEUE_VIA);
  expect([...seen.values()]).toEqual([]);
  expect(wakeRequests()).toHaveLength(1);
  process.stderr.write(`codex wake after /exit delivered ${Date.now() - at} ms after the check could pass\n`);
});

test("a busy Codex TUI takes the wake after its running turn, once, never through a second process", async () => {
  // The turn stays busy on its last answer until released.
  const gate = world.api.hold((r) => r.main && r.body.input?.at?.(-1)?.type === "function_call_output");
  terminal = await openAndAsk();
  await waitFor(() => gate.held() > 0, { timeoutMs: 120_000, what: "the turn to be busy on its last answer" });
  const thread = (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "codex")
    ?.id as string;
  const sampler = secondWriters();
  writeFileSync(flag(), "");
  // Queued in Codex's own queue while the turn runs; nothing else touches the thread.
  await untilCli(async () => (await vigil("inbox", "--all", "--session", thread))[0]?.state === "delivering", {
    timeoutMs: 30_000,
    what: "the wake to be on its way behind the running turn",
  }).catch((error: Error) => {
    throw new Error(
      `${error.message}\n--- vigil.log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-3000)}`,
    );
  });
  expect(wakeRequests()).toHaveLength(0);
  gate.release();
  const wake = await deliveredWake(thread);
  const seen = sampler.stop();
  expect(wake.deliveredVia).toBe(QUEUE_VIA);
  expect(wakeRequests()).toHaveLength(1);
  expect([...seen.values()]).toEqual([]);
});
