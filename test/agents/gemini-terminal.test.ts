/**
 * The real Gemini CLI TUI in a terminal (tmux), wired by `vigil setup gemini` alone, against the
 * scripted fake Gemini API — one TUI session through its whole life: it binds itself when the TUI
 * starts; idle and open it is NOT woken by itself (the wake stays ready, held for its hooks) and its
 * next prompt takes the wake (BeforeAgent); a live turn takes a wake through its AfterAgent hook,
 * the same turn going on; no second Gemini process ever runs on the session while the TUI is open
 * (sampled from /proc); closed with /quit, the session is resumed headless with the wake, once.
 * Pre-seeded as test setup, never by the product: the API-key auth choice, the folder's trust, and
 * `--yolo` (tool approval), as in the headless test.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import type { SeenRequest } from "./fake-model-api.js";
import { fakeGeminiHome } from "./gemini-home.js";
import { descendants, openTerminal, sampleProcesses, type Terminal } from "./terminal.js";
import { tail, tuiTurns } from "./tui-turns.js";

const world = useAgentWorld("gemini", ({ api, home, work, root }) => ({
  ...fakeGeminiHome(home, work, api.url),
  TERM: "xterm-256color",
  // Gemini CLI's own log (what its debug console shows), for when a step fails.
  GEMINI_DEBUG_LOG_FILE: join(root, "gemini-debug.log"),
}));
const vigil = (...args: string[]) => world.vigil(...args);

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
});

/** Does the request end with a tool's result (the fake model answers it with text, ending the turn)? */
const afterTool = (r: SeenRequest) =>
  (r.body.contents?.at(-1)?.parts ?? []).some((p: { functionResponse?: unknown }) => p.functionResponse);
const { flag, log, arm, ask, idle, quit, shows, evidence, noneRan, wakeOf, wakeRequests, sentOnce } = tuiTurns(world, {
  idle: /^(?![\s\S]*esc to cancel)[\s\S]*Type your message/,
  afterTool,
  stopHook: "hook gemini stop",
  program: /gemini/,
  logs: () => tail(join(world.root, "gemini-debug.log")),
});
/**
 * Every turn's AfterAgent hook has run to its end, by Gemini CLI's own log. The TUI shows its prompt
 * while that hook still runs (it took 0.9 s in a loaded CI run), and a wake ready before the hook's
 * end is taken by it as a live wake: the idle step must start after.
 */
const turnsEnded = () => {
  const text = tail(join(world.root, "gemini-debug.log"), 1_000_000);
  const count = (what: string) => text.split(what).length - 1;
  return count("Hook execution for AfterAgent") >= count("Hook execution for BeforeAgent");
};

/** A second Gemini process on the session: a headless `gemini --resume`. */
const resumes = () => sampleProcesses(world.home, (cmdline) => /gemini\S* .*--resume /.test(cmdline));

