/**
 * `vigil status`, `vigil sessions …`, `vigil inbox`.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { SessionIdSchema, WakeIdSchema } from "../../../shared/schemas/ids.js";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import type { WakeView } from "../../../shared/schemas/views.js";
import { checkLoadLine, countOf, overloadText, turnText } from "../../../shared/wording.js";
import { ApiClient, CliError } from "../api/client.js";
import { readDaemonInfo } from "../base/home.js";
import { homePaths } from "../base/paths.js";
import { homeOf, print, printJson, SESSION_HELP, sessionOf } from "./context.js";
import { wakeBlock } from "./format.js";
import { optionalSeconds, parseId, parseSeconds, usageError } from "./options.js";

/** A wake named on the command line and its session: `--session`, else found from the wake id (unique). */
async function wakeTarget(raw: string, session: string | undefined, command: Command) {
  const wake = parseId(WakeIdSchema, raw);
  const client = new ApiClient(homeOf(command));
  const sid =
    session === undefined
      ? (await client.call("findWake", { params: { wid: wake } })).sessionId
      : parseId(SessionIdSchema, session, "--session");
  return { client, wake, sid };
}

export function registerSessionCommands(program: Command): void {
  program
    .command("status")
    .description("is the daemon running, and what is it doing")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const home = homeOf(command);
      const info = readDaemonInfo(homePaths(home));
      if (!info) throw new CliError(`not running (home ${home})`);
      const status = await new ApiClient(home).call("status");
      if (options.json) return printJson({ ...info, ...status, home }, undefined);
      print(`running · pid ${info.pid} · ${info.url} · home ${home}`);
      const roundTrip = status.databaseRoundTripMs === null ? "" : ` · round trip ${status.databaseRoundTripMs} ms`;
      print(
        `host ${status.host.name} · store ${status.store === "postgres" ? `PostgreSQL (team mode)${roundTrip}` : "SQLite"}`,
      );
      if (status.team) {
        const link =
          status.team.link === "listening"
            ? "listening"
            : `${status.team.link} (other hosts' changes are seen at each 5 s heartbeat meanwhile)`;
        print(`team link ${link} · ${countOf(status.team.heard, "notice")} heard · ${status.team.sent} sent`);
      }
      if (status.database)
        print(
          `DATABASE UNREACHABLE: ${status.database}; the daemon runs on, answers 503, and vigil signal spools until it is back`,
        );
      print(`sessions ${status.sessions ?? "?"} · next timer ${status.nextTimerAt ?? "none"}`);
      print(checkLoadLine(status.checks));
      const overload = overloadText(status.checks);
      if (overload) print(`OVERLOADED: ${overload}`);
      for (const channel of status.notify?.failing ?? [])
        print(`NOTIFY CHANNEL FAILING: ${channel.name}: ${channel.error} (vigil notify ls)`);
    });

  const sessions = program
    .command("sessions")
    .description("list sessions; its subcommands create, remove and configure one")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await new ApiClient(homeOf(command)).call("listSessions");
      if (options.json) return printJson(list);
      if (list.length === 0) return print("no sessions");
      // Team mode: with sessions of several hosts, each line says whose.
      const team = new Set(list.map((s) => s.host)).size > 1;
      for (const s of list)
        print(
          `${s.id}${s.label ? ` (${s.label})` : ""}${team ? ` · host ${s.host ?? "-"}` : ""} · adapter ${s.adapter.kind} · since ${s.createdAt}`,
        );
    });
  sessions
    .command("create <id>")
    .description("create a session (idempotent)")
    .option("--label <text>", "a label people see")
    .action(async (id: string, options: { label?: string }, command: Command) => {
      const session = await new ApiClient(homeOf(command)).call("createSession", {
        body: { id: parseId(SessionIdSchema, id), label: options.label, root: process.cwd() },
      });
      print(session.id);
    });
  sessions
    .command("rm <id>")
    .description("delete a session: cancels its monitors and pending wakes")
    .action(async (id: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).call("deleteSession", { params: { sid: parseId(SessionIdSchema, id) } });
      print(`deleted ${id}`);
    });

  sessions
    .command("set-adapter")
    .argument("<id>", "the session")
    .description("choose how the session's wakes are delivered")
    .usage("<id> (--inbox | --mcp | --webhook URL [--header NAME=VALUE]… | --command [--timeout N] -- PROGRAM ARGS…)")
    .option("--inbox", "wakes wait to be pulled (vigil inbox, the claim API)")
    .option("--mcp", "pushed through the session's connected `vigil mcp`")
    .option("--webhook <url>", "POST each turn, signed (Standard Webhooks)")
    .option("--header <name=value>", "extra webhook header (repeatable; values may hold ${secret:KEY})", collect)
    .option("--command", "run PROGRAM ARGS… per turn ({session}, {wake_id}, {wake_ids}, {turn} are filled in)")
    .option("--timeout <seconds>", "command/webhook time limit per turn")
    .argument("[argv...]", "the command adapter's program and arguments, after --")
    .action(async (id: string, argv: string[], options: AdapterOptions, command: Command) => {
      const adapter = adapterFrom(options, argv);
      const reply = await new ApiClient(homeOf(command)).call("updateSession", {
        params: { sid: parseId(SessionIdSchema, id) },
        body: { adapter },
      });
      print(`${reply.id} · adapter ${reply.adapter.kind}`);
      if (reply.webhookSecret)
        print(`webhook secret (shown once; verify webhook-signature with it): ${reply.webhookSecret}`);
    });
  sessions
    .command("turn")
    .argument("<id>", "the session")
    .argument("<state>", "busy or idle")
    .description("declare the session busy (running a turn of its own) or idle; wakes wait while busy")
    .option("--lease <seconds>", "busy ends by itself after this long (default 3600)")
    .action(async (id: string, state: string, options: { lease?: string }, command: Command) => {
      if (state !== "busy" && state !== "idle") throw usageError(`Expected busy or idle, got ${state}`);
      const leaseSeconds = optionalSeconds("--lease", options.lease);
      if (leaseSeconds !== undefined && state === "idle") throw usageError("Expected --lease only with busy, got idle");
      const reply = await new ApiClient(homeOf(command)).call("setTurn", {
        params: { sid: parseId(SessionIdSchema, id) },
        body: { state, leaseSeconds },
      });
      print(reply.busyUntil ? `${reply.id} busy until ${reply.busyUntil}` : `${reply.id} idle`);
    });

  program
    .command("inbox")
    .description("take the session's new wakes (marks them delivered); --all lists every wake")
    .option("--session <id>", SESSION_HELP)
    .option("--wait [seconds]", "wait for a wake to arrive (default: up to an hour)")
    .option("--all", "list every wake with its delivery state, taking nothing")
    .option("--json", "print JSON")
    .action(
      async (
        options: { session?: string; wait?: string | boolean; all?: boolean; json?: boolean },
        command: Command,
      ) => {
        const sid = sessionOf(options, command);
        if (options.all && options.wait !== undefined) throw usageError("Expected --wait or --all, got both");
        const total = typeof options.wait === "string" ? parseSeconds("--wait", options.wait) : options.wait ? 3600 : 0;
        const client = new ApiClient(homeOf(command));
        if (options.all) {
          const wakes = await client.call("listWakes", { params: { sid } });
          if (options.json) return printJson(wakes);
          return print(wakes.length === 0 ? `no wakes for session ${sid}` : wakes.map(wakeBlock).join("\n\n"));
        }
        const until = Date.now() + total * 1000;
        let wakes: WakeView[] = [];
        do {
          const wait = Math.min(300, Math.max(0, Math.ceil((until - Date.now()) / 1000)));
          wakes = (await client.call("claimWakes", { params: { sid }, query: { wait } })).wakes;
        } while (wakes.length === 0 && Date.now() < until);
        if (options.json) return printJson(wakes);
        if (wakes.length === 0) {
          print(`no new wakes for session ${sid}`);
          if (total > 0) process.exitCode = 1;
          return;
        }
        print(turnText(wakes));
      },
    );

  program
    .command("retry <wake>")
    .description("send a wake that needs review again, on purpose (a new message: a webhook gets a new id)")
    .option("--session <id>", "the wake's session (default: found from the wake id, which is unique)")
    .action(async (raw: string, options: { session?: string }, command: Command) => {
      const { client, wake, sid } = await wakeTarget(raw, options.session, command);
      const reply = await client.call("retryWake", { params: { sid, wid: wake } });
      print(`${reply.id} ${reply.state} (session ${sid})`);
    });

  program
    .command("dismiss <wake>")
    .description("set aside a wake that needs review or is being retried: it is never delivered")
    .option("--session <id>", "the wake's session (default: found from the wake id, which is unique)")
    .action(async (raw: string, options: { session?: string }, command: Command) => {
      const { client, wake, sid } = await wakeTarget(raw, options.session, command);
      const reply = await client.call("dismissWake", { params: { sid, wid: wake } });
      print(`${reply.id} dismissed (session ${sid}): it will not be delivered`);
    });

  program
    .command("clear-ended")
    .description("take a session's ended monitors out of the side panel's list (their records stay)")
    .option("--session <id>", SESSION_HELP)
    .action(async (options: { session?: string }, command: Command) => {
      const sid = sessionOf(options, command);
      const { cleared } = await new ApiClient(homeOf(command)).call("clearEnded", { params: { sid } });
      print(cleared.length === 0 ? "nothing to clear" : `cleared ${cleared.join(", ")}`);
    });
}

