/**
 * `vigil signal`: report to a waitpoint (design.md §5, §8). Exit 0 when accepted, already resolved
 * or spooled; 1 when refused (or unreachable with --no-spool); 2 on a usage error or a missing id.
 *
 * On this machine the owner needs no secret: the signal goes over the owner-only socket (nothing
 * secret is in any argv or environment a job carries). It is written to the spool first and the
 * file removed only after the daemon's answer (as Postfix's maildrop does), so a daemon that is
 * down, busy or dies mid-request loses nothing: the file is collected when it runs, and the two
 * copies share one idempotency key, so it is heard once. To another machine's daemon (`--url`) the
 * secret comes from `--secret-file` (a 0600 file) or `$VIGIL_SIGNAL_SECRET`, never the command line,
 * and is never sent: the signal carries a proof made with it, and only an answer the daemon signed
 * counts (cli/signal-remote.ts); nothing is spooled here for another machine's waitpoint.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { pathOf, ROUTES } from "../../../shared/api-routes.js";
import { WaitpointIdSchema } from "../../../shared/schemas/ids.js";
import { CliError, clientTimeoutMs } from "../api/client.js";
import { homePaths } from "../base/paths.js";
import { SocketRequestError, socketRequest } from "../base/socket-request.js";
import { homeOf, print } from "./context.js";
import { parseId, parseInteger, usageError } from "./options.js";
import { type RemoteSignal, signalRemote } from "./signal-remote.js";

interface SignalOptions {
  id?: string;
  secret?: string;
  secretFile?: string;
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

/** The secret, when one is given: --secret-file (its first line), --secret, or $VIGIL_SIGNAL_SECRET. */
function secretOf(options: SignalOptions, env: NodeJS.ProcessEnv): string | undefined {
  if (options.secretFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.secretFile, "utf8");
    } catch (error) {
      throw usageError(
        `Expected --secret-file to be a readable file, got ${options.secretFile} (${(error as Error).message})`,
      );
    }
    const secret = text.split(/\r?\n/, 1)[0]?.trim() ?? "";
    if (!secret) throw usageError(`Expected a secret on the first line of ${options.secretFile}, got an empty line`);
    return secret;
  }
  return options.secret ?? (env.VIGIL_SIGNAL_SECRET || undefined);
}

export function buildSignal(options: SignalOptions, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const raw = options.id ?? env.VIGIL_SIGNAL_ID;
  if (!raw) throw usageError("Expected --id wp_… (or VIGIL_SIGNAL_ID)");
  // Checked before it becomes part of a path (POST /api/waitpoints/:wid/signal).
  const id = parseId(WaitpointIdSchema, raw, "--id");
  const secret = secretOf(options, env);
  if (options.url !== undefined && !secret) {
    throw usageError(
      "Expected --secret-file FILE (or VIGIL_SIGNAL_SECRET) with --url: another daemon needs the secret",
    );
  }
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
  return {
    id,
    ...(secret ? { secret } : {}),
    status,
    ...(message !== undefined ? { message } : {}),
    ...(member ? { member } : {}),
  };
}

