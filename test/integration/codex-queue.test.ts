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
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
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
      // What `ps` shows of it; then what the agent reads when it runs the queued turn (the file the notice names).
      '  cat /proc/$$/cmdline > "$CODEX_HOME/cmdline-$id"',
      '  file=$(printf "%s\\n" "$5" | sed -n "s/^cat //p")',
      '  cat "$file" > "$CODEX_HOME/message-$id"',
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

/**
 * A process named like Codex's managed app-server holding the thread's writer lock, or (`other`)
 * another Codex process (a `codex exec`); shared locks, so both can hold it at once.
 */
async function appServerHolding(thread: string, as: "app-server" | "other" = "app-server"): Promise<ChildProcess> {
  const file = join(codexHome, "thread-writer-locks", `${thread}.lock`);
  writeFileSync(file, "", { flag: "a" });
  const name = as === "app-server" ? ["app-server", "--managed-daemon"] : ["exec"];
  const child = spawn("flock", ["--no-fork", "-s", file, "sh", "-c", "sleep 600; :", ...name], { stdio: "ignore" });
  children.push(child);
  const ino = String(statSync(file).ino);
  const held = () =>
    readFileSync("/proc/locks", "utf8")
      .split("\n")
      .some((line) => line.includes(` ${child.pid} `) && line.includes(`:${ino} `));
  await waitFor(held, { what: `a lock on ${thread}.lock` });
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
  // `ps` shows `codex queue`'s argv to every local user: neither the check's output nor the tag's nonce is there.
  const argv = readFileSync(join(codexHome, `cmdline-${item.id}`), "utf8");
  expect(argv).not.toContain(`${thread}-built`);
  const message = readFileSync(join(codexHome, `message-${item.id}`), "utf8");
  expect(message).toContain(`${thread}-built`);
  expect(message).toMatch(/\[vigil wake-\d+ thread-t [0-9a-f]{16}\]/);
  expect(argv).not.toContain(/\[vigil wake-\d+ thread-t ([0-9a-f]{16})\]/.exec(message)?.[1] as string);
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

test("the wakes' text and tags never pass through codex queue's argv, and a turn of 200 KiB is delivered through the queue", async () => {
  const thread = "thread-large";
  const transcript = join(root, `${thread}.jsonl`);
  writeFileSync(transcript, "");
  // Another Codex process holds the thread: the wakes wait, all ready for one turn when it lets go.
  const other = await appServerHolding(thread, "other");
  await daemon.api("POST", "/api/sessions", {
    id: thread,
    adapter: { kind: "codex", configDir: codexHome, program, transcriptPath: transcript },
    // As its hooks report a full-access Codex: the watches run as before, outside Codex's sandbox.
    sandbox: { agent: "codex", mode: "danger-full-access", root },
  });
  const monitors = 20;
  for (let i = 0; i < monitors; i++) {
    const armed = await daemon.api("POST", `/api/sessions/${thread}/monitors`, {
      source: { kind: "watch", command: `for n in $(seq 25); do printf 'OUTSIDE-${i}-%s %0400d\\n' $n 0; done` },
      continuation: `${"Agent note. ".repeat(330)}`,
    });
    expect(armed.status, JSON.stringify(armed.body)).toBe(201);
    // At most 4 watches run at once in a session: each ends (its 25 lines seen) before the next.
    await daemon.waitForState(thread, `mon-${i + 1}`, ["ready"], 45_000);
  }
  const ready = (await daemon.api("GET", `/api/sessions/${thread}/wakes`)).body;
  expect(ready.every((w: any) => w.state === "ready")).toBe(true);
  await appServerHolding(thread);
  other.kill("SIGKILL");
  const item = await waitFor(() => queued().find((row) => row.thread_id === thread), {
    what: "the turn in Codex's queue",
    timeoutMs: 45_000,
  });
  const message = readFileSync(join(codexHome, `message-${item.id}`), "utf8");
  expect(message.length).toBeGreaterThan(200 * 1024);
  const tags = message.match(/\[vigil wake-\d+ thread-l [0-9a-f]{16}\]/g) ?? [];
  expect(tags).toHaveLength(ready.length);
  // What `ps` showed of `codex queue`: Vigil's notice only, no outside text, no tag, and small.
  const argv = readFileSync(join(codexHome, `cmdline-${item.id}`), "utf8");
  expect(argv).not.toContain("OUTSIDE-");
  expect(argv).not.toContain("Agent note.");
  for (const tag of tags) expect(argv).not.toContain(tag.split(" ")[3]?.slice(0, 16) as string);
  expect(argv.length).toBeLessThan(2048);
  expect(argv).toContain("read the whole file now");
  // Codex runs it; the agent reads the file: the transcript shows every tag.
  const db = new Database(join(codexHome, "queue_1.sqlite"));
  db.prepare("DELETE FROM queued_items WHERE id = ?").run(item.id);
  db.close();
  appendFileSync(transcript, `${JSON.stringify({ type: "response_item", payload: { output: message } })}\n`);
  const wakes = await waitFor(
    async () => {
      const all = (await daemon.api("GET", `/api/sessions/${thread}/wakes`)).body;
      return all.every((w: any) => w.state === "delivered") ? all : null;
    },
    { what: "all 20 wakes delivered through the queue" },
  );
  expect(new Set(wakes.map((w: any) => w.deliveredVia))).toEqual(new Set(["codex queue (the thread's app-server)"]));
  // The file with the text is gone once the delivery is over.
  const file = /^cat (\S+)$/m.exec(argv.replaceAll("\0", "\n"))?.[1] as string;
  expect(existsSync(file)).toBe(false);
});