interface AdapterOptions {
  inbox?: boolean;
  mcp?: boolean;
  webhook?: string;
  header?: string[];
  command?: boolean;
  timeout?: string;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function adapterFrom(options: AdapterOptions, argv: string[]): Adapter {
  const chosen = [options.inbox, options.mcp, options.webhook !== undefined, options.command].filter(Boolean).length;
  if (chosen !== 1) throw usageError("Expected exactly one of --inbox, --mcp, --webhook URL, --command -- PROGRAM…");
  // Flags that mean nothing for the chosen adapter are refused, not ignored.
  const headerFlags = options.header ?? [];
  if (headerFlags.length > 0 && options.webhook === undefined)
    throw usageError("Expected --header only with --webhook URL");
  if (options.timeout !== undefined && (options.inbox || options.mcp))
    throw usageError(`Expected --timeout only with --webhook or --command, got --${options.inbox ? "inbox" : "mcp"}`);
  if (argv.length > 0 && !options.command)
    throw usageError(`Expected a program after -- only with --command, got ${argv.join(" ")}`);
  const timeoutSeconds = optionalSeconds("--timeout", options.timeout);
  if (options.inbox) return { kind: "inbox" };
  if (options.mcp) return { kind: "mcp" };
  if (options.webhook !== undefined) {
    const headers: Record<string, string> = {};
    for (const header of headerFlags) {
      const at = header.indexOf("=");
      if (at < 1) throw usageError(`Expected --header NAME=VALUE, got ${header}`);
      headers[header.slice(0, at)] = header.slice(at + 1);
    }
    return { kind: "webhook", url: options.webhook, ...(headerFlags.length ? { headers } : {}), timeoutSeconds };
  }
  if (argv.length === 0) throw usageError("Expected the program after --, got nothing");
  return { kind: "command", argv, timeoutSeconds };
}
