/**
 * Driving one agent TUI's turns in a terminal for the terminal tests of Gemini CLI, Copilot CLI and
 * OpenCode: type a prompt and wait until its turn has ended for good, find a wake by its wait's
 * name, quit with a slash command.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import type { AgentWorld } from "./agent-world.js";
import type { SeenRequest } from "./fake-model-api.js";
import { homeOf, processes, type Terminal } from "./terminal.js";

export interface TuiShape {
  /** The screen of an idle TUI (its input ready, no turn running). */
  idle: RegExp;
  /** Does the request end with a tool's result (the fake model answers it with text, ending the turn)? */
  afterTool(request: SeenRequest): boolean;
  /** A command line of the agent's end-of-turn hook while it runs (none: the agent has none). */
  stopHook: string | null;
  /** The agent's processes (command lines; this world's only), listed with their state when a step fails. */
  program: RegExp;
  /** The agent's own logs, for when a step fails (their tails). */
  logs?(): string;
}

/** The last `chars` characters of a file (an agent's log), or why there are none. */
export function tail(path: string, chars = 4000): string {
  try {
    return readFileSync(path, "utf8").slice(-chars) || "(empty)";
  } catch (error) {
    return `(${(error as Error).message})`;
  }
}

/** A process's state from /proc: "R (running)", "S (sleeping)", …, its parent and what it waits in. */
function processState(pid: number): string {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name: string) => status.match(new RegExp(`^${name}:\\s*(.*)$`, "m"))?.[1] ?? "?";
    const wchan = readFileSync(`/proc/${pid}/wchan`, "utf8");
    return `state ${field("State")}, parent ${field("PPid")}, threads ${field("Threads")}, waits in ${wchan || "-"}`;
  } catch {
    return "gone";
  }
}

