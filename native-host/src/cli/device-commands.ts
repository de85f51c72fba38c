/**
 * `vigil devices [add|rm]`: the machines whose signal spool the daemon collects over SSH.
 * Design: docs/design.md §5, §7.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { countOf, relativeTimeDetailed } from "../../../shared/wording.js";
import { ApiClient } from "../api/client.js";
import { homeOf, print, printJson } from "./context.js";
import { parseInteger } from "./options.js";

export function registerDeviceCommands(program: Command): void {
  const devices = program
    .command("devices")
    .description("machines whose signal files are collected over SSH (wait_create --device)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await new ApiClient(homeOf(command)).call("listDevices");
      if (options.json) return printJson(list);
      if (list.length === 0) return print("no devices (add one with: vigil devices add NAME --ssh [USER@]HOST)");
      const now = Date.now();
      for (const d of list) {
        const how = d.collection === "inotify" ? " (inotify)" : d.collection === "poll" ? " (polled)" : "";
        const state =
          d.state === "error"
            ? `error: ${d.lastError ?? "unknown"}`
            : `${d.state}${d.state === "connected" ? how : ""}`;
        const last = d.lastCollectionAt
          ? `collected ${relativeTimeDetailed(d.lastCollectionAt, now)}`
          : "never collected";
        const port = d.port === null ? "" : `:${d.port}`;
        const hint = d.state === "offline" && d.lastError ? ` (${d.lastError})` : "";
        print(
          `${d.name} · ${d.ssh}${port} · ${state}${hint} · ${last} · ${countOf(d.filesCollected, "file")} collected`,
        );
      }
    });
  devices
    .command("add <name>")
    .description("add a device reached with your own ssh client, keys and ~/.ssh/config")
    .requiredOption("--ssh <target>", "[USER@]HOST")
    .option("--port <n>", "SSH port")
    .option("--identity <file>", "private key, passed to ssh as -i FILE")
    .action(async (name: string, options: { ssh: string; port?: string; identity?: string }, command: Command) => {
      const port = options.port === undefined ? undefined : parseInteger("--port", options.port, [1, 65535]);
      const identity = options.identity === undefined ? undefined : resolve(options.identity);
      const device = await new ApiClient(homeOf(command)).call("addDevice", {
        body: { name, ssh: options.ssh, port, identity },
      });
      print(`added ${device.name} (${device.ssh}); connecting`);
    });
  devices
    .command("rm <name>")
    .description("remove a device and close its connection")
    .action(async (name: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).call("removeDevice", { params: { name } });
      print(`removed ${name}`);
    });
}
