/**
 * `vigil vault set|list|rm`: values go in from stdin and never come out.
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { ApiClient } from "../api/client.js";
import { homeOf, print, printJson } from "./context.js";
import { usageError } from "./options.js";

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("value (end with Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export function registerVaultCommands(program: Command): void {
  const vault = program.command("vault").description("secrets for ${secret:KEY} references");
  vault
    .command("set <key>")
    .description("store a value, read from stdin")
    .action(async (key: string, _options: unknown, command: Command) => {
      const value = await readStdin();
      if (value === "") throw usageError("Expected the value on stdin, got nothing");
      await new ApiClient(homeOf(command)).call("setVault", { params: { key }, body: { value } });
      print(`set ${key}`);
    });
  vault
    .command("list")
    .description("key names and which monitors used them (never values)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const entries = await new ApiClient(homeOf(command)).call("listVault");
      if (options.json) return printJson(entries);
      if (entries.length === 0) return print("the vault is empty");
      for (const entry of entries) {
        const uses = entry.usedBy.map((u) => `${u.sessionId}/${u.monitorId} (${u.purpose} ${u.at})`).join(", ");
        print(`${entry.key} · set ${entry.updatedAt}${uses ? ` · used by ${uses}` : " · unused"}`);
      }
    });
  vault
    .command("rm <key>")
    .description("remove a value")
    .action(async (key: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).call("deleteVault", { params: { key } });
      print(`removed ${key}`);
    });
}
