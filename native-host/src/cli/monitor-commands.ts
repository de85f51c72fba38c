/**
 * `vigil ls|show|events|pause|resume|cancel|wait|watch`.
 * Design: docs/design.md §7.
 */
import { type Command, Option } from "commander";
import type { Condition } from "../../../shared/schemas/conditions.js";
import { ApiClient, CliError } from "../api/client.js";
import { ensureSession } from "../api/sessions.js";
import { homeOf, print, sessionOf } from "./context.js";
import { monitorBlock, statusLine } from "./format.js";

const SESSION_HELP = "session (default: $VIGIL_SESSION or 'default')";

function seconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new CliError(`Expected ${flag} to be a number of seconds, got ${raw}`, 2);
  return value;
}

interface PredicateOptions {
  contains?: string;
  notContains?: string;
  regex?: string;
  onChange?: boolean;
  jsonPath?: string;
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
}

/** The engine's predicates (design.md §3) as conditions over the command observation. */
export function predicateCondition(options: PredicateOptions): Condition | undefined {
  const chosen: Condition[] = [];
  if (options.contains !== undefined) chosen.push({ path: "output", operator: "contains", value: options.contains });
  if (options.notContains !== undefined)
    chosen.push({ path: "output", operator: "not_contains", value: options.notContains });
  if (options.regex !== undefined) chosen.push({ path: "output", operator: "regex", value: options.regex });
  if (options.onChange) chosen.push({ path: "output", operator: "changed" });
  for (const operator of ["gt", "gte", "lt", "lte"] as const) {
    const raw = options[operator];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new CliError(`Expected --${operator} to be a number, got ${raw}`, 2);
    const path = options.jsonPath === undefined ? "output" : `json${options.jsonPath ? `.${options.jsonPath}` : ""}`;
    chosen.push({ path, operator, value });
  }
  if (chosen.length > 1) throw new CliError("Expected at most one predicate flag, got several", 2);
  return chosen[0];
}

const TERMINAL_EXIT: Record<string, number> = { met: 0 };

