/**
 * The real Codex CLI (pinned, from a cache outside the repo) against a scripted fake Responses API,
 * wired to a real Vigil daemon by `vigil setup codex` alone: the agent arms a wait through its shell
 * tool with no session flag, exits, and the wake resumes that same thread headless, once.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { untilCli } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";
import { fakeCodexHome } from "./codex-home.js";

const world = useAgentWorld("codex", ({ api, home }) => {
  const codexHome = fakeCodexHome(home, api.url);
  return { CODEX_HOME: codexHome, FAKE_API_KEY: "sk-fake" };
});
const vigil = (...args: string[]) => world.vigil(...args);

test("a closed Codex thread is resumed headless with the wake, once", async () => {
  const flag = join(world.work, "build-done");
  // Every 2 s: the check runs in Codex's sandbox (`codex sandbox`), whose start alone can take over
  // a 0.3 s check's time limit on a loaded machine.
  const first = await execa(
    "codex",
    [
      "exec",
      "--skip-git-repo-check",
      "--json",
      `Wait for the build.\nRUN: vigil wait --until 2 --timeout 120 --description "the build" -- test -f ${flag}`,
    ],
    { cwd: world.work, env: world.env, reject: false, timeout: 120_000, input: "" },
  );
  expect(first.exitCode, first.stderr).toBe(0);
  const thread = first.stdout
    .split("\n")
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return {};
      }
    })
    .find((event) => event.type === "thread.started")?.thread_id as string;
  expect(thread).toBeTruthy();

  // Its trusted SessionStart hook bound the thread; the wait landed in it with no session flag.
  const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === thread);
  expect(session?.adapter.kind).toBe("codex");
  expect((await vigil("ls", "--session", thread))[0]).toMatchObject({ state: "waiting", name: "the build" });
  expect(world.api.main().some((r) => r.text.includes(`Vigil is running for this session (${thread})`))).toBe(true);

  writeFileSync(flag, "");
  const wake = await untilCli(
    async () =>
      (await vigil("inbox", "--all", "--session", thread)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 90_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    const wakes = await vigil("inbox", "--all", "--session", thread);
    error.message += `\n--- wakes ---\n${JSON.stringify(wakes.map((w: { output: string }) => w.output))}`;
    error.message += `\n--- monitors ---\n${JSON.stringify(await vigil("ls", "--session", thread))}`;
    throw new Error(
      `${error.message}\n--- vigil.log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-3000)}`,
    );
  });
  expect(wake.deliveredVia).toBe("codex exec resume (headless)");
  const withWake = world.api.main().filter((r) => r.last.includes("Vigil wake for session"));
  expect(withWake).toHaveLength(1);
  expect(withWake[0]?.text).toContain("Wait for the build.");
});

test("under Codex's workspace-write sandbox, `vigil wait` arms the wait, and its check runs in that sandbox: no write outside its folder, no network (issue #37)", async () => {
  // Outside /tmp (workspace-write may write it) and outside the project: what the check must not touch.
  const outside = mkdtempSync(join(homedir(), ".cache", "vigil-codex-outside-"));
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.end("hit");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  try {
    const exec = (prompt: string) =>
      execa("codex", ["exec", "--skip-git-repo-check", "--json", "--sandbox", "workspace-write", prompt], {
        cwd: world.work,
        env: world.env,
        reject: false,
        timeout: 120_000,
        input: "",
      });
    const outputs = (stdout: string) =>
      stdout
        .split("\n")
        .flatMap((line) => {
          try {
            return [JSON.parse(line)];
          } catch {
            return [];
          }
        })
        .filter((event) => event.type === "item.completed" && event.item?.type === "command_execution")
        .map((event) => event.item as { aggregated_output: string; exit_code: number });

    // The sandbox is on: a plain program may not connect to the daemon's socket.
    const probe = await exec(
      `RUN: node -e "require('net').connect(process.env.VIGIL_HOME + '/api.sock').on('error', (e) => console.log(e.code)).on('connect', () => { console.log('connected'); process.exit(0) })"`,
    );
    expect(outputs(probe.stdout)[0]?.aggregated_output.trim()).toBe("EPERM");

    const marker = join(outside, "escaped");
    const run = await exec(
      `RUN: vigil wait --until 5 --timeout 120 --description "escape" -- 'touch ${marker}; curl -s -m 3 ${url}; exit 1'`,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const [command] = outputs(run.stdout);
    expect(command?.exit_code, command?.aggregated_output).toBe(0);
    const thread = run.stdout.match(/"thread_id":"([^"]+)"/)?.[1] as string;
    const view = await untilCli(
      async () => {
        const [monitor] = await vigil("ls", "--session", thread);
        return monitor?.lastCheckAt ? monitor : null;
      },
      { timeoutMs: 60_000, what: "the armed check's first run" },
    );
    expect(view).toMatchObject({ state: "waiting", name: "escape" });
    expect(view.sandbox).toMatch(/^runs in Codex's sandbox \((workspace-write|read-only), /);
    expect(JSON.stringify(view.lastObservation)).toMatch(/Read-only file system/);
    expect(existsSync(marker)).toBe(false);
    expect(hits).toBe(0);
  } finally {
    server.close();
    rmSync(outside, { recursive: true, force: true });
  }
});
