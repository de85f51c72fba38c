/**
 * Driving one agent TUI's turns in a terminal for the terminal tests of Gemini CLI, Copilot CLI and
 * OpenCode: type a prompt and wait until its turn has ended for good, find a wake by its wait's
 * name, quit with a slash command.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../helpers/daemon.js";
import type { AgentWorld } from "./agent-world.js";
import type { SeenRequest } from "./fake-model-api.js";
import { processes, type Terminal } from "./terminal.js";

export interface TuiShape {
  /** The screen of an idle TUI (its input ready, no turn running). */
  idle: RegExp;
  /** Does the request end with a tool's result (the fake model answers it with text, ending the turn)? */
  afterTool(request: SeenRequest): boolean;
  /** A command line of the agent's end-of-turn hook while it runs (none: the agent has none). */
  stopHook: string | null;
}

export function tuiTurns(world: AgentWorld, shape: TuiShape) {
  const flag = (name: string) => join(world.work, name);
  const log = () => readFileSync(join(world.vigilHome, "vigil.log"), "utf8");

  /** The model requests that carried the wake of `name`'s wait. */
  const wakeRequests = (name: string) =>
    world.api.main().filter((r) => r.last.includes("Vigil wake for session") && r.last.includes(`"${name}"`));

  async function idle(tui: Terminal) {
    await tui.waitFor(shape.idle, "the TUI to be idle", 60_000);
    const hook = shape.stopHook;
    if (hook)
      await waitFor(() => ![...processes().values()].some((cmdline) => cmdline.includes(hook)), {
        everyMs: 200,
        what: "the turn's end-of-turn hook to have run",
      });
  }

  return {
    flag,
    log,
    wakeRequests,
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
        throw new Error(
          `${error.message}\n--- vigil.log ---\n${log().slice(-2000)}\n--- terminal ---\n${await tui.screen()}`,
        );
      });
      await idle(tui);
    },

    /** The wake of the wait named `name` once it is in `state`. */
    async wakeOf(sessionId: string, name: string, state: string, terminal?: Terminal | null) {
      return waitFor(
        async () =>
          (await world.vigil("inbox", "--all", "--session", sessionId)).find(
            (w: { state: string; text: string }) => w.state === state && w.text.includes(`"${name}"`),
          ),
        // Each look runs the `vigil` CLI (a Node process): not back to back, the agent needs the CPU.
        { timeoutMs: 90_000, everyMs: 300, what: `the wake of ${name} to be ${state}` },
      ).catch(async (error: Error) => {
        const wakes = await world.vigil("inbox", "--all", "--session", sessionId).catch(() => []);
        throw new Error(
          `${error.message}\n--- wakes ---\n${JSON.stringify(wakes).slice(0, 2000)}\n--- vigil.log ---\n${log().slice(-3000)}\n--- terminal ---\n${await terminal?.screen()}`,
        );
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
      );
    },
  };
}
