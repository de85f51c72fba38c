/**
 * `vigil ls|show|events|checks|pause|resume|cancel|wait|watch`.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { regexRefusal } from "../../../shared/linear-regex.js";
import type { Condition } from "../../../shared/schemas/conditions.js";
import { MonitorRefSchema } from "../../../shared/schemas/ids.js";
import type { CheckEntry, MonitorView } from "../../../shared/schemas/views.js";
import { ApiClient } from "../api/client.js";
import { ensureSession } from "../api/sessions.js";
import { armingSessionOf, homeOf, print, printError, printJson, SESSION_HELP, sessionOf } from "./context.js";
import { follow } from "./follow.js";
import { checkOutputBlock, monitorBlock, statusLine } from "./format.js";
import { existingFolder, optionalSeconds, parseId, parseNumber, parseSeconds, usageError } from "./options.js";

const NO_OUTPUT = "no output kept (a command check keeps its output: its last check's and its last failing one's)";

/** " · exit 1" for a command check, nothing for another kind. */
const exitOf = (check: CheckEntry): string =>
  check.exitCode === undefined || check.exitCode === null ? "" : ` · exit ${check.exitCode}`;

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

const COMPARATORS = ["gt", "gte", "lt", "lte"] as const;

/**
 * The engine's predicates (design.md §3) as conditions over the command observation. A comparator
 * compares the number at --json-path; either one alone means nothing and is a usage error.
 */
export function predicateCondition(options: PredicateOptions): Condition | undefined {
  const comparators = COMPARATORS.filter((operator) => options[operator] !== undefined);
  if (options.jsonPath !== undefined && comparators.length === 0)
    throw usageError("Expected --gt, --gte, --lt or --lte with --json-path, got none");
  if (options.jsonPath === undefined && comparators.length > 0)
    throw usageError(`Expected --json-path PATH with --${comparators[0]}, got none`);
  const chosen: Condition[] = [];
  if (options.contains !== undefined) chosen.push({ path: "output", operator: "contains", value: options.contains });
  if (options.notContains !== undefined)
    chosen.push({ path: "output", operator: "not_contains", value: options.notContains });
  if (options.regex !== undefined) {
    const refusal = regexRefusal(options.regex);
    if (refusal) throw usageError(`--regex: ${refusal}`);
    chosen.push({ path: "output", operator: "regex", value: options.regex });
  }
  if (options.onChange) chosen.push({ path: "output", operator: "changed" });
  for (const operator of comparators) {
    const value = parseNumber(`--${operator}`, options[operator] as string);
    chosen.push({ path: `json${options.jsonPath ? `.${options.jsonPath}` : ""}`, operator, value });
  }
  if (chosen.length > 1) throw usageError("Expected at most one predicate flag, got several");
  return chosen[0];
}