export function tuiTurns(world: AgentWorld, shape: TuiShape) {
  const flag = (name: string) => join(world.work, name);
  const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");

  /**
   * Everything a failed step needs to be diagnosed from CI's output alone: the wakes, the daemon's
   * log, the agent's processes and logs, and the terminal with what scrolled off it.
   */
  async function evidence(error: Error, terminal?: Terminal | null, sessionId?: string): Promise<Error> {
    const wakes = sessionId
      ? JSON.stringify(await world.vigil("inbox", "--all", "--session", sessionId).catch(() => [])).slice(0, 2000)
      : "(no session yet)";
    const sessions = JSON.stringify(await world.vigil("sessions").catch((e: Error) => e.message)).slice(0, 2000);
    const agents = [...processes()]
      .filter(([pid, cmdline]) => shape.program.test(cmdline) && homeOf(pid) === world.home)
      .map(([pid, cmdline]) => `${pid} ${cmdline.slice(0, 200)}\n    ${processState(pid)}`)
      .join("\n");
    const requests = world.api
      .main()
      .map((r) => r.last.replace(/\s+/g, " ").slice(0, 100))
      .join("\n");
    return new Error(
      [
        error.message,
        `--- wakes ---\n${wakes}`,
        `--- sessions ---\n${sessions}`,
        `--- vigil.log ---\n${log().slice(-4000)}`,
        `--- the agent's processes ---\n${agents || "(none)"}`,
        `--- the model was sent (main conversation, last user text) ---\n${requests || "(nothing)"}`,
        ...(shape.logs ? [`--- the agent's logs ---\n${shape.logs()}`] : []),
        `--- terminal (and above it) ---\n${terminal ? await terminal.history().catch(String) : "(none)"}`,
      ].join("\n"),
      { cause: error },
    );
  }

  /** The model requests that carried the wake of `name`'s wait. */
  const wakeRequests = (name: string) =>
    world.api.main().filter((r) => r.last.includes("Vigil wake for session") && r.last.includes(`"${name}"`));

  /**
   * The model was sent the wake of `name`'s wait exactly once. A wake is marked delivered (and the
   * TUI shows it) before the agent sends the turn that carries it; under load that request comes a
   * little later, so this waits for the first before it counts.
   */
  async function sentOnce(name: string, tui: Terminal) {
    await waitFor(() => wakeRequests(name).length > 0, {
      timeoutMs: 60_000,
      what: `the model to be sent the wake of "${name}"`,
    }).catch(async (error: Error) => {
      throw await evidence(error, tui);
    });
    expect(wakeRequests(name)).toHaveLength(1);
  }

  /** Waits until the terminal shows `pattern`; failing, says all `evidence` has. */
  const shows = (tui: Terminal, pattern: RegExp | string, what: string, timeoutMs?: number) =>
    tui.waitFor(pattern, what, timeoutMs).catch(async (error: Error) => {
      throw await evidence(error, tui);
    });

  async function idle(tui: Terminal) {
    await shows(tui, shape.idle, "the TUI to be idle", 60_000);
    const hook = shape.stopHook;
    if (hook)
      await waitFor(
        () => ![...processes()].some(([pid, cmdline]) => cmdline.includes(hook) && homeOf(pid) === world.home),
        {
          timeoutMs: 60_000,
          everyMs: 200,
          what: "the turn's end-of-turn hook to have run",
        },
      ).catch(async (error: Error) => {
        throw await evidence(error, tui);
      });
  }

  return {
    flag,
    log,
    evidence,
    shows,
    wakeRequests,
    sentOnce,
    idle,
    /** A prompt that arms a wait per name (no spaces) in one shell call, each on the file `flag(name)`. */
    arm: (...names: string[]) =>
      `Wait for ${names.join(" and ")}. RUN: ${names
        .map((name) => `vigil wait --until 0.3 --timeout 120 --description "${name}" -- test -f ${flag(name)}`)
        .join(" && ")}`,

    /**
     * Types `text` and waits until its turn has ended for good: the model was sent the request it
     * answers with text (after the shell call when `text` runs one), and the TUI is idle again.
     */
    async ask(tui: Terminal, text: string) {
      const before = world.api.main().length;
      const runs = text.includes("RUN: ");
      await tui.type(text);
      await waitFor(
        () =>
          world.api
            .main()
            .slice(before)
            .some((r) => r.text.includes(text.slice(0, 30)) && (!runs || shape.afterTool(r))),
        { timeoutMs: 60_000, everyMs: 100, what: `the model to answer "${text.slice(0, 30)}"` },
      ).catch(async (error: Error) => {
        throw await evidence(error, tui);
      });
      await idle(tui);
    },

    /** Fails, saying all `evidence` has, when `seen` (a sampler's catch) holds any process. */
    async noneRan(seen: Map<number, string>, what: string, tui: Terminal, sessionId: string) {
      if (seen.size === 0) return;
      const ran = [...seen].map(([pid, cmdline]) => `${pid} ${cmdline}`).join("\n");
      throw await evidence(new Error(`Expected no ${what}, but these ran:\n${ran}`), tui, sessionId);
    },

    /** The wake of the wait named `name` once it is in `state`. */
    async wakeOf(sessionId: string, name: string, state: string, terminal?: Terminal | null) {
      return untilCli(
        async () =>
          (await world.vigil("inbox", "--all", "--session", sessionId)).find(
            (w: { state: string; text: string }) => w.state === state && w.text.includes(`"${name}"`),
          ),
        { timeoutMs: 90_000, what: `the wake of ${name} to be ${state}` },
      ).catch(async (error: Error) => {
        throw await evidence(error, terminal, sessionId);
      });
    },

    /** Types a slash command that ends the TUI; Enter again while a completion menu took the first. */
    async quit(tui: Terminal, command: string, exited: string) {
      await tui.type(command);
      await waitFor(
        async () => {
          if ((await tui.screen()).includes(exited)) return true;
          await tui.keys("Enter");
          return false;
        },
        { timeoutMs: 30_000, everyMs: 2000, what: "the TUI to exit" },
      ).catch(async (error: Error) => {
        throw await evidence(error, tui);
      });
    },
  };
}