/** Writes the signal to the spool (NAME.tmp, renamed to NAME.json: atomic); returns its path and name. */
function spool(home: string, body: Record<string, unknown>): { path: string; name: string } {
  const dir = homePaths(home).spool;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${Date.now()}-${process.pid}-${randomBytes(6).toString("hex")}.json`;
  const tmp = join(dir, `${name}.tmp`);
  writeFileSync(tmp, JSON.stringify(body), { mode: 0o600 });
  renameSync(tmp, join(dir, name));
  return { path: join(dir, name), name };
}

interface Answer {
  status: number;
  message?: string;
}

/** One request with a deadline; a thrown SocketRequestError when there was no answer. */
async function send(target: { socketPath: string }, path: string, body: unknown): Promise<Answer> {
  const reply = await socketRequest({
    ...target,
    method: "POST",
    path,
    body: JSON.stringify(body),
    timeoutMs: clientTimeoutMs(),
  });
  let message: string | undefined;
  try {
    message = (JSON.parse(reply.text) as { error?: { message?: string } }).error?.message;
  } catch {
    message = reply.text.slice(0, 200) || undefined;
  }
  return { status: reply.status, message };
}

export function registerSignalCommand(program: Command): void {
  program
    .command("signal")
    .description("report to a waitpoint: ok, fail or progress")
    .option("--id <wp_id>", "the waitpoint (default $VIGIL_SIGNAL_ID)")
    .option("--exit-code <n>", "status from an exit code (0 → ok, else fail), message exit=N unless --message")
    .option("--status <status>", "ok, fail or progress (overrides --exit-code; default ok)")
    .option("--message <text>", "a one-line summary shown in the wake")
    .option("--member <name>", "which member this is (default $VIGIL_SIGNAL_MEMBER)")
    .option("--data <@file|-|text>", "extra payload: a file, stdin, or the text itself; delivered as data")
    .option("--url <url>", "another machine's signal endpoint (…/webhook/signal); needs the secret")
    .option("--secret-file <file>", "the waitpoint's secret, first line of a 0600 file (for --url)")
    .option(
      "--secret <secret>",
      "the secret on the command line: visible to every local user in ps; prefer --secret-file",
    )
    .option("--no-spool", "fail instead of writing to the spool when the daemon cannot be reached")
    .action(async (options: SignalOptions, command: Command) => {
      const given = Object.entries(options).filter(([key]) => key !== "spool");
      if (given.length === 0 && options.spool !== false && !process.env.VIGIL_SIGNAL_ID) {
        command.outputHelp();
        process.exitCode = 2;
        return;
      }
      const home = homeOf(command);
      const body = buildSignal(options, process.env);
      if (options.data !== undefined) body.data = await readData(options.data);
      const url = options.url === undefined ? null : new URL(options.url);
      if (url) return signalTo(url, body);
      // Written first, removed after the answer: whatever happens to the request, nothing is lost.
      const spooled = options.spool === false ? null : spool(home, body);
      const key = spooled ? `spool:${spooled.name}` : `cli:${randomBytes(12).toString("hex")}`;
      const keep = (why: string) => {
        if (options.spool === false) throw new CliError(`${why}; not spooled (--no-spool)`);
        const path = spooled?.path ?? spool(home, body).path;
        print(`${why}; spooled to ${path} (the daemon collects it once it runs and can store it)`);
      };
      const done = () => {
        if (spooled) rmSync(spooled.path, { force: true });
      };
      let answer: Answer;
      try {
        answer = await send(
          { socketPath: homePaths(home).apiSocket },
          pathOf(ROUTES.signalOwner, { wid: String(body.id) }),
          { ...body, id: undefined, key },
        );
      } catch (error) {
        if (error instanceof SocketRequestError && error.notListening) {
          return keep(`no Vigil daemon is running for ${home}`);
        }
        return keep(`cannot reach the Vigil daemon (${(error as Error).message})`);
      }
      if (answer.status === 429 || answer.status >= 500) {
        return keep(`the daemon answered ${answer.status} (${answer.message ?? "busy"})`);
      }
      done();
      report(body, answer);
    });
}

/** What the daemon's answer means for the job: accepted or already resolved (exit 0), else refused. */
function report(body: Record<string, unknown>, answer: Answer): void {
  if (answer.status === 202) print(`accepted: ${body.id} ${body.status}`);
  else if (answer.status === 410) print(`${body.id}: ${answer.message ?? "already resolved"}`);
  else throw new CliError(`refused (${answer.status}): ${answer.message ?? "no reason given"}`);
}

/** Another machine's daemon (`--url`, a daemon's address alone meaning its signal route): proof mode. */
async function signalTo(url: URL, body: Record<string, unknown>): Promise<void> {
  const { secret, ...signal } = body;
  let answer: Answer;
  try {
    answer = await signalRemote(url, signal as unknown as RemoteSignal, String(secret));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot reach ${url.href} (${(error as Error).message}); the signal was not delivered`);
  }
  report(body, answer);
}
