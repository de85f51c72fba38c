/**
 * Agent TUIs in real terminals for the agent tests: tmux on its own socket (`-L`, no user config),
 * one server per terminal, killed with its processes when the test ends. tmux comes from apt when
 * it is missing and the tests run as root (as Chromium does); otherwise the tests fail saying so.
 * Also a sampler of /proc, to show that no second agent process ever ran on a live session.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
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
  /** What the terminal shows now. */
  screen(): Promise<string>;
  /** Waits until the screen matches. */
  waitFor(pattern: RegExp | string, what: string, timeoutMs?: number): Promise<string>;
  /** The pid of the program the terminal runs. */
  pid(): Promise<number>;
  close(): Promise<void>;
}

/** Runs `argv` in a new 200×50 terminal in `cwd` with exactly `env`. */
export async function openTerminal(
  argv: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<Terminal> {
  ensureTmux();
  const socket = `vigil-test-${process.pid}-${++counter}`;
  const tmux = (...args: string[]) =>
    execa("tmux", ["-L", socket, "-f", "/dev/null", ...args], { env: options.env, extendEnv: false });
  await tmux("new-session", "-d", "-x", "200", "-y", "50", "-c", options.cwd, "--", ...argv);
  const screen = async () => (await tmux("capture-pane", "-p", "-J")).stdout;
  const terminal: Terminal = {
    async type(text) {
      await tmux("send-keys", "-l", text);
      // A pasted line and its Enter apart, as a person types them.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tmux("send-keys", "Enter");
    },
    screen,
    async waitFor(pattern, what, timeoutMs = 60_000) {
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
        throw new Error(`${(error as Error).message}\n--- the terminal shows ---\n${last}`);
      }
    },
    async pid() {
      return Number((await tmux("display-message", "-p", "#{pane_pid}")).stdout.trim());
    },
    async close() {
      await tmux("kill-server").catch(() => undefined);
      rmSync(join(`/tmp/tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
    },
  };
  return terminal;
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

/**
 * Samples /proc every few milliseconds until stopped, keeping every process whose command line
 * matches: what ran on a session while the test watched.
 */
export function sampleProcesses(matches: (cmdline: string) => boolean): { stop(): Map<number, string> } {
  const seen = new Map<number, string>();
  const timer = setInterval(() => {
    for (const [pid, cmdline] of processes()) if (matches(cmdline)) seen.set(pid, cmdline);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return seen;
    },
  };
}
