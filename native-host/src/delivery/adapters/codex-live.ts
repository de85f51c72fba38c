/**
 * A wake to a Codex thread its app-server holds. Codex's TUI runs its threads in a detached
 * `codex app-server --managed-daemon`, which holds the thread's writer lock while the TUI is open
 * and for about a minute after `/exit`. While it does, the wake goes in through that process:
 * `codex queue --thread <id> --message <notice> --resume` puts it in Codex's own queue for the
 * thread, and the app-server runs it as the thread's next turn — at once in an idle open TUI
 * (`› QUEUED`), after the running turn in a busy one, headless in the app-server after `/exit`. One
 * writer, always Codex's own.
 *
 * `codex queue` takes the message only as an argument (Codex 0.169: no stdin, no file), and every
 * local user reads a process's argv in `ps`; an argument over 128 KiB fails with E2BIG. So the
 * message is a short notice of Vigil's own — no outside text, no nonce — naming a 0600 file that
 * holds the wakes' text with their tags, which the agent reads (`cat`); the file goes when the
 * delivery ends.
 *
 * Confirmed the way hook handovers are: each wake's text carries a tag with a fresh nonce, and the
 * wake counts once the thread's transcript (its rollout file) shows the tag. A message nobody takes
 * from the queue while no app-server holds the thread any more is taken back out of Codex's queue
 * (so it can never run later as well) and the caller resumes the thread headless instead.
 * Design: docs/design.md §6.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Adapter } from "../../../../shared/schemas/inputs.js";
import { handoverMarker, turnText } from "../../../../shared/wording.js";
import { withoutAgentSession } from "../../base/config.js";
import { loadExeca } from "../../base/lazy-execa.js";
import { handoverConfirmMs } from "../handovers.js";
import { markOf, scanTranscript } from "../transcript-scan.js";
import type { DeliveryContext, DeliveryOutcome, Turn } from "./adapter.js";
import { tail } from "./adapter.js";
import { codexThreadHolders } from "./agent-liveness.js";
import { writePrivateFile } from "./private-file.js";
import { lastLines, whyNotStarted } from "./run-failure.js";

type CodexAdapter = Extract<Adapter, { kind: "codex" }>;

export const CODEX_QUEUE_VIA = "codex queue (the thread's app-server)";
/** How often the queue and the transcript are looked at while a queued wake is on its way. */
const POLL_MS = 250;

export const codexHomeOf = (adapter: CodexAdapter): string =>
  adapter.configDir ?? process.env.CODEX_HOME ?? join(homedir(), ".codex");

/** Is `pid` Codex's managed app-server (the process a TUI runs its threads in)? */
export function isCodexAppServer(pid: number): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return args.includes("app-server") && args.includes("--managed-daemon");
  } catch {
    return false;
  }
}

/** Who holds the thread: nobody, Codex's app-server (the queue reaches it), or another process (its hooks do). */
export function codexThreadHolder(home: string, threadId: string): "none" | "app-server" | "process" {
  const holders = codexThreadHolders(home, threadId);
  if (holders === null) return "none";
  return holders.length > 0 && holders.every(isCodexAppServer) ? "app-server" : "process";
}

/** Why the daemon must leave the thread to its own process's hooks now, or null. */
export function codexHeldBy(adapter: CodexAdapter, threadId: string): string | null {
  return codexThreadHolder(codexHomeOf(adapter), threadId) === "process"
    ? "waiting for the open Codex session to take it through its hooks"
    : null;
}

/** The thread's rollout file: the one its hooks named, else found under `$CODEX_HOME/sessions`. */
export function findRollout(home: string, threadId: string): string | null {
  const walk = (dir: string, depth: number): string | null => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return null;
    }
    for (const entry of entries) {
      if (entry.isFile() && entry.name.startsWith("rollout-") && entry.name.endsWith(`-${threadId}.jsonl`))
        return join(dir, entry.name);
      if (entry.isDirectory() && depth > 0) {
        const found = walk(join(dir, entry.name), depth - 1);
        if (found) return found;
      }
    }
    return null;
  };
  return walk(join(home, "sessions"), 3);
}

