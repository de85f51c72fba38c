// vigil-spawner driven frame by frame: the real helper, compiled here from
// native-host/spawner/spawner.c as the build does (`cc -O2`), gets hand-made frames on its stdin,
// including frames the daemon never sends, and its answers and its checks' processes are looked at
// directly (/proc). What the daemon makes of the answers is spawner.test.ts's part.
// Design: docs/design.md §3, §8.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures");
const work = mkdtempSync(join(tmpdir(), "vigil-spawner-frames-"));
const helperPath = join(work, "vigil-spawner");
execFileSync(process.env.CC ?? "cc", ["-O2", "-o", helperPath, join(ROOT, "native-host/spawner/spawner.c")]);

const waitFor = async (probe: () => boolean, what: string, ms = 5000) => {
  const until = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > until) throw new Error(`Expected ${what} within ${ms} ms, it did not happen`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A process that still runs (a zombie waiting for its parent to reap it has ended). */
const isRunning = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};

const readPid = (file: string) => (existsSync(file) ? Number(readFileSync(file, "utf8").trim()) || null : null);

// Processes the tests started, killed at the end if a test failed before they died; each only while
// its command line is still the one it was started with (a pid is never trusted by itself).
const started: { pid: number; cmdline: string }[] = [];
const remember = (pid: number) => {
  started.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8") });
  return pid;
};
afterEach(() => {
  for (const { pid, cmdline } of started.splice(0)) {
    try {
      if (isRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8") === cmdline) process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  for (const helper of helpers.splice(0)) helper.process.kill("SIGKILL");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Answer {
  type: string;
  id: number;
  body: Buffer;
}

function frame(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32LE(1 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
}

/** An 'R' frame; `rest` is everything after the three integers (cwd, command, environment). */
function runFrame(id: number, rest: string, timeoutMs = 30_000): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt32LE(id, 0);
  head.writeUInt32LE(timeoutMs, 4);
  head.writeUInt32LE(4096, 8);
  return frame("R", Buffer.concat([head, Buffer.from(rest, "utf8")]));
}

/** A well-formed 'R' frame, as the daemon makes them. */
const run = (id: number, command: string, env: string[] = [], timeoutMs = 30_000) =>
  runFrame(id, `${work}\0${command}\0${env.map((entry) => `${entry}\0`).join("")}\0`, timeoutMs);

const errorText = (answer: Answer) => answer.body.toString("utf8", 4);
const exitCode = (answer: Answer) => answer.body.readInt32LE(4);
const flags = (answer: Answer) => answer.body.readUInt32LE(12);
const stdoutOf = (answer: Answer) => answer.body.subarray(28, 28 + answer.body.readUInt32LE(24)).toString("utf8");

const helpers: RawHelper[] = [];

class RawHelper {
  readonly process: ChildProcess;
  readonly answers: Answer[] = [];
  closed: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  #buffer = Buffer.alloc(0);

  /** `extraFds` pipes beyond 0–2 are inherited by the helper (as from whatever started the daemon). */
  constructor(extraFds = 0) {
    this.process = spawn(helperPath, [], { stdio: ["pipe", "pipe", "pipe", ...Array(extraFds).fill("pipe")] });
    helpers.push(this);
    this.process.stdout?.on("data", (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      while (this.#buffer.length >= 4 && this.#buffer.length - 4 >= this.#buffer.readUInt32LE(0)) {
        const length = this.#buffer.readUInt32LE(0);
        const body = this.#buffer.subarray(5, 4 + length);
        this.answers.push({ type: String.fromCharCode(this.#buffer[4] as number), id: body.readUInt32LE(0), body });
        this.#buffer = this.#buffer.subarray(4 + length);
      }
    });
    this.process.stderr?.resume();
    this.process.stdin?.on("error", () => {
      // The helper may leave before it reads everything (the oversized frame).
    });
    this.process.once("close", (code, signal) => {
      this.closed = { code, signal };
    });
  }

  send(...frames: Buffer[]): void {
    this.process.stdin?.write(Buffer.concat(frames));
  }

  /** The first answer of `type` for `id`, when it comes; an error if the helper ends without it. */
  async answer(type: string, id: number, ms = 5000): Promise<Answer> {
    const find = () => this.answers.find((answer) => answer.type === type && answer.id === id);
    await waitFor(() => find() !== undefined || this.closed !== null, `an '${type}' answer for request ${id}`, ms);
    const found = find();
    if (!found) {
      const seen = this.answers.map((answer) => `${answer.type}${answer.id}`).join(", ") || "none";
      throw new Error(`Expected an '${type}' answer for request ${id}, the helper ended after: ${seen}`);
    }
    return found;
  }

  async ended(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    await waitFor(() => this.closed !== null, "the helper to end");
    return this.closed as { code: number | null; signal: NodeJS.Signals | null };
  }
}

/**
 * Starts the fixture that runs `sleep 300` in its group and waits; resolves with the check's shell
 * (the group's leader, from the helper's 'P' answer), the fixture's own shell and its `sleep`.
 */
async function startSleeper(helper: RawHelper, id: number) {
  const dir = mkdtempSync(join(work, "group-"));
  helper.send(run(id, `sh ${join(FIXTURES, "sleep-with-child.sh")} ${dir}`));
  await waitFor(
    () => readPid(join(dir, "child.pid")) !== null && readPid(join(dir, "parent.pid")) !== null,
    "the check to start",
  );
  const script = remember(readPid(join(dir, "parent.pid")) as number);
  const child = remember(readPid(join(dir, "child.pid")) as number);
  const leader = (await helper.answer("P", id)).body.readUInt32LE(4);
  if (leader !== script) remember(leader);
  return { leader, script, child };
}

describe("vigil-spawner frames", { timeout: 20_000 }, () => {
  test("an environment entry without its NUL gets an error answer, runs nothing and leaks nothing into a check", async () => {
    const helper = new RawHelper();
    const marker = join(work, "leaked");
    // The last entry lacks its NUL, and the next frame follows in the same write: its bytes are what
    // a reader past the frame would take into LEAK's value.
    helper.send(
      runFrame(1, `${work}\0printf '%s' "$LEAK" > ${marker}\0LEAK=x`),
      run(2, 'printf "%s" "$ONE"', ["ONE=1"]),
      runFrame(3, `${work}\0true\0A=1\0`), // every entry ends, but the empty one that ends the list is missing
      runFrame(4, `${work}\0true\0\0junk`), // bytes after the end of the list
    );
    expect(errorText(await helper.answer("E", 1))).toMatch(/^Expected each environment entry to end with NUL/);
    const two = await helper.answer("D", 2);
    expect([exitCode(two), stdoutOf(two)]).toEqual([0, "1"]);
    expect(errorText(await helper.answer("E", 3))).toMatch(/^Expected the environment to end with an empty entry/);
    expect(errorText(await helper.answer("E", 4))).toMatch(
      /^Expected the frame to end after the environment, got 4 more bytes/,
    );
    // ('P' comes too for a run still going after 50 ms, as run 2 may be on a loaded machine.)
    const answers = helper.answers.filter((answer) => answer.type !== "P");
    expect(answers.map((answer) => `${answer.type}${answer.id}`).sort()).toEqual(["D2", "E1", "E3", "E4"]);
    expect(existsSync(marker)).toBe(false);
  });

  test("every frame gets an answer: a short run frame, a short cancel, an unknown type, an empty frame", async () => {
    const id7 = Buffer.alloc(4);
    id7.writeUInt32LE(7, 0);
    const helper = new RawHelper();
    helper.send(
      frame("R", id7), // an id and nothing else
      frame("R", Buffer.from([1, 2])),
      frame("C", Buffer.from([9])),
      frame("X", id7),
      Buffer.from([0, 0, 0, 0]),
      run(8, "echo after"),
    );
    const after = await helper.answer("D", 8);
    expect(stdoutOf(after)).toBe("after\n");
    const answers = helper.answers.filter((answer) => answer.type !== "P"); // run 8 may outlast 50 ms
    expect(answers.map((answer) => `${answer.type}${answer.id}`)).toEqual(["E7", "E0", "E0", "E0", "E0", "D8"]);
    expect(answers.slice(0, 5).map(errorText)).toEqual([
      "Expected a run frame of at least 13 bytes, got 5",
      "Expected a run frame of at least 13 bytes, got 3",
      "Expected a cancel frame of 5 bytes, got 2",
      "Expected a frame of type R or C, got type 0x58",
      "Expected a frame type, got an empty frame",
    ]);
  });

  test("a check has descriptors 0, 1 and 2 only, even when the helper inherited more", async () => {
    const helper = new RawHelper(2); // fds 3 and 4 inherited, not close-on-exec
    // No pipeline in the shell (it would hold a pipe's end while ls reads its table) and no exec of
    // ls in its place (`; true`): while ls runs, the shell waits holding only what it inherited.
    helper.send(run(1, "ls /proc/$$/fd; true"), run(2, "ls -l /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2"));
    expect(stdoutOf(await helper.answer("D", 1))).toBe("0\n1\n2\n");
    const links = stdoutOf(await helper.answer("D", 2));
    expect(links).toMatch(/\/fd\/0 -> \/dev\/null\n/);
    expect(links).toMatch(/\/fd\/1 -> pipe:/);
    expect(links).toMatch(/\/fd\/2 -> pipe:/);
  });

  test.each(["SIGTERM", "SIGHUP", "SIGINT"] as const)(
    "%s to the helper kills every check's whole group before it leaves",
    async (signal) => {
      const helper = new RawHelper();
      const one = await startSleeper(helper, 1);
      const two = await startSleeper(helper, 2);
      helper.process.kill(signal);
      expect(await helper.ended()).toEqual({ code: null, signal });
      for (const pid of [one.leader, one.script, one.child, two.leader, two.script, two.child]) {
        await waitFor(() => !isRunning(pid), `check process ${pid} to be killed`);
      }
    },
  );

  test("SIGKILL to the helper: each check's shell dies with it (PR_SET_PDEATHSIG), the rest of the group is the daemon's to kill", async () => {
    const helper = new RawHelper();
    const { leader, script, child } = await startSleeper(helper, 1);
    helper.process.kill("SIGKILL");
    await helper.ended();
    await waitFor(() => !isRunning(leader), "the check's shell to die with the helper");
    // What the daemon does with the pid it was told (spawner.ts); `sleep` keeps the group id in use.
    expect(isRunning(child)).toBe(true);
    process.kill(-leader, "SIGKILL");
    await waitFor(() => !isRunning(script) && !isRunning(child), "the rest of the group to be killed");
  });

  test("an oversized frame gets an error answer, and the helper kills every group before it exits", async () => {
    const helper = new RawHelper();
    const { leader, script, child } = await startSleeper(helper, 1);
    const huge = Buffer.alloc(4);
    huge.writeUInt32LE(64 * 1024 * 1024 + 1, 0);
    helper.send(huge);
    expect(errorText(await helper.answer("E", 0))).toBe(
      "Expected a frame of at most 67108864 bytes, got 67108865; vigil-spawner exits",
    );
    expect(await helper.ended()).toEqual({ code: 65, signal: null });
    await waitFor(() => ![leader, script, child].some(isRunning), "the check's group to be killed");
  });

  test("end of input (the daemon gone) kills every group", async () => {
    const helper = new RawHelper();
    const { leader, script, child } = await startSleeper(helper, 1);
    helper.process.stdin?.end();
    expect(await helper.ended()).toEqual({ code: 0, signal: null });
    await waitFor(() => ![leader, script, child].some(isRunning), "the check's group to be killed");
  });

  test("when a check's shell exits, what it left in its group is killed before the shell is reaped", async () => {
    const helper = new RawHelper();
    const dir = mkdtempSync(join(work, "left-"));
    helper.send(run(1, `sleep 300 >/dev/null 2>&1 & echo $! > ${dir}/left; exit 3`));
    const done = await helper.answer("D", 1);
    expect([exitCode(done), flags(done)]).toEqual([3, 0]);
    const left = readPid(join(dir, "left")) as number;
    await waitFor(() => !isRunning(left), "the process the shell left in its group to be killed");
  });

  test("a process that left the group and holds the output: the result comes 2 s after the shell exits, its own exit code, not timed out (no kill by the reaped pid at the deadline)", async () => {
    const helper = new RawHelper();
    const dir = mkdtempSync(join(work, "escaped-"));
    // setsid moves it into a session (and group) of its own; the shell exits once it has.
    helper.send(
      run(
        1,
        `setsid sh -c 'echo $$ > ${dir}/escaped; exec sleep 300' & while [ ! -s ${dir}/escaped ]; do sleep 0.01; done; exit 4`,
        [],
        5000,
      ),
    );
    await waitFor(() => readPid(join(dir, "escaped")) !== null, "the escaped process to start");
    const escaped = readPid(join(dir, "escaped")) as number;
    await waitFor(
      () => readFileSync(`/proc/${escaped}/cmdline`, "utf8") === "sleep\u0000300\u0000",
      "it to exec sleep",
    );
    remember(escaped);
    const done = await helper.answer("D", 1, 10_000);
    expect([exitCode(done), flags(done)]).toEqual([4, 0]); // flag 1 would be timedOut
    expect(isRunning(escaped)).toBe(true); // it left the group: not the check's to kill
  });
});