function controlCommand(program: Command, action: "pause" | "resume" | "cancel", description: string) {
  program
    .command(`${action} <monitor>`)
    .description(description)
    .option("--session <id>", SESSION_HELP)
    .action(async (mid: string, options: { session?: string }, command: Command) => {
      const sid = sessionOf(options, command);
      const view = await new ApiClient(homeOf(command)).call("controlMonitor", {
        params: { sid, mid: parseId(MonitorRefSchema, mid) },
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
    .option("--all", "every session of this host")
    .option("--all-hosts", "every session of every host (team mode), each line with its host")
    .option("--json", "print JSON")
    .action(
      async (options: { session?: string; all?: boolean; allHosts?: boolean; json?: boolean }, command: Command) => {
        const client = new ApiClient(homeOf(command));
        if (options.all || options.allHosts) {
          const host = options.allHosts ? undefined : (await client.call("status")).host.name;
          const rows = await everyMonitor(client, host);
          if (options.json) return printJson(rows.map((row) => row.monitor));
          if (rows.length === 0) return print("no monitors");
          for (const row of rows)
            print(
              `${options.allHosts ? `${row.host ?? "-"} ` : ""}${row.monitor.sessionId} ${statusLine(row.monitor)}`,
            );
          return;
        }
        const views = await client.call("listMonitors", { params: { sid: sessionOf(options, command) } });
        if (options.json) return printJson(views);
        if (views.length === 0) return print("no monitors");
        for (const view of views) print(statusLine(view));
      },
    );

  program
    .command("show <monitor>")
    .description("one monitor in full; a command monitor's last check with its exit code and last 20 output lines")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print the monitor view as JSON")
    .option("--output", "print all the output its check log keeps (the last check's and the last failing one's)")
    .action(async (mid: string, options: { session?: string; json?: boolean; output?: boolean }, command: Command) => {
      const client = new ApiClient(homeOf(command));
      const params = { sid: sessionOf(options, command), mid: parseId(MonitorRefSchema, mid) };
      const view = await client.call("getMonitor", { params });
      if (options.json) return printJson(view);
      print(monitorBlock(view));
      if (options.output) print(checkOutputBlock(await client.call("monitorChecks", { params }), true) ?? NO_OUTPUT);
    });

  program
    .command("events <monitor>")
    .description("a monitor's event log (last 200)")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print JSON")
    .action(async (mid: string, options: { session?: string; json?: boolean }, command: Command) => {
      const events = await new ApiClient(homeOf(command)).call("monitorEvents", {
        params: { sid: sessionOf(options, command), mid: parseId(MonitorRefSchema, mid) },
      });
      if (options.json) return printJson(events);
      if (events.length === 0) return print("no events");
      for (const event of events) print(`#${event.seq} ${event.at} ${event.text}`);
    });

  program
    .command("checks <monitor>")
    .description(
      "why did it not fire? each check's outcome (last 100, with a command's exit code), then the last kept output's last 20 lines",
    )
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print JSON")
    .option("--output", "print all the output kept (the last check's and the last failing one's), not its last lines")
    .action(async (mid: string, options: { session?: string; json?: boolean; output?: boolean }, command: Command) => {
      const checks = await new ApiClient(homeOf(command)).call("monitorChecks", {
        params: { sid: sessionOf(options, command), mid: parseId(MonitorRefSchema, mid) },
      });
      if (options.json) return printJson(checks);
      if (checks.length === 0) return print("no checks yet");
      for (const c of checks) {
        const excerpt = c.excerpt ? ` · ${c.excerpt.split("\n")[0]}` : "";
        print(
          `#${c.seq} ${c.at} ${c.outcome.replace("_", " ")}${c.durationMs === null ? "" : ` (${c.durationMs} ms)`}${exitOf(c)}${excerpt}`,
        );
      }
      const output = checkOutputBlock(checks, options.output === true);
      if (output !== null) print(output);
      else if (options.output) print(NO_OUTPUT);
    });

  controlCommand(program, "pause", "pause checks (the deadline keeps running)");
  controlCommand(program, "resume", "resume checks (checks at once)");
  controlCommand(program, "cancel", "stop a monitor; wakes nobody");

  program
    .command("wait")
    .description("arm a command wait: poll COMMAND until it exits 0 (or a predicate holds); prints the monitor id")
    .usage("--until N [options] -- COMMAND...")
    .option("--session <id>", SESSION_HELP)
    .option("--until <seconds>", "required: check every N seconds (floor 5 s)")
    .option("--timeout <seconds>", "deadline: 60–600 s (default 300; 1–59 use the default)")
    .option("--cwd <dir>", "an existing folder to run the check in (default: this folder)")
    .option("--description <text>", "shown in every wake (default: the command)")
    .option("--continuation <text>", "a note to yourself, delivered with the wake")
    .option("--contains <text>", "met when the output contains TEXT")
    .option("--not-contains <text>", "met when the output does not contain TEXT")
    .option("--regex <re>", "met when the output matches RE")
    .option("--on-change", "met when the output differs from the first check's")
    .option("--json-path <path>", "the number at PATH in stdout parsed as JSON, compared by one of:")
    .option("--gt <n>", "met when the number at --json-path is greater than N")
    .option("--gte <n>", "met when the number at --json-path is at least N")
    .option("--lt <n>", "met when the number at --json-path is less than N")
    .option("--lte <n>", "met when the number at --json-path is at most N")
    .option("--follow", "stay until it ends, with progress on a terminal; exit 0 when met, else 1")
    .option("--json", "print the monitor view as JSON")
    .argument("<command...>", "the check, after --")
    .action(async (words: string[], options: WaitOptions, command: Command) => {
      // Everything the command line says is checked before the daemon is asked anything.
      if (options.until === undefined) throw usageError("required option '--until <seconds>' not specified");
      const intervalSeconds = parseSeconds("--until", options.until);
      const timeoutSeconds = optionalSeconds("--timeout", options.timeout);
      const cwd = existingFolder("--cwd", options.cwd);
      const condition = predicateCondition(options);
      const client = new ApiClient(homeOf(command));
      const sid = armingSessionOf(options, command);
      await ensureSession(client, sid);
      const view = await client.call("createMonitor", {
        params: { sid },
        body: {
          name: options.description,
          source: { kind: "command", command: words.join(" "), cwd, ...(condition ? { condition } : {}) },
          intervalSeconds,
          timeoutSeconds,
          continuation: options.continuation,
        },
      });
      sayAdjusted(view);
      if (options.json) printJson(view);
      else print(view.id);
      if (options.follow) await follow(client, sid, view.id);
    });

  program
    .command("watch")
    .description("arm a watch: run COMMAND and turn each line it prints into an event; prints the monitor id")
    .usage("[options] -- COMMAND...")
    .option("--session <id>", SESSION_HELP)
    .option("--timeout <seconds>", "deadline: 60 s – 7 days (default 3600)")
    .option("--cwd <dir>", "an existing folder to run the command in (default: this folder)")
    .option("--description <text>", "shown in every wake (default: the command)")
    .option("--continuation <text>", "a note to yourself, delivered with the wakes")
    .option("--json", "print the monitor view as JSON")
    .argument("<command...>", "the command, after --")
    .action(async (words: string[], options: CreateOptions, command: Command) => {
      const timeoutSeconds = optionalSeconds("--timeout", options.timeout);
      const cwd = existingFolder("--cwd", options.cwd);
      const client = new ApiClient(homeOf(command));
      const sid = armingSessionOf(options, command);
      await ensureSession(client, sid);
      const view = await client.call("createMonitor", {
        params: { sid },
        body: {
          name: options.description,
          source: { kind: "watch", command: words.join(" "), cwd },
          timeoutSeconds,
          continuation: options.continuation,
        },
      });
      if (options.json) return printJson(view);
      print(view.id);
    });
}

interface CreateOptions {
  session?: string;
  timeout?: string;
  cwd?: string;
  description?: string;
  continuation?: string;
  json?: boolean;
}

interface WaitOptions extends CreateOptions, PredicateOptions {
  until?: string;
  follow?: boolean;
}

const FLAGS = { intervalSeconds: "--until", timeoutSeconds: "--timeout" } as const;

/** One line on stderr per value the daemon raised or lowered (the JSON carries them as `adjusted`). */
function sayAdjusted(view: MonitorView): void {
  for (const a of view.adjusted ?? []) {
    printError(
      `vigil: ${FLAGS[a.field]} ${a.asked} ${a.used > a.asked ? "raised" : "lowered"} to ${a.used} s: ${a.why}`,
    );
  }
}

/** Every session's monitors through the panel route: one request per 500 monitors, not one per session. */
/** Every monitor (of one host's sessions, given its name), each with its session's host name. */
async function everyMonitor(
  client: ApiClient,
  host?: string,
): Promise<Array<{ monitor: MonitorView; host: string | null }>> {
  const rows: Array<{ monitor: MonitorView; host: string | null }> = [];
  for (let offset = 0; ; ) {
    const page = await client.call("panel", { query: { offset, limit: 500, ...(host ? { host } : {}) } });
    const names = new Map(page.hosts.map((h) => [h.id, h.name]));
    const hostOf = new Map(page.sessions.map((s) => [s.id, s.host ? (names.get(s.host) ?? null) : null]));
    rows.push(...page.items.map((item) => ({ monitor: item.monitor, host: hostOf.get(item.session.id) ?? null })));
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) return rows;
  }
}
