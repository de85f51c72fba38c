/**
 * A wake to a Codex thread its app-server holds goes through Codex's own queue, exactly once
 * (design.md §6), against the real daemon with a stand-in `codex` (records what it was asked, puts
 * the message in a queue database shaped like Codex's) and a stand-in app-server (a process named
 * like it, holding the thread's writer lock):
 *   taken from the queue and shown in the thread's transcript → delivered through the queue;
 *   left in the queue when the app-server lets the thread go → taken back out of the queue, and the
 *   thread resumed headless, once — never both.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let root: string;
let codexHome: string;
let program: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  daemon = await TestDaemon.start();
  root = mkdtempSync(join(tmpdir(), "vigil-codex-queue-"));
  codexHome = join(root, "codex");
  mkdirSync(join(codexHome, "thread-writer-locks"), { recursive: true });
  const db = new Database(join(codexHome, "queue_1.sqlite"));
  db.exec(
    "CREATE TABLE queued_items (id TEXT PRIMARY KEY NOT NULL, thread_id TEXT NOT NULL, payload_json TEXT NOT NULL, queue_order INTEGER NOT NULL, created_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL)",
  );
  db.close();
  // `codex queue --thread T --message M --resume` and `codex exec … resume T -`, as far as Vigil sees them.
  program = join(root, "codex-standin");
  writeFileSync(
    program,
    [
      "#!/bin/sh",
      'echo "$1" >> "$CODEX_HOME/calls"',
      'if [ "$1" = queue ]; then',
      '  id="msg-$$"',
      '  printf "%s" "$5" > "$CODEX_HOME/message-$id"',
      "  sqlite3 \"$CODEX_HOME/queue_1.sqlite\" \"INSERT INTO queued_items VALUES ('$id', '$3', '{}', 1, 0, 0)\"",
      '  echo "Queued message $id for thread $3."',
      "  exit 0",
      "fi",
      "cat >/dev/null",
      'eval "thread=\\${$(($# - 1))}"',
      'printf \'{"type":"thread.started","thread_id":"%s"}\\n{"type":"turn.completed"}\\n\' "$thread"',
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await daemon.dispose();
  rmSync(root, { recursive: true, force: true });
});

/** A process named like Codex's managed app-server, holding the thread's writer lock. */
async function appServerHolding(thread: string): Promise<ChildProcess> {
  const file = join(codexHome, "thread-writer-locks", `${thread}.lock`);
  writeFileSync(file, "");
  const child = spawn(
    "flock",
    ["--no-fork", "-x", file, "sh", "-c", "sleep 600; :", "app-server", "--managed-daemon"],
    {
      stdio: "ignore",
    },
  );
  children.push(child);
  const ino = String(statSync(file).ino);
  await waitFor(() => readFileSync("/proc/locks", "utf8").includes(`:${ino} `), { what: `a lock on ${thread}.lock` });
  return child;
}

async function threadWithWake(thread: string, transcript: string): Promise<void> {
  writeFileSync(transcript, "");
  await daemon.api("POST", "/api/sessions", {
    id: thread,
    adapter: { kind: "codex", configDir: codexHome, program, transcriptPath: transcript },
    // As its hooks report it: full access, so its checks run as before (#37).
    sandbox: { agent: "codex", mode: "danger-full-access", root: "/" },
  });
  await daemon.api("POST", `/api/sessions/${thread}/monitors`, {
    source: { kind: "command", command: `echo ${thread}-built` },
    intervalSeconds: 5,
  });
}

const queued = () => {
  const db = new Database(join(codexHome, "queue_1.sqlite"), { readonly: true });
  try {
    return db.prepare("SELECT id, thread_id FROM queued_items").all() as Array<{ id: string; thread_id: string }>;
  } finally {
    db.close();
  }
};
const calls = () => readFileSync(join(codexHome, "calls"), "utf8").trim().split("\n");
const wakeOf = async (thread: string) => (await daemon.api("GET", `/api/sessions/${thread}/wakes`)).body[0];

test("taken from Codex's queue and shown in the thread's transcript: delivered through the queue, once", async () => {
  const thread = "thread-taken";
  const transcript = join(root, `${thread}.jsonl`);
  await appServerHolding(thread);
  await threadWithWake(thread, transcript);
  // Check, wake, then the queue run by the fake `codex`: on a loaded CI machine this chain once took over 15 s.
  const item = await waitFor(() => queued().find((row) => row.thread_id === thread), {
    what: "the wake in Codex's queue",
    timeoutMs: 45_000,
  });
  const message = readFileSync(join(codexHome, `message-${item.id}`), "utf8");
  expect(message).toContain(`${thread}-built`);
  expect(message).toMatch(/\[vigil wake-\d+ thread-t [0-9a-f]{16}\]/);
  expect((await wakeOf(thread)).state).toBe("delivering");
  // Codex takes it from its queue and runs it: the thread's rollout shows the message.
  const db = new Database(join(codexHome, "queue_1.sqlite"));
  db.prepare("DELETE FROM queued_items WHERE id = ?").run(item.id);
  db.close();
  appendFileSync(transcript, `${JSON.stringify({ type: "response_item", payload: { content: message } })}\n`);
  const wake = await waitFor(async () => ((await wakeOf(thread)).state === "delivered" ? wakeOf(thread) : null), {
    what: "the queued wake to count once the transcript shows it",
  });
  expect(wake.deliveredVia).toBe("codex queue (the thread's app-server)");
  expect(calls().filter((call) => call === "exec")).toEqual([]);
});

test("left in the queue when the app-server lets the thread go: taken back out, and resumed headless once", async () => {
  const thread = "thread-left";
  const transcript = join(root, `${thread}.jsonl`);
  const holder = await appServerHolding(thread);
  await threadWithWake(thread, transcript);
  await waitFor(() => queued().some((row) => row.thread_id === thread), { what: "the wake in Codex's queue" });
  const execsBefore = calls().filter((call) => call === "exec").length;
  // The app-server exits without taking it (its minute after /exit is over).
  holder.kill("SIGKILL");
  const wake = await waitFor(async () => ((await wakeOf(thread)).state === "delivered" ? wakeOf(thread) : null), {
    what: "the wake to be resumed headless",
  });
  expect(wake.deliveredVia).toBe("codex exec resume (headless)");
  // Out of Codex's queue (it can never run a second time there), and one resume.
  expect(queued().filter((row) => row.thread_id === thread)).toEqual([]);
  expect(calls().filter((call) => call === "exec")).toHaveLength(execsBefore + 1);
});
