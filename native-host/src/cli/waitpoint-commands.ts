/**
 * `vigil waitpoint LABEL --intent …`: arm a waitpoint from the shell (what MCP's `wait_create` and
 * `POST …/waitpoints` do) and print its id, its secret (shown only here) and the ready-to-paste
 * lines a job signals with. `--device NAME` arms it for a machine reached over SSH.
 * Design: docs/design.md §5, §7.
 */
import type { Command } from "commander";
import { ApiClient } from "../api/client.js";
import { ensureSession } from "../api/sessions.js";
import { homeOf, print, printJson, SESSION_HELP, sessionOf } from "./context.js";
import { parseInteger, parseNumber, usageError } from "./options.js";

interface WaitpointOptions {
  intent?: string;
  members?: string;
  quorum?: string;
  failFast: boolean;
  maxSignals?: string;
  expiresInHours?: string;
  heartbeatTimeout?: string;
  device?: string;
  session?: string;
  json?: boolean;
}

export function registerWaitpointCommands(program: Command): void {
  program
    .command("waitpoint <label>")
    .description("arm a waitpoint a job signals when done; prints its id, secret and the lines to paste")
    .option("--intent <text>", "what you wait for and what you will do then (required)")
    .option("--members <a,b,…>", "the reporting jobs' names; each signal must name one")
    .option("--quorum <n|all>", "terminal signals needed (default all with members, else 1)")
    .option("--no-fail-fast", "do not wake on the first fail")
    .option("--max-signals <n>", "wakes it may send (default 1; more keeps it open as a mailbox)")
    .option("--expires-in-hours <h>", "its lifetime (default 168, at most 720)")
    .option("--heartbeat-timeout <seconds>", "no signal of any kind for this long wakes you with 'stalled'")
    .option("--device <name>", "a machine added with vigil devices add: the job signals with a file there")
    .option("--session <id>", SESSION_HELP)
    .option("--json", "print the whole reply as JSON")
    .action(async (label: string, options: WaitpointOptions, command: Command) => {
      if (!options.intent) throw usageError("Expected --intent: what you wait for and what you will do then");
      const quorum =
        options.quorum === undefined
          ? undefined
          : options.quorum === "all"
            ? ("all" as const)
            : parseInteger("--quorum", options.quorum, [1, 1000]);
      const body = {
        label,
        intent: options.intent,
        ...(options.members ? { members: options.members.split(",").map((m) => m.trim()) } : {}),
        ...(quorum === undefined ? {} : { quorum }),
        ...(options.failFast ? {} : { fail_fast: false }),
        ...(options.maxSignals ? { max_signals: parseInteger("--max-signals", options.maxSignals, [1, 1000]) } : {}),
        ...(options.expiresInHours
          ? { expires_in_hours: parseNumber("--expires-in-hours", options.expiresInHours) }
          : {}),
        ...(options.heartbeatTimeout
          ? { heartbeat_timeout_seconds: parseNumber("--heartbeat-timeout", options.heartbeatTimeout) }
          : {}),
        ...(options.device ? { device: options.device } : {}),
      };
      const client = new ApiClient(homeOf(command));
      const sid = sessionOf(options, command);
      await ensureSession(client, sid);
      const armed = await client.call("createWaitpoint", { params: { sid }, body });
      if (options.json) return printJson(armed);
      const lines = armed.how_to_signal as unknown as Record<string, string>;
      print(`${armed.id} armed in session ${sid} (the secret is shown only now)`);
      print(`secret: ${armed.secret}`);
      print(`recommended: ${lines.recommended}`);
      for (const [name, line] of Object.entries(lines)) if (name !== "recommended") print(`${name}: ${line}`);
    });
}
