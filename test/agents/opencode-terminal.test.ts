/**
 * The real OpenCode TUI in a terminal (tmux), wired by `vigil setup opencode` alone (its plugin),
 * against the scripted fake Chat Completions API — one TUI session through its life: it binds itself
 * (the plugin, in the TUI's own server); idle and open it IS woken by itself — the plugin prompts
 * it with the wake through OpenCode's API, and the TUI shows the wake and the model's answer in the
 * same session, once, with no second OpenCode process on it (sampled from /proc); closed with /exit,
 * the session is resumed headless with the wake, once. Pre-seeded as test setup, never by the
 * product: the fake provider and model.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { untilCli } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import type { SeenRequest } from "./fake-model-api.js";
import { descendants, openTerminal, sampleProcesses, type Terminal } from "./terminal.js";
import { tail, tuiTurns } from "./tui-turns.js";

const world = useAgentWorld("opencode", ({ api, home }) => {
  const config = join(home, ".config", "opencode");
  mkdirSync(config, { recursive: true });
  const provider = {
    npm: "@ai-sdk/openai-compatible",
    name: "Fake",
    options: { baseURL: `${api.url}/v1`, apiKey: "sk-fake" },
    models: { "fake-model": { name: "Fake" } },
  };
  writeFileSync(
    join(config, "opencode.json"),
    JSON.stringify({ model: "fake/fake-model", provider: { fake: provider }, autoupdate: false, share: "disabled" }),
  );
  return { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", TERM: "xterm-256color" };
});
const vigil = (...args: string[]) => world.vigil(...args);

let terminal: Terminal | null = null;
afterEach(async () => {
  await terminal?.close();
  terminal = null;
});

const afterTool = (r: SeenRequest) => r.body.messages?.at(-1)?.role === "tool";
const { flag, log, arm, ask, idle, quit, shows, evidence, noneRan, wakeOf, wakeRequests, sentOnce } = tuiTurns(world, {
  idle: /^(?![\s\S]*esc interrupt)[\s\S]*ctrl\+p commands/i,
  afterTool,
  stopHook: null,
  program: /opencode/,
  logs: () => {
    // One log file per OpenCode process (the TUI, its server, each resume), newest last.
    const folder = join(world.home, ".local", "share", "opencode", "log");
    const files = (() => {
      try {
        return readdirSync(folder).map((name) => join(folder, name));
      } catch {
        return [];
      }
    })().sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
    return files.map((file) => `${file}:\n${tail(file, 8000)}`).join("\n") || `(no logs in ${folder})`;
  },
});
/** A second OpenCode process on the session: a headless `opencode run --session`. */
const resumes = () => sampleProcesses(world.home, (cmdline) => /opencode\S* run\b/.test(cmdline));

test("an idle open OpenCode TUI is woken by Vigil's plugin in the same session, once, with no second process; closed with /exit it is resumed once", async () => {
  terminal = await openTerminal(["bash", "-c", "opencode; echo OPENCODE-EXITED $?; exec sleep 600"], {
    cwd: world.work,
    env: world.env,
  });
  const tui = terminal;
  await shows(tui, "Ask anything", "the OpenCode TUI to be ready");
  const sampler = resumes();

  // Bound by the plugin, in the server the TUI runs, to the OpenCode process in this terminal.
  await ask(tui, arm("build-one", "build-late"));
  const session = await untilCli(
    async () => (await vigil("sessions")).find((s: { adapter: { kind: string } }) => s.adapter.kind === "opencode"),
    { what: "the TUI's session to bind itself" },
  ).catch(async (error: Error) => {
    throw await evidence(error, tui);
  });
  const sessionId = session.id as string;
  expect(descendants(await tui.pid())).toContain(session.adapter.pid);
  expect(await vigil("ls", "--session", sessionId)).toMatchObject([
    { state: "waiting", name: "build-one" },
    { state: "waiting", name: "build-late" },
  ]);

  // Idle and open, nothing typed: the plugin prompts the session with the wake through OpenCode's API.
  writeFileSync(flag("build-one"), "");
  const first = await wakeOf(sessionId, "build-one", "delivered", tui);
  expect(first.deliveredVia).toBe("OpenCode plugin (idle session prompted)");
  // The TUI shows the wake and the model's answer to it, in the session it has open.
  await shows(tui, `Vigil wake for session ${sessionId}`, "the TUI to show the wake");
  await shows(tui, /ack: [^\n]*read the output above/, "the TUI to show the model's answer to the wake");
  // Once: the same conversation (its history holds the prompt that armed the wait), one request.
  await sentOnce("build-one", tui);
  expect(wakeRequests("build-one")[0]?.text).toContain("Wait for build-one and build-late.");
  await noneRan(sampler.stop(), "second OpenCode process while the TUI is open", tui, sessionId);
  expect(log()).not.toContain("delivering turn");

  // Closed with /exit: the wake of the wait armed with the first resumes the session headless, once.
  await idle(tui);
  await sentOnce("build-one", tui);
  await quit(tui, "/exit", "OPENCODE-EXITED");
  const closed = resumes();
  writeFileSync(flag("build-late"), "");
  const third = await wakeOf(sessionId, "build-late", "delivered", tui);
  const seen = closed.stop();
  expect(third.deliveredVia).toBe("opencode run --session (headless)");
  await sentOnce("build-late", tui);
  expect(new Set(seen.values())).toEqual(new Set([`opencode run --session ${sessionId} --format json`]));
});
