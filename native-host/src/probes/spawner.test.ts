// The checks' helper (dist/vigil-spawner) with real processes: it is compiled here into a temporary
// folder, and every result is compared with what the direct spawn gives for the same command.
// Design: docs/design.md §3.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { commandProbe } from "./command.js";
import { configureSpawner, currentSpawner, runShell, runShellDirect } from "./run-shell.js";
import { Spawner } from "./spawner.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const FIXTURES = join(ROOT, "test", "fixtures");
const work = mkdtempSync(join(tmpdir(), "vigil-spawner-"));
const helper = join(work, "vigil-spawner");
const logged: string[] = [];
// A C compiler is part of what the project needs (better-sqlite3 builds with it): no compiler fails here.
execFileSync(process.env.CC ?? "cc", ["-O2", "-o", helper, join(ROOT, "native-host/spawner/spawner.c")]);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** Still running: a zombie whose parent has not reaped it yet has ended. */
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
};
const waitFor = async (probe: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const options = { cwd: work, timeoutMs: 5000 };

beforeAll(() => configureSpawner({ path: helper, log: (message) => logged.push(message) }));
afterAll(() => {
  configureSpawner({ path: undefined });
  rmSync(work, { recursive: true, force: true });
});

describe("command checks through vigil-spawner", () => {
  test("exit codes, tails and the unrunnable flag match the direct spawn", async () => {
    const commands = [
      "true",
      "echo out; echo err >&2; exit 1",
      "exit 126",
      "no-such-command-here",
      "seq 1 20000",
      "printf 'é%.0s' $(seq 1 50); printf 'ü%.0s' $(seq 1 50) >&2",
    ];
    for (const command of commands) {
      for (const keepChars of [undefined, 7]) {
        const viaHelper = await runShell(command, { ...options, keepChars });
        const direct = await runShellDirect(command, { ...options, keepChars });
        const { durationMs: _a, ...a } = viaHelper;
        const { durationMs: _b, ...b } = direct;
        expect(a, command).toEqual(b);
      }
    }
    expect(currentSpawner()?.pid).toBeGreaterThan(0);
    const unrunnable = await runShell("exit 127", options);
    expect(unrunnable).toMatchObject({ exitCode: 127, unrunnable: true });
    const seq = await runShell("seq 1 20000", options);
    expect(seq.stdout.startsWith("…")).toBe(true);
    expect(seq.stdout.endsWith("\n20000")).toBe(true);
    expect(seq.stdout.length).toBeLessThanOrEqual(16_001);
  });

  test("a missing folder is a spawn failure, as before", async () => {
    const result = await runShell("true", { ...options, cwd: join(work, "gone") });
    expect(result).toMatchObject({
      exitCode: null,
      unrunnable: true,
      error: "Command could not start: spawn /bin/sh ENOENT",
    });
  });

  test("secrets reach the command through its environment, not its argv", async () => {
    const result = await runShell('echo "$VIGIL_SECRET_TOKEN"; cat /proc/$$/cmdline | tr "\\0" " "', {
      ...options,
      env: { VIGIL_SECRET_TOKEN: "s3cr3t-value" },
    });
    expect(result.stdout.split("\n")[0]).toBe("s3cr3t-value");
    expect(result.stdout.split("\n")[1]).not.toContain("s3cr3t-value");
    const helperArgs = readFileSync(`/proc/${currentSpawner()?.pid}/cmdline`, "utf8");
    expect(helperArgs).not.toContain("s3cr3t-value");
  });

  test("a variable of the check replaces the inherited one of the same name; the rest are inherited", async () => {
    const result = await runShell('env | grep -c "^HOME="; echo "$HOME"; echo "$PATH"', {
      ...options,
      env: { HOME: "/check-home" },
    });
    expect(result.stdout.split("\n").slice(0, 3)).toEqual(["1", "/check-home", process.env.PATH]);
  });

  test("the timeout kills the whole process group, grandchild included", async () => {
    const dir = mkdtempSync(join(work, "group-"));
    const result = await runShell(`sh ${join(FIXTURES, "sleep-with-child.sh")} ${dir}`, {
      ...options,
      timeoutMs: 500,
    });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, cancelled: false, unrunnable: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(450);
    expect(result.durationMs).toBeLessThan(3000);
    const parent = Number(readFileSync(join(dir, "parent.pid"), "utf8"));
    const child = Number(readFileSync(join(dir, "child.pid"), "utf8"));
    await waitFor(() => !alive(parent) && !alive(child));
  });

  test("an abort cancels the check and kills its group", async () => {
    const dir = mkdtempSync(join(work, "abort-"));
    const controller = new AbortController();
    const running = runShell(`sh ${join(FIXTURES, "sleep-with-child.sh")} ${dir}`, {
      ...options,
      signal: controller.signal,
    });
    await waitFor(() => {
      try {
        return readFileSync(join(dir, "child.pid"), "utf8").trim() !== "";
      } catch {
        return false;
      }
    });
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
    await waitFor(() => !alive(Number(readFileSync(join(dir, "child.pid"), "utf8"))));
  });

  test("many checks at once each get their own result", async () => {
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => runShell(`echo ${i}; exit ${i % 3}`, options)),
    );
    for (const [i, result] of results.entries()) expect(result).toMatchObject({ stdout: String(i), exitCode: i % 3 });
  });

  test("the helper killed mid-check: that check reports an error, its group dies, the next check works", async () => {
    await runShell("true", options);
    const first = currentSpawner()?.pid as number;
    const dir = mkdtempSync(join(work, "killed-"));
    const running = runShell(`sh ${join(FIXTURES, "sleep-with-child.sh")} ${dir}`, options);
    await waitFor(() => {
      try {
        return readFileSync(join(dir, "child.pid"), "utf8").trim() !== "";
      } catch {
        return false;
      }
    });
    // The helper has told the daemon the check's pid (after 50 ms), so its group can be killed too.
    await waitFor(() => currentSpawner()?.knownGroups === 1);
    process.kill(first, "SIGKILL");
    const result = await running;
    expect(result.error).toMatch(/^Command check lost: vigil-spawner exited \(SIGKILL\)/);
    expect(result).toMatchObject({ exitCode: null, unrunnable: false, timedOut: false });
    await waitFor(() => !alive(Number(readFileSync(join(dir, "child.pid"), "utf8"))));
    const next = await runShell("echo again", options);
    expect(next).toMatchObject({ exitCode: 0, stdout: "again", error: null });
    expect(currentSpawner()?.pid).not.toBe(first);
    expect(logged.some((line) => line.includes("exited (SIGKILL)"))).toBe(true);
  });

  test("a command check the helper lost is an ordinary check error, never an exit code", async () => {
    await runShell("true", options);
    const helperPid = currentSpawner()?.pid as number;
    const dir = mkdtempSync(join(work, "lost-"));
    const checking = commandProbe.check(
      { kind: "command", command: `sh ${join(FIXTURES, "sleep-with-child.sh")} ${dir}` },
      { cwd: work, env: {}, timeoutMs: 5000, signal: new AbortController().signal } as never,
    );
    await waitFor(() => currentSpawner()?.knownGroups === 1);
    process.kill(helperPid, "SIGKILL");
    expect(await checking).toEqual({
      outcome: "error",
      unrunnable: false,
      error: expect.stringMatching(/^Command check lost: vigil-spawner exited/),
    });
  });

  test("a request the helper cannot read fails its check at once with the helper's reason", async () => {
    // runShell never sends this (encodable() sends a NUL in a value to the direct spawn); Spawner.run does.
    const notes: string[] = [];
    const raw = new Spawner(helper, (message) => notes.push(message));
    try {
      const result = await raw.run({
        command: "true",
        cwd: work,
        env: { A: "1\0" },
        timeoutMs: 30_000,
        keepBytes: 100,
      });
      expect(result).toMatchObject({
        exitCode: null,
        notStarted: false,
        helperError:
          "vigil-spawner refused the request: Expected the frame to end after the environment, got 1 more byte",
      });
      expect(notes).toEqual([
        "vigil-spawner refused a request: Expected the frame to end after the environment, got 1 more byte",
      ]);
    } finally {
      raw.stop();
    }
  });

  test("when the shell exits, what it left in its group dies then, in both paths; a process that left the group is not killed by the reaped pid", {
    timeout: 30_000,
  }, async () => {
    for (const run of [runShell, runShellDirect]) {
      const dir = mkdtempSync(join(work, "left-"));
      const left = await run(`sleep 300 >/dev/null 2>&1 & echo $! > ${dir}/left; exit 3`, options);
      expect(left, run.name).toMatchObject({ exitCode: 3, timedOut: false, error: null });
      const leftPid = Number(readFileSync(join(dir, "left"), "utf8"));
      await waitFor(() => !running(leftPid));
      // setsid takes it out of the group; it holds the output pipes, and the shell exits once it has left.
      const escaping = run(
        `setsid sh -c 'echo $$ > ${dir}/escaped; exec sleep 300' & while [ ! -s ${dir}/escaped ]; do sleep 0.01; done; exit 4`,
        { ...options, timeoutMs: 5000 },
      );
      await waitFor(() => {
        try {
          return readFileSync(join(dir, "escaped"), "utf8").trim() !== "";
        } catch {
          return false;
        }
      });
      const escapedPid = Number(readFileSync(join(dir, "escaped"), "utf8"));
      try {
        // Its result comes 2 s after the shell exits (the pipes' grace), with the shell's own code:
        // nothing waits for the deadline to kill a group by a pid that was reaped.
        expect(await escaping, run.name).toMatchObject({ exitCode: 4, timedOut: false });
        expect(running(escapedPid), run.name).toBe(true);
      } finally {
        if (readFileSync(`/proc/${escapedPid}/cmdline`, "utf8").startsWith("sleep"))
          process.kill(escapedPid, "SIGKILL");
      }
    }
  });

  test("a helper that cannot start: checks run directly instead, logged once", async () => {
    const notes: string[] = [];
    configureSpawner({ path: join(work, "no-such-helper"), log: (message) => notes.push(message) });
    const one = await runShell("echo direct", options);
    const two = await runShell("exit 3", options);
    expect(one).toMatchObject({ exitCode: 0, stdout: "direct", error: null });
    expect(two).toMatchObject({ exitCode: 3 });
    expect(currentSpawner()).toBeNull();
    expect(notes.filter((line) => line.includes("could not run"))).toHaveLength(1);
    configureSpawner({ path: helper, log: (message) => logged.push(message) });
  });
});
