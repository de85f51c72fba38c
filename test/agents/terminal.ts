/**
 * Agent TUIs in real terminals for the agent tests: tmux on its own socket (`-L`, no user config),
 * one server per terminal, killed with its processes when the test ends. tmux comes from apt when
 * it is missing and the tests run as root (as Chromium does); otherwise the tests fail saying so.
 * Also a sampler of /proc, to show that no second agent process ever ran on a live session.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { waitFor } from "../helpers/daemon.js";

let checked = false;

/** tmux on PATH, installed with apt when missing and root; else an error saying what to install. */
export function ensureTmux(): void {
  if (checked) return;
  const has = () => {
    try {
      execFileSync("tmux", ["-V"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  };
  if (!has() && process.getuid?.() === 0) {
    execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "tmux"], {
      stdio: "ignore",
      timeout: 300_000,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  }
  if (!has())
    throw new Error(
      "The terminal tests need tmux (3.x): install it (apt-get install tmux) or run the tests as root so they install it",
    );
  checked = true;
}

let counter = 0;

export interface Terminal {
  /** Types `text` literally, then presses Enter. */
  type(text: string): Promise<void>;
  /** Presses keys (tmux key names: Enter, C-c, …). */
  keys(...keys: string[]): Promise<void>;
  /** What the terminal shows now. */
  screen(): Promise<string>;
  /** What it showed: the screen with up to 500 lines scrolled off above it (for failure messages). */
  history(): Promise<string>;
  /** Waits until the screen matches. */
  waitFor(pattern: RegExp | string, what: string, timeoutMs?: number): Promise<string>;
  /** The pid of the program the terminal runs. */
  pid(): Promise<number>;
  close(): Promise<void>;
}

export interface TerminalOptions {
  cwd: string;
  env: Record<string, string>;
  /**
   * Keys pressed between the typed text showing and Enter. A TUI that takes an Enter coming right
   * after typed characters for part of a paste (a newline, not a submission) gets a key here that
   * is not a character (End): Gemini CLI does so for an Enter read within 30 ms of a character when
   * the terminal has no kitty keyboard protocol (tmux has none), and its reads of the two can come
   * that close however long the test waits in between (under load, both wait in one read).
   */
  beforeEnter?: string[];
}

/**
 * What says "no person is here" to a CLI: Gemini CLI runs headless when CI=true or
 * GITHUB_ACTIONS=true (`isHeadlessMode`) and, with no prompt, exits at once — in a terminal too. A
 * person's terminal has none of these, and `.ci/run` sets CI=true for the suite.
 */
const CI_MARKERS = /^(CI|GITHUB_ACTIONS|CONTINUOUS_INTEGRATION|BUILD_NUMBER|RUN_ID)$|^CI_/;

/** Runs `argv` in a new 200×50 terminal in `cwd` with `env`, less the CI markers (a person's terminal). */
export async function openTerminal(argv: string[], options: TerminalOptions): Promise<Terminal> {
  ensureTmux();
  const env = Object.fromEntries(Object.entries(options.env).filter(([key]) => !CI_MARKERS.test(key)));
  // Unique across the suite's workers and runs (a pid alone is reused over a long run).
  const socket = `vigil-test-${process.pid}-${++counter}-${randomBytes(4).toString("hex")}`;
  const tmux = (...args: string[]) =>
    execa("tmux", ["-L", socket, "-f", "/dev/null", ...args], { env, extendEnv: false });
  await tmux("new-session", "-d", "-x", "200", "-y", "50", "-c", options.cwd, "--", ...argv);
  const screen = async () => (await tmux("capture-pane", "-p", "-J")).stdout;
  const history = async () => (await tmux("capture-pane", "-p", "-J", "-S", "-500")).stdout;
  const terminal: Terminal = {
    async type(text) {
      // A TUI still starting may drop keys: typed again (the line cleared first) until it shows.
      const shown = text.slice(0, 40);
      const deadline = Date.now() + 30_000;
      for (;;) {
        await tmux("send-keys", "-l", text);
        const seen = await waitFor(async () => (await screen()).includes(shown), {
          timeoutMs: 5000,
          everyMs: 200,
          what: `the terminal to show what was typed (${shown})`,
        }).catch(async (error: Error) =>
          Date.now() > deadline
            ? Promise.reject(
                new Error(`${error.message}\n--- the terminal shows ---\n${await history().catch(String)}`),
              )
            : false,
        );
        if (seen) break;
        await tmux("send-keys", "C-u");
      }
      if (options.beforeEnter?.length) await tmux("send-keys", ...options.beforeEnter);
      await tmux("send-keys", "Enter");
    },
    async keys(...keys) {
      await tmux("send-keys", ...keys);
    },
    screen,
    history,
    async waitFor(pattern, what, timeoutMs = 120_000) {
      const matches = (text: string) => (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text));
      let last = "";
      try {
        return await waitFor(
          async () => {
            last = await screen();
            return matches(last) ? last : null;
          },
          { timeoutMs, everyMs: 200, what },
        );
      } catch (error) {
        const shown = await history().catch(
          (gone: Error) => `(the terminal is gone: ${gone.message})\n--- it showed last ---\n${last}`,
        );
        throw new Error(`${(error as Error).message}\n--- the terminal shows (and above it) ---\n${shown}`);
      }
    },
    async pid() {
      return Number((await tmux("display-message", "-p", "#{pane_pid}")).stdout.trim());
    },
    async close() {
      // Its programs end with it (all of them, before the test removes their folders).
      const pane = await terminal.pid().catch(() => null);
      const own = pane === null ? [] : [pane, ...descendants(pane)];
      await tmux("kill-server").catch(() => undefined);
      const alive = () => own.filter((pid) => existsSync(`/proc/${pid}`));
      await waitFor(() => alive().length === 0, { timeoutMs: 10_000, what: "the terminal's programs to end" }).catch(
        () => {
          for (const pid of alive()) process.kill(pid, "SIGKILL");
        },
      );
      rmSync(join(`/tmp/tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
    },
  };
  return terminal;
}

/** The processes below `pid` now (children, their children, …). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (of: number) => {
    for (const child of children.get(of) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The command lines of this user's processes now, by pid. */
export function processes(): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      found.set(Number(name), readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim());
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The HOME a process runs with (from /proc/<pid>/environ), or null once it is gone. */
export function homeOf(pid: number): string | null {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((variable) => variable.startsWith("HOME="));
    return entry ? entry.slice(5) : null;
  } catch {
    return null;
  }
}

/**
 * Samples /proc every few milliseconds until stopped, keeping every process of this test's world
 * (its HOME is `home`) whose command line matches: what ran on a session while the test watched.
 * (The other agent tests run beside this one, each with its own HOME: their processes are not this
 * session's.)
 */
export function sampleProcesses(home: string, matches: (cmdline: string) => boolean): { stop(): Map<number, string> } {
  const seen = new Map<number, string>();
  const timer = setInterval(() => {
    for (const [pid, cmdline] of processes())
      if (!seen.has(pid) && matches(cmdline) && homeOf(pid) === home) seen.set(pid, cmdline);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return seen;
    },
  };
}