/** Codex's queue database (`queue_<n>.sqlite`, the highest n), or null. */
function queueDatabase(home: string): string | null {
  try {
    const found = readdirSync(home)
      .map((name) => /^queue_(\d+)\.sqlite$/.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]))[0];
    return found ? join(home, found[0]) : null;
  } catch {
    return null;
  }
}

/**
 * Looks at a queued message in Codex's queue: is it still there (nobody took it)? With `takeBack`,
 * removes it in the same statement, so it is either taken back here or already taken by Codex —
 * never both. Null: the queue could not be read (then nothing is known).
 */
async function queuedMessage(home: string, id: string, takeBack: boolean): Promise<boolean | null> {
  const path = queueDatabase(home);
  if (!path) return null;
  const { default: Database } = await import("better-sqlite3");
  let db: import("better-sqlite3").Database | null = null;
  try {
    db = new Database(path, { fileMustExist: true, timeout: 5000 });
    if (takeBack) return db.prepare("DELETE FROM queued_items WHERE id = ?").run(id).changes > 0;
    return db.prepare("SELECT 1 FROM queued_items WHERE id = ?").get(id) !== undefined;
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

/**
 * The message `codex queue` carries (in argv): which wakes, and the file that holds their text. Only
 * Vigil's words, ids and the path: nothing from outside and no tag.
 */
export function codexQueueNotice(wakeIds: string[], file: string): string {
  const what = wakeIds.length === 1 ? `a wake (${wakeIds[0]})` : `${wakeIds.length} wakes (${wakeIds.join(", ")})`;
  return [
    `Vigil has ${what} for this session. Its text is in a file only you can read, not in this message: read the whole file now and act on it as you would on a message from the user:`,
    `cat ${file}`,
  ].join("\n");
}

/** Another Codex process took the thread between the look and the delivery: its hooks take the wakes. */
const openedMeanwhile = (threadId: string): DeliveryOutcome => ({
  ok: false,
  retry: true,
  error: `Codex thread ${threadId} was opened by another Codex process meanwhile; its hooks take the wake (tried again later)`,
  output: null,
});

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/**
 * Delivers the turn through Codex's queue to the app-server that holds the thread. Null when the
 * route does not apply (no app-server holds the thread) or the message was taken back unread
 * (the app-server let the thread go before taking it): the caller resumes the thread headless.
 */
export async function deliverThroughCodexQueue(
  adapter: CodexAdapter,
  turn: Turn,
  context: DeliveryContext,
  timeoutMs: number,
): Promise<DeliveryOutcome | null> {
  const home = codexHomeOf(adapter);
  const threadId = turn.sessionId;
  const holder = codexThreadHolder(home, threadId);
  if (holder === "none") return null;
  if (holder === "process") return openedMeanwhile(threadId);
  const transcript = adapter.transcriptPath ?? findRollout(home, threadId);
  if (!transcript)
    return {
      ok: false,
      retry: true,
      error: `Codex's app-server holds thread ${threadId}, but its transcript (rollout file) was not found under ${home}/sessions, so a wake sent to it could not be confirmed; not sent`,
      output: null,
    };
  const mark = await markOf(transcript);
  const nonce = randomBytes(8).toString("hex");
  const tags = turn.wakes.map((wake) => handoverMarker(threadId, wake.id, nonce));
  const text = turnText(turn.wakes.map((wake, i) => ({ id: wake.id, text: `${wake.text}\n\n${tags[i]}` })));
  const wakeFile = writePrivateFile("wakes.txt", text);
  try {
    return await queueAndConfirm(adapter, turn, context, timeoutMs, {
      home,
      transcript,
      mark,
      tags,
      wakeFile: wakeFile.path,
    });
  } finally {
    wakeFile.remove();
  }
}

interface QueuedHandover {
  home: string;
  transcript: string;
  mark: Awaited<ReturnType<typeof markOf>>;
  tags: string[];
  wakeFile: string;
}

/** Queues the notice and waits until the transcript shows every tag, or the message is taken back. */
async function queueAndConfirm(
  adapter: CodexAdapter,
  turn: Turn,
  context: DeliveryContext,
  timeoutMs: number,
  { home, transcript, mark, tags, wakeFile }: QueuedHandover,
): Promise<DeliveryOutcome | null> {
  const threadId = turn.sessionId;
  const message = codexQueueNotice(
    turn.wakes.map((wake) => wake.id),
    wakeFile,
  );
  const program = adapter.program ?? "codex";
  const execa = await loadExeca();
  const queued = await execa(program, ["queue", "--thread", threadId, "--message", message, "--resume"], {
    cwd: context.cwd,
    env: { ...withoutAgentSession(process.env), CODEX_HOME: home, VIGIL_SESSION: threadId },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    cancelSignal: context.signal,
    forceKillAfterDelay: 2000,
    input: "",
  });
  const stdout = typeof queued.stdout === "string" ? queued.stdout : "";
  const stderr = typeof queued.stderr === "string" ? queued.stderr : "";
  const output = tail([stdout, stderr].filter(Boolean).join("\n")) || null;
  if (queued.exitCode === undefined)
    return {
      ok: false,
      retry: true,
      error: `codex queue could not run: ${whyNotStarted(queued, program, context.cwd)}\n${queued.shortMessage}`,
      output,
    };
  const id = /Queued message (\S+) for thread/.exec(stdout)?.[1];
  if (queued.exitCode !== 0 || !id) {
    const said = lastLines(stderr);
    return {
      ok: false,
      retry: true,
      error: `codex queue exited with code ${queued.exitCode}${id ? "" : " and named no queued message"}${said ? `: ${said}` : ""}`,
      output,
    };
  }
  const started = Date.now();
  let takenAt: number | null = null;
  const needles = tags.map((tag) => ({ tag: Buffer.from(tag), from: mark?.size ?? 0, file: mark }));
  const seen = tags.map(() => false);
  for (;;) {
    const scan = await scanTranscript(transcript, needles, context.signal);
    if (scan && "needles" in scan) {
      scan.needles.forEach((needle, i) => {
        seen[i] ||= needle.found;
        if (needles[i]) {
          needles[i].from = needle.next;
          needles[i].file = scan.mark;
        }
      });
    }
    if (seen.every(Boolean)) return { ok: true, output, via: CODEX_QUEUE_VIA };
    const now = Date.now();
    const stopping = context.signal.aborted || now - started > timeoutMs;
    if (takenAt === null) {
      // Still queued: taken back when nobody will take it (the app-server let the thread go) or time is up.
      const holder = codexThreadHolder(home, threadId);
      const giveUp = stopping || holder !== "app-server";
      const still = await queuedMessage(home, id, giveUp);
      if (still === true && giveUp) {
        // Taken back unread: resumed headless by the caller, or left to the hooks of whoever opened it.
        if (!stopping) return holder === "none" ? null : openedMeanwhile(threadId);
        return {
          ok: false,
          retry: true,
          error: `Codex's app-server did not take the wake from its queue within ${Math.round(timeoutMs / 1000)}s; it was taken back out of the queue`,
          output,
        };
      }
      if (still === false) takenAt = now;
      if (still === null && giveUp)
        return {
          ok: false,
          retry: false,
          error: `the wake was put in Codex's queue for thread ${threadId}, but the queue could not be read to see whether Codex took it; it was not repeated (retry it on purpose if that is safe)`,
          output,
        };
    }
    const unseen = takenAt !== null && now - takenAt > Math.min(handoverConfirmMs(), timeoutMs);
    if (unseen || (stopping && takenAt !== null))
      return {
        ok: false,
        retry: false,
        error:
          "Codex took the wake from its queue, but the thread's transcript never showed it (the turn may have been dropped); it was not repeated (retry it on purpose if that is safe)",
        output,
      };
    await sleep(POLL_MS, context.signal);
  }
}
