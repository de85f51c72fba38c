/**
 * `vigil wait --follow`: stays with a monitor until it ends; exit 0 when met, 1 otherwise. On a
 * terminal one progress line (elapsed time, next check, last result) is redrawn in place and cleared
 * at the end; into a pipe or a file nothing is drawn. Either way the final status line goes to stderr.
 * Design: docs/design.md §3, §7.
 */
import type { CheckEntry, MonitorView } from "../../../shared/schemas/views.js";
import { STATE_LABELS } from "../../../shared/schemas/views.js";
import { formatDuration, relativeTimeDetailed } from "../../../shared/wording.js";
import type { ApiClient } from "../api/client.js";
import { showControls } from "../base/terminal-text.js";
import { printError } from "./context.js";
import { statusLine } from "./format.js";
import { EXIT } from "./options.js";

/** How often the follower asks the daemon (and redraws the line). */
const TICK_MS = 1000;

/**
 * A check's output on the one line redrawn in place: whitespace runs (newlines, tabs, \r) become one
 * space, every other control is shown, not acted on (an escape sequence would move the cursor).
 */
const flat = (text: string) => showControls(text.replace(/\s+/gu, " ").trim(), "");

/**
 * The progress line: `mon-3 waiting · 1m 5s elapsed · next check in 4s · last check 2s ago: not met
 * · curl: (7) …`, cut to fit `width` columns (a wrapped line cannot be redrawn in place).
 */
export function progressLine(view: MonitorView, lastCheck: CheckEntry | null, now: number, width: number): string {
  const parts = [
    `${view.id} ${STATE_LABELS[view.state]}`,
    `${formatDuration(now - Date.parse(view.createdAt))} elapsed`,
  ];
  // A paused monitor has no next check: its state says so.
  if (view.nextCheckAt && view.state !== "paused") {
    const due = Date.parse(view.nextCheckAt) - now;
    parts.push(due > 0 ? `next check in ${formatDuration(due)}` : "checking now");
  }
  if (lastCheck) {
    const excerpt = lastCheck.excerpt ? flat(lastCheck.excerpt.split("\n")[0] ?? "") : "";
    parts.push(
      `last check ${relativeTimeDetailed(lastCheck.at, now)}: ${lastCheck.outcome.replace("_", " ")}${excerpt ? ` · ${excerpt}` : ""}`,
    );
  } else parts.push("no check yet");
  return fitWidth(parts.join(" · "), width);
}

/** Cut to at most width - 1 characters (the last column would wrap on some terminals). */
export function fitWidth(line: string, width: number): string {
  const room = Math.max(10, width - 1);
  const chars = [...line];
  return chars.length <= room ? line : `${chars.slice(0, room - 1).join("")}…`;
}

/** One line of a terminal redrawn in place (\r, erase to end of line), and cleared at the end. */
export class LiveLine {
  #drawn = false;
  constructor(private readonly write: (text: string) => void) {}

  draw(line: string): void {
    this.write(`\r\x1b[K${line}`);
    this.#drawn = true;
  }

  clear(): void {
    if (this.#drawn) this.write("\r\x1b[K");
    this.#drawn = false;
  }
}

/** Progress is drawn only on a terminal: stdout a terminal (not piped), stderr (where it is drawn) too. */
export function drawsProgress(
  stdout: { isTTY?: boolean } = process.stdout,
  stderr: { isTTY?: boolean } = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return stdout.isTTY === true && stderr.isTTY === true && env.TERM !== "dumb";
}

const ended = (view: MonitorView) => view.state !== "waiting" && view.state !== "paused";

export async function follow(client: ApiClient, sid: string, mid: string): Promise<void> {
  const live = drawsProgress() ? new LiveLine((text) => process.stderr.write(text)) : null;
  // Ctrl-C stops following, not the wait: say where it is, leave the terminal clean.
  const interrupted = () => {
    live?.clear();
    printError(`vigil: stopped following ${mid}; it keeps waiting (vigil show ${mid} --session ${sid})`);
    process.exit(130);
  };
  process.once("SIGINT", interrupted);
  let checkedAt: string | null = null;
  let lastCheck: CheckEntry | null = null;
  try {
    for (;;) {
      const view = await client.call("getMonitor", { params: { sid, mid } });
      if (ended(view)) {
        live?.clear();
        printError(statusLine(view));
        process.exitCode = view.ending?.reason === "met" ? EXIT.done : EXIT.failed;
        return;
      }
      if (live) {
        if (view.lastCheckAt !== checkedAt) {
          checkedAt = view.lastCheckAt;
          lastCheck = (await client.call("monitorChecks", { params: { sid, mid } })).at(-1) ?? null;
        }
        live.draw(progressLine(view, lastCheck, Date.now(), process.stderr.columns || 80));
      }
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
  } finally {
    live?.clear();
    process.off("SIGINT", interrupted);
  }
}
