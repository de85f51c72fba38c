/**
 * `vigil signal`: report to a waitpoint (design.md §5). Exit 0 when accepted, already resolved or
 * spooled; 1 when refused (or unreachable with --no-spool); 2 on a usage error or a missing id or
 * secret. When the daemon cannot be reached the signal is written to the spool, atomically.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ROUTES } from "../../../shared/api-routes.js";
import { CliError } from "../api/client.js";
import { readDaemonInfo } from "../base/home.js";
import { homePaths } from "../base/paths.js";
import { homeOf, print } from "./context.js";
import { parseInteger, usageError } from "./options.js";

interface SignalOptions {
  id?: string;
  secret?: string;
  exitCode?: string;
  status?: string;
  message?: string;
  member?: string;
  data?: string;
  url?: string;
  spool?: boolean;
}

async function readData(spec: string): Promise<string> {
  if (spec === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  if (spec.startsWith("@")) {
    try {
      return readFileSync(spec.slice(1), "utf8");
    } catch (error) {
      throw usageError(`Expected --data @FILE to be readable, got ${spec} (${(error as Error).message})`);
    }
  }
  return spec;
}

export function buildSignal(options: SignalOptions, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const id = options.id ?? env.VIGIL_SIGNAL_ID;
  const secret = options.secret ?? env.VIGIL_SIGNAL_SECRET;
  if (!id || !secret) throw usageError("Expected --id and --secret (or VIGIL_SIGNAL_ID and VIGIL_SIGNAL_SECRET)");
  let status = "ok";
  let message = options.message;
  if (options.exitCode !== undefined) {
    const code = parseInteger("--exit-code", options.exitCode);
    status = code === 0 ? "ok" : "fail";
    message ??= `exit=${code}`;
  }
  if (options.status !== undefined) {
    if (!["ok", "fail", "progress"].includes(options.status)) {
      throw usageError(`Expected --status ok, fail or progress, got ${options.status}`);
    }
    status = options.status;
  }
  const member = options.member ?? env.VIGIL_SIGNAL_MEMBER;
  return { id, secret, status, ...(message !== undefined ? { message } : {}), ...(member ? { member } : {}) };
}

function spool(home: string, body: Record<string, unknown>): string {
  const dir = homePaths(home).spool;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${Date.now()}-${process.pid}-${randomBytes(4).toString("hex")}`;
  writeFileSync(join(dir, `${name}.tmp`), JSON.stringify(body), { mode: 0o600 });
  renameSync(join(dir, `${name}.tmp`), join(dir, `${name}.json`));
  return join(dir, `${name}.json`);
}

export function registerSignalCommand(program: Command): void {
  program
    .command("signal")
    .description("report to a waitpoint: ok, fail or progress")
    .option("--id <wp_id>", "the waitpoint (default $VIGIL_SIGNAL_ID)")
    .option("--secret <secret>", "its secret (default $VIGIL_SIGNAL_SECRET)")
    .option("--exit-code <n>", "status from an exit code (0 → ok, else fail), message exit=N unless --message")
    .option("--status <status>", "ok, fail or progress (overrides --exit-code; default ok)")
    .option("--message <text>", "a one-line summary shown in the wake")
    .option("--member <name>", "which member this is (default $VIGIL_SIGNAL_MEMBER)")
    .option("--data <@file|-|text>", "extra payload: a file, stdin, or the text itself; delivered as data")
    .option("--url <url>", "the signal endpoint (default: the running daemon's /webhook/signal)")
    .option("--no-spool", "fail instead of writing to the spool when the daemon cannot be reached")
    .action(async (options: SignalOptions, command: Command) => {
      const given = Object.entries(options).filter(([key]) => key !== "spool");
      if (given.length === 0 && options.spool !== false) {
        command.outputHelp();
        process.exitCode = 2;
        return;
      }
      const home = homeOf(command);
      const body = buildSignal(options, process.env);
      if (options.data !== undefined) body.data = await readData(options.data);
      const url = options.url ?? (readDaemonInfo(homePaths(home))?.url ?? null)?.concat(ROUTES.signal.path);
      const fallback = (why: string) => {
        if (options.spool === false) throw new CliError(`${why}; not spooled (--no-spool)`);
        print(`${why}; spooled to ${spool(home, body)} (collected when the daemon runs)`);
      };
      if (!url) return fallback(`no Vigil daemon is running for ${home}`);
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...body, key: randomUUID() }),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        return fallback(`cannot reach ${url} (${(error as Error).message})`);
      }
      const reply = (await response.json().catch(() => ({}))) as { error?: { message?: string }; duplicate?: boolean };
      if (response.status === 202)
        return print(`accepted${reply.duplicate ? " (duplicate)" : ""}: ${body.id} ${body.status}`);
      if (response.status === 410) return print(`${body.id}: ${reply.error?.message ?? "already resolved"}`);
      if (response.status === 429 || response.status >= 500) {
        return fallback(`the daemon answered ${response.status} (${reply.error?.message ?? "busy"})`);
      }
      throw new CliError(`refused (${response.status}): ${reply.error?.message ?? "no reason given"}`);
    });
}