test("a Gemini CLI TUI binds itself, is not woken idle (its next prompt takes the wake), takes a live wake through AfterAgent, and is resumed once after /quit", async () => {
  terminal = await openTerminal(["bash", "-c", "gemini --yolo; echo GEMINI-EXITED $?; exec sleep 600"], {
    cwd: world.work,
    env: world.env,
    // (Else an Enter read within 30 ms of the last typed character is taken as a newline.)
    beforeEnter: ["End"],
  });
  const tui = terminal;
  await shows(tui, "Type your message", "the Gemini CLI TUI to be ready");

  // Bound when the TUI started (its SessionStart hook), to the Gemini process in this terminal.
  const session = await untilCli(
    async () => (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "gemini"),
    { what: "the TUI's session to bind itself" },
  ).catch(async (error: Error) => {
    throw await evidence(error, tui);
  });
  const sessionId = session.id as string;
  expect(descendants(await tui.pid())).toContain(session.adapter.pid);
  const sampler = resumes();

  // Idle and open: the wake is held for the session's hooks, not delivered by itself.
  await ask(tui, arm("build-one"));
  await waitFor(turnsEnded, { what: "the arming turn's AfterAgent hook to end" }).catch(async (error: Error) => {
    throw await evidence(error, tui, sessionId);
  });
  expect(await vigil("ls", "--session", sessionId)).toMatchObject([{ state: "waiting", name: "build-one" }]);
  writeFileSync(flag("build-one"), "");
  await waitFor(() => log().includes(`wakes of session ${sessionId} held`), {
    timeoutMs: 30_000,
    what: "the ready wake to be held for the open TUI",
  }).catch(async (error: Error) => {
    throw await evidence(error, tui, sessionId);
  });
  // Observed across a re-check of the hold (every 2 s): still ready, nothing sent to the model.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  await wakeOf(sessionId, "build-one", "ready", tui);
  expect(wakeRequests("build-one")).toHaveLength(0);

  // The next prompt typed takes it (BeforeAgent), in the same session.
  await ask(tui, "What happened meanwhile");
  const first = await wakeOf(sessionId, "build-one", "delivered", tui);
  expect(first.deliveredVia).toBe("Gemini CLI BeforeAgent hook");
  await sentOnce("build-one", tui);
  expect(wakeRequests("build-one")[0]?.last).toContain("What happened meanwhile");

  // A live turn (held on its last answer) takes the wake through AfterAgent: the same turn goes on.
  const gate = world.api.hold((r) => r.main && r.last.includes("build-two") && afterTool(r));
  await tui.type(arm("build-two"));
  await waitFor(() => gate.held() > 0, { timeoutMs: 90_000, what: "the turn to be busy on its last answer" }).catch(
    async (error: Error) => {
      throw await evidence(error, tui, sessionId);
    },
  );
  writeFileSync(flag("build-two"), "");
  await wakeOf(sessionId, "build-two", "ready", tui);
  gate.release();
  const second = await wakeOf(sessionId, "build-two", "delivered", tui);
  expect(second.deliveredVia).toBe("Gemini CLI AfterAgent hook");
  // (Delivered once the transcript shows it; the model is sent it right after.)
  await shows(tui, `[vigil ${second.id} `, "the TUI to show the model's answer to the wake");
  await sentOnce("build-two", tui);
  // The same turn went on: the wake's request is the held one's conversation, its answer and the wake.
  const held = world.api.main().find((r) => r.last.includes("build-two") && afterTool(r));
  const contents = wakeRequests("build-two")[0]?.body.contents;
  // (Gemini adds its own thought signatures to the history it sends again.)
  const plain = (value: unknown) => JSON.stringify(value, (key, v) => (key === "thoughtSignature" ? undefined : v));
  expect(plain(contents.slice(0, held?.body.contents.length))).toBe(plain(held?.body.contents));
  expect(contents).toHaveLength(held?.body.contents.length + 2);
  await noneRan(sampler.stop(), "second Gemini process while the TUI is open", tui, sessionId);
  expect(log()).not.toContain("delivering turn");

  // Closed with /quit: the next wake resumes the session headless, once.
  await idle(tui);
  // (Armed only now, so that the resume carries this one wake. Written when a stream of changes kept
  // pushing back the daemon's handover re-check; that is fixed: HANDOVER_RECHECK_MS, delivery/handovers.ts.)
  await ask(tui, arm("build-late"));
  await quit(tui, "/quit", "GEMINI-EXITED");
  const closed = resumes();
  writeFileSync(flag("build-late"), "");
  const third = await wakeOf(sessionId, "build-late", "delivered", tui);
  const seen = closed.stop();
  expect(third.deliveredVia).toBe("gemini --resume (headless)");
  await sentOnce("build-late", tui);
  expect(new Set([...seen.values()].map((cmdline) => cmdline.match(/--resume (\S+)/)?.[1]))).toEqual(
    new Set([sessionId]),
  );
});
