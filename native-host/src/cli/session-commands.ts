/** `vigil status`, `vigil sessions …`, `vigil inbox`. */
import type { Command } from "commander";
import type { WakeView } from "../../../shared/schemas.js";
import { readDaemonInfo } from "../home.js";
import { homePaths } from "../paths.js";
import { ApiClient, CliError } from "./client.js";
import { wakeBlock } from "./format.js";
import { homeOf } from "./main.js";

export const DEFAULT_SESSION = "default";

export function sessionOf(options: { session?: string }): string {
  return options.session ?? process.env.VIGIL_SESSION ?? DEFAULT_SESSION;
}

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

interface SessionJson {
  id: string;
  label: string | null;
  adapter: { kind: string };
  createdAt: string;
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
      const status = await new ApiClient(home).request<Record<string, unknown>>("GET", "/api/status");
      if (options.json) return print(JSON.stringify({ ...info, ...status, home }));
      print(`running · pid ${info.pid} · ${info.url} · home ${home}`);
      print(
        `sessions ${status.sessions} · checks running ${status.runningChecks} · next timer ${status.nextTimerAt ?? "none"}`,
      );
    });

  const sessions = program
    .command("sessions")
    .description("list sessions (or create/rm one)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await new ApiClient(homeOf(command)).request<SessionJson[]>("GET", "/api/sessions");
      if (options.json) return print(JSON.stringify(list, null, 2));
      if (list.length === 0) return print("no sessions");
      for (const s of list)
        print(`${s.id}${s.label ? ` (${s.label})` : ""} · adapter ${s.adapter.kind} · since ${s.createdAt}`);
    });
  sessions
    .command("create <id>")
    .description("create a session (idempotent)")
    .option("--label <text>", "a label people see")
    .action(async (id: string, options: { label?: string }, command: Command) => {
      const session = await new ApiClient(homeOf(command)).request<SessionJson>("POST", "/api/sessions", {
        id,
        label: options.label,
        root: process.cwd(),
      });
      print(session.id);
    });
  sessions
    .command("rm <id>")
    .description("delete a session: cancels its monitors and pending wakes")
    .action(async (id: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).request("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
      print(`deleted ${id}`);
    });

  program
    .command("inbox")
    .description("read the session's wakes")
    .option("--session <id>", "session (default: $VIGIL_SESSION or 'default')")
    .option("--json", "print JSON")
    .action(async (options: { session?: string; json?: boolean }, command: Command) => {
      const sid = sessionOf(options);
      const wakes = await new ApiClient(homeOf(command)).request<WakeView[]>(
        "GET",
        `/api/sessions/${encodeURIComponent(sid)}/wakes`,
      );
      if (options.json) return print(JSON.stringify(wakes, null, 2));
      if (wakes.length === 0) return print(`no wakes for session ${sid}`);
      print(wakes.map(wakeBlock).join("\n\n"));
    });
}