/** Shows a live status line until the monitor leaves waiting/paused; exit 0 when met. */
async function follow(client: ApiClient, sid: string, mid: string): Promise<void> {
  const tty = process.stderr.isTTY;
  let printed = "";
  for (;;) {
    const view = await client.call("getMonitor", { params: { sid, mid } });
    const line = statusLine(view);
    // A terminal gets one line redrawn in place; a log gets a line only when something changed.
    const changed = line.replace(/ · (next check|deadline) [^·]*/g, "") !== printed;
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
    else if (changed) process.stderr.write(`${line}\n`);
    printed = line.replace(/ · (next check|deadline) [^·]*/g, "");
    if (view.state !== "waiting" && view.state !== "paused") {
      if (tty) process.stderr.write("\n");
      const reason = view.ending?.reason ?? "stopped";
      process.exitCode = TERMINAL_EXIT[reason] ?? 1;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function controlCommand(program: Command, action: "pause" | "resume" | "cancel", description: string) {
  program
    .command(`${action} <monitor>`)
    .description(description)
    .option("--session <id>", SESSION_HELP)
    .action(async (mid: string, options: { session?: string }, command: Command) => {
      const sid = sessionOf(options);
      const view = await new ApiClient(homeOf(command)).call("controlMonitor", {
        params: { sid, mid },
        body: { action },
      });
      print(statusLine(view));
    });
}

export function registerMonitorCommands(program: Command): void {
  program
    .command("ls")
    .description("list a session's monitors")
    .option("--session <id>", SESSION_HELP)
    .option("--all", "every session")
    .option("--json", "print JSON")
    .action(async (options: { session?: string; all?: boolean; json?: boolean }, command: Command) => {
      const client = new ApiClient(homeOf(command));
      const sids = options.all ? (await client.call("listSessions")).map((s) => s.id) : [sessionOf(options)];
      const views = (await Promise.all(sids.map((sid) => client.call("listMonitors", { params: { sid } })))).flat();
      if (options.json) return print(JSON.stringify(views, null, 2));
      if (views.length === 0) return print("no monitors");
      for (const view of views) print(`${options.all ? `${view.sessionId} ` : ""}${statusLine(view)}`);
    });

  program
    .command("show <monitor>")
    .description("one monitor in full")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print the monitor view as JSON")
    .action(async (mid: string, options: { session?: string; json?: boolean }, command: Command) => {
      const view = await new ApiClient(homeOf(command)).call("getMonitor", {
        params: { sid: sessionOf(options), mid },
      });
      print(options.json ? JSON.stringify(view, null, 2) : monitorBlock(view));
    });

  program
    .command("events <monitor>")
    .description("a monitor's event log (last 200)")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print JSON")
    .action(async (mid: string, options: { session?: string; json?: boolean }, command: Command) => {
      const events = await new ApiClient(homeOf(command)).call("monitorEvents", {
        params: { sid: sessionOf(options), mid },
      });
      if (options.json) return print(JSON.stringify(events, null, 2));
      if (events.length === 0) return print("no events");
      for (const event of events) print(`#${event.seq} ${event.at} ${event.text}`);
    });

  program
    .command("checks <monitor>")
    .description("why did it not fire? each check's outcome (last 100)")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print JSON")
    .action(async (mid: string, options: { session?: string; json?: boolean }, command: Command) => {
      const checks = await new ApiClient(homeOf(command)).call("monitorChecks", {
        params: { sid: sessionOf(options), mid },
      });
      if (options.json) return print(JSON.stringify(checks, null, 2));
      if (checks.length === 0) return print("no checks yet");
      for (const c of checks) {
        const excerpt = c.excerpt ? ` · ${c.excerpt.split("\n")[0]}` : "";
        print(
          `#${c.seq} ${c.at} ${c.outcome.replace("_", " ")}${c.durationMs === null ? "" : ` (${c.durationMs} ms)`}${excerpt}`,
        );
      }
    });

  controlCommand(program, "pause", "pause checks (the deadline keeps running)");
  controlCommand(program, "resume", "resume checks (checks at once)");
  controlCommand(program, "cancel", "stop a monitor; wakes nobody");

  program
    .command("wait")
    .description("poll COMMAND until it exits 0 (or a predicate holds); prints the monitor id")
    .usage("--until N [options] -- COMMAND...")
    .option("--session <id>", SESSION_HELP)
    .addOption(new Option("--until <seconds>", "poll interval (floor 5 s)").makeOptionMandatory())
    .option("--timeout <seconds>", "deadline: 60–600 s (default 300; 1–59 use the default)")
    .option("--cwd <dir>", "working folder (default: this folder)")
    .option("--description <text>", "shown in every wake (default: the command)")
    .option("--continuation <text>", "a note to yourself, delivered with the wake")
    .option("--contains <text>", "met when the output contains TEXT")
    .option("--not-contains <text>", "met when the output does not contain TEXT")
    .option("--regex <re>", "met when the output matches RE")
    .option("--on-change", "met when the output differs from the first check's")
    .option("--json-path <path>", "compare a number in the JSON output at PATH (with --gt/--gte/--lt/--lte)")
    .option("--gt <n>")
    .option("--gte <n>")
    .option("--lt <n>")
    .option("--lte <n>")
    .option("--follow", "show a live status line until it ends (exit 0 when met)")
    .option("--json", "print the monitor view as JSON")
    .argument("<command...>", "the check, after --")
    .action(async (words: string[], options: Record<string, string | boolean | undefined>, command: Command) => {
      const client = new ApiClient(homeOf(command));
      const sid = sessionOf(options as { session?: string });
      await ensureSession(client, sid);
      const condition = predicateCondition(options as PredicateOptions);
      const view = await client.call("createMonitor", {
        params: { sid },
        body: {
          name: options.description as string | undefined,
          source: {
            kind: "command",
            command: words.join(" "),
            cwd: (options.cwd as string | undefined) ?? process.cwd(),
            ...(condition ? { condition } : {}),
          },
          intervalSeconds: seconds("--until", options.until as string),
          timeoutSeconds: seconds("--timeout", options.timeout as string | undefined),
          continuation: options.continuation as string | undefined,
        },
      });
      print(options.json ? JSON.stringify(view, null, 2) : view.id);
      if (options.follow) await follow(client, sid, view.id);
    });

  program
    .command("watch")
    .description("stream COMMAND's output lines as events; prints the monitor id")
    .usage("[options] -- COMMAND...")
    .option("--session <id>", SESSION_HELP)
    .option("--timeout <seconds>", "deadline: 60 s – 7 days (default 3600)")
    .option("--cwd <dir>", "working folder (default: this folder)")
    .option("--description <text>", "shown in every wake (default: the command)")
    .option("--continuation <text>", "a note to yourself, delivered with the wakes")
    .option("--json", "print the monitor view as JSON")
    .argument("<command...>", "the command, after --")
    .action(async (words: string[], options: Record<string, string | boolean | undefined>, command: Command) => {
      const client = new ApiClient(homeOf(command));
      const sid = sessionOf(options as { session?: string });
      await ensureSession(client, sid);
      const view = await client.call("createMonitor", {
        params: { sid },
        body: {
          name: options.description as string | undefined,
          source: {
            kind: "watch",
            command: words.join(" "),
            cwd: (options.cwd as string | undefined) ?? process.cwd(),
          },
          timeoutSeconds: seconds("--timeout", options.timeout as string | undefined),
          continuation: options.continuation as string | undefined,
        },
      });
      print(options.json ? JSON.stringify(view, null, 2) : view.id);
    });
}
