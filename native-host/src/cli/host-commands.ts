/**
 * `vigil hosts`: the daemons that share this daemon's database (team mode), each with its state,
 * heartbeat, version and what it holds. On SQLite there is one: this one.
 * Design: docs/design.md §9.1.
 */
import type { Command } from "commander";
import { countOf, relativeTimeDetailed } from "../../../shared/wording.js";
import { ApiClient } from "../api/client.js";
import { homeOf, print, printJson } from "./context.js";
import { checkHostName } from "./options.js";

export function registerHostCommands(program: Command): void {
  const hosts = program
    .command("hosts")
    .description("the daemons on this database (team mode): online, offline or stopped, and what each holds")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await new ApiClient(homeOf(command)).call("listHosts");
      if (options.json) return printJson(list);
      const now = Date.now();
      for (const h of list) {
        const state =
          h.state === "online"
            ? `online (heartbeat ${relativeTimeDetailed(h.heartbeatAt, now)})`
            : h.state === "stopped"
              ? `stopped ${relativeTimeDetailed(h.stoppedAt ?? h.heartbeatAt, now)}`
              : `offline (last heartbeat ${relativeTimeDetailed(h.heartbeatAt, now)}: killed, crashed or cut off)`;
        const waiting = h.state !== "online" && h.bound > 0 ? ` · ${h.bound} waiting for their host` : "";
        print(
          `${h.name}${h.self ? " (this daemon)" : ""} · ${state} · v${h.version} · pid ${h.pid} · ${countOf(h.sessions, "session")} · ${countOf(h.bound, "host-bound monitor")}${waiting}`,
        );
      }
    });
  hosts
    .command("rm <name>")
    .description("forget a host that is stopped or offline and holds no session (a retired machine, an old name)")
    .action(async (name: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).call("removeHost", { params: { name: checkHostName("NAME", name) } });
      print(`forgot host ${name}`);
    });
}
