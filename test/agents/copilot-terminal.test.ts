/**
 * The real GitHub Copilot CLI TUI in a terminal (tmux), wired by `vigil setup copilot` alone,
 * against the scripted fake Chat Completions API (BYOK, offline) — one TUI session through its whole
 * life: it binds itself at its first prompt (Copilot runs sessionStart then); idle and open it is NOT
 * woken by itself (the wake stays ready, held for its hooks) and its next prompt takes the wake
 * (userPromptSubmitted); a live turn takes a wake through its agentStop hook, the same session going
 * on; no second Copilot process ever runs on the session while the TUI is open (sampled from /proc);
 * closed with /exit, the session is resumed headless with the wake, once. Pre-seeded as test setup,
 * never by the product: the BYOK provider, offline mode, the folder's trust, `--allow-all-tools`
 * (tool approval, as in the headless test), and a shared cache for the package Copilot unpacks.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { CLI_CACHE } from "./agent-clis.js";
import { useAgentWorld } from "./agent-world.js";
import type { SeenRequest } from "./fake-model-api.js";
import { descendants, openTerminal, sampleProcesses, type Terminal } from "./terminal.js";
import { tuiTurns } from "./tui-turns.js";

const world = useAgentWorld("copilot", ({ api, home, work }) => {
  mkdirSync(join(home, ".copilot"), { recursive: true });
  // What Copilot writes when the user answers its folder-trust prompt "Yes, and remember this folder".
  writeFileSync(join(home, ".copilot", "config.json"), JSON.stringify({ trustedFolders: [work] }));
  return {
    COPILOT_PROVIDER_BASE_URL: `${api.url}/v1`,
    COPILOT_MODEL: "fake-model",
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    // Copilot unpacks ~235 MB into $XDG_CACHE_HOME/copilot on first start: once, not per HOME.
    XDG_CACHE_HOME: join(CLI_CACHE, "xdg-cache"),
    TERM: "xterm-256color",
  };
});
const vigil = (...args: string[]) => world.vigil(...args);

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
});

const afterTool = (r: SeenRequest) => r.body.messages?.at(-1)?.role === "tool";
const { flag, log, arm, ask, idle, quit, wakeOf, wakeRequests, sentOnce } = tuiTurns(world, {
  idle: /^(?![\s\S]*esc to (cancel|stop|interrupt))[\s\S]*\/ commands/i,
  afterTool,
  stopHook: "hook copilot stop",
  program: /copilot/,
});
/** A second Copilot process on the session: a headless `copilot --resume=…`. */
const resumes = () => sampleProcesses(world.home, (cmdline) => /copilot\S* .*--resume=/.test(cmdline));

test("a Copilot CLI TUI binds at its first prompt, is not woken idle (its next prompt takes the wake), takes a live wake through agentStop, and is resumed once after /exit", async () => {
  terminal = await openTerminal(["bash", "-c", "copilot --allow-all-tools; echo COPILOT-EXITED; exec sleep 600"], {
    cwd: world.work,
    env: world.env,
  });
  const tui = terminal;
  await tui.waitFor("/ commands", "the Copilot CLI TUI to be ready");
  const sampler = resumes();

  // Bound at the first prompt (its sessionStart hook), to the Copilot process in this terminal.
  await ask(tui, arm("build-one"));
  const session = await untilCli(
    async () => (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "copilot"),
    { what: "the TUI's session to bind itself" },
  );
  const sessionId = session.id as string;
  expect(descendants(await tui.pid())).toContain(session.adapter.pid);

  // Idle and open: the wake is held for the session's hooks, not delivered by itself.
  expect(await vigil("ls", "--session", sessionId)).toMatchObject([{ state: "waiting", name: "build-one" }]);
  writeFileSync(flag("build-one"), "");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), {
    timeoutMs: 30_000,
    what: "the ready wake to be held for the open TUI",
  });
  // Observed across a re-check of the hold (every 2 s): still ready, nothing sent to the model.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  await wakeOf(sessionId, "build-one", "ready", tui);
  expect(wakeRequests("build-one")).toHaveLength(0);

  // The next prompt typed takes it (userPromptSubmitted), in the same session.
  await ask(tui, "What happened meanwhile");
  const first = await wakeOf(sessionId, "build-one", "delivered", tui);
  expect(first.deliveredVia).toBe("Copilot CLI userPromptSubmitted hook");
  await sentOnce("build-one", tui);
  expect(wakeRequests("build-one")[0]?.last).toContain("What happened meanwhile");

  // A live turn (held on its last answer) takes the wake through agentStop: the session goes on.
  const gate = world.api.hold((r) => r.main && r.last.includes("build-two") && afterTool(r));
  await tui.type(arm("build-two"));
  await waitFor(() => gate.held() > 0, { timeoutMs: 90_000, what: "the turn to be busy on its last answer" });
  writeFileSync(flag("build-two"), "");
  await wakeOf(sessionId, "build-two", "ready", tui);
  gate.release();
  const second = await wakeOf(sessionId, "build-two", "delivered", tui);
  expect(second.deliveredVia).toBe("Copilot CLI agentStop hook");
  // (Delivered once the transcript shows it; the model is sent it right after.)
  await tui.waitFor(`[vigil ${second.id} `, "the TUI to show the model's answer to the wake");
  await sentOnce("build-two", tui);
  // Straight on from the held turn: its conversation, then no prompt typed before the wake.
  const held = world.api.main().find((r) => r.last.includes("build-two") && afterTool(r));
  const messages = wakeRequests("build-two")[0]?.body.messages;
  expect(messages.slice(0, held?.body.messages.length)).toEqual(held?.body.messages);
  expect([...sampler.stop().values()]).toEqual([]);
  expect(log()).not.toContain("delivering turn");

  // Closed with /exit: the next wake resumes the session headless, once.
  await idle(tui);
  // (Armed only now, so that the resume carries this one wake. Written when a stream of changes kept
  // pushing back the daemon's handover re-check; that is fixed: HANDOVER_RECHECK_MS, delivery/handovers.ts.)
  await ask(tui, arm("build-late"));
  await quit(tui, "/exit", "COPILOT-EXITED");
  const closed = resumes();
  writeFileSync(flag("build-late"), "");
  const third = await wakeOf(sessionId, "build-late", "delivered", tui);
  const seen = closed.stop();
  expect(third.deliveredVia).toBe("copilot --resume (headless)");
  await sentOnce("build-late", tui);
  // One resume (npm's launcher and the binary it starts carry the same command line).
  expect(new Set([...seen.values()].map((cmdline) => cmdline.replace(/^.*?copilot\S* /, ""))).size).toBe(1);
  expect([...seen.values()][0]).toContain(`--resume=${sessionId}`);
});
