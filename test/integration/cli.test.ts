import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let work: string;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  work = mkdtempSync(join(tmpdir(), "vigil-cli-"));
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(work, { recursive: true, force: true });
});

describe("the vigil CLI", () => {
  test("wait prints the id; show --json prints the view; the wait ends and inbox shows its wake", async () => {
    const armed = await daemon.cli(
      [
        "wait",
        "--session",
        "c1",
        "--until",
        "0.2",
        "--timeout",
        "60",
        "--description",
        "marker",
        "--",
        "test",
        "-f",
        "go.flag",
      ],
      { cwd: work },
    );
    expect(armed.exitCode, String(armed.stderr)).toBe(0);
    expect(String(armed.stdout).trim()).toBe("mon-1");
    const shown = await daemon.cli(["show", "mon-1", "--session", "c1", "--json"]);
    expect(JSON.parse(String(shown.stdout))).toMatchObject({
      id: "mon-1",
      name: "marker",
      state: "waiting",
      source: { command: "test -f go.flag", cwd: work },
    });
    writeFileSync(join(work, "go.flag"), "");
    await daemon.waitForState("c1", "mon-1", ["ready"]);
    const ls = await daemon.cli(["ls", "--session", "c1"]);
    expect(String(ls.stdout)).toMatch(/^mon-1 ready · met · command · marker/);
    const inbox = await daemon.cli(["inbox", "--session", "c1"]);
    expect(String(inbox.stdout)).toContain('mon-1 "marker" (command wait)');
    expect(String(inbox.stdout)).toContain("Ended (met)");
  });

  test("wait --follow exits 0 when met; into a pipe it draws no progress, only the final status line", async () => {
    writeFileSync(join(work, "now.flag"), "");
    const result = await daemon.cli(
      ["wait", "--session", "c2", "--until", "0.2", "--follow", "--", "test -f now.flag"],
      { cwd: work },
    );
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toMatch(/^mon-1 ready · met · [^\n]*$/);
  });

  test("predicate flags become conditions", async () => {
    const result = await daemon.cli(
      ["wait", "--session", "c3", "--until", "5", "--contains", "READY", "--json", "--", "echo not yet"],
      { cwd: work },
    );
    expect(JSON.parse(String(result.stdout)).source.condition).toEqual({
      path: "output",
      operator: "contains",
      value: "READY",
    });
    const both = await daemon.cli([
      "wait",
      "--session",
      "c3",
      "--until",
      "5",
      "--contains",
      "a",
      "--regex",
      "b",
      "--",
      "true",
    ]);
    expect(both.exitCode).toBe(2);
    expect(String(both.stderr)).toBe(
      "vigil: Expected at most one predicate flag, got several\nTry 'vigil wait --help'",
    );
  });

  test("pause, resume, cancel and events", async () => {
    await daemon.cli(["wait", "--session", "c4", "--until", "5", "--", "false"]);
    expect(String((await daemon.cli(["pause", "mon-1", "--session", "c4"])).stdout)).toMatch(/^mon-1 paused/);
    expect(String((await daemon.cli(["resume", "mon-1", "--session", "c4"])).stdout)).toMatch(/^mon-1 waiting/);
    expect(String((await daemon.cli(["cancel", "mon-1", "--session", "c4"])).stdout)).toMatch(
      /^mon-1 cancelled · command/,
    );
    expect(String((await daemon.cli(["events", "mon-1", "--session", "c4"])).stdout).trim()).toBe("no events");
  });

  test("waitpoint arms one from the shell; the printed cli line signals it; bad input is a usage error", async () => {
    const armed = await daemon.cli(["waitpoint", "nightly", "--intent", "compare the loss", "--session", "c-wp"]);
    expect(armed.exitCode, String(armed.stderr)).toBe(0);
    const out = String(armed.stdout);
    const id = /^(wp_[0-9a-f]{12}) armed in session c-wp/.exec(out)?.[1] as string;
    expect(id).toBeDefined();
    expect(out).toMatch(/^secret: [0-9a-f]{48}$/m);
    expect(out).toMatch(/^recommended: cli$/m);
    const cli = /^cli: (.*)$/m.exec(out)?.[1] as string;
    const run = await execa("sh", ["-c", `true; ${cli}`], { env: { VIGIL_HOME: daemon.home }, reject: false });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const view = await daemon.waitForState("c-wp", id, ["ready"]);
    expect(view.lastEvent).toBe("ok: exit=0");

    const json = await daemon.cli([
      "waitpoint",
      "mailbox",
      "--intent",
      "x",
      "--session",
      "c-wp",
      "--members",
      "a,b",
      "--quorum",
      "all",
      "--max-signals",
      "3",
      "--json",
    ]);
    expect(JSON.parse(String(json.stdout)).how_to_signal.member_note).toContain("a, b");
    const noIntent = await daemon.cli(["waitpoint", "x", "--session", "c-wp"]);
    expect([noIntent.exitCode, String(noIntent.stderr).split("\n")[0]]).toEqual([
      2,
      "vigil: Expected --intent: what you wait for and what you will do then",
    ]);
    expect((await daemon.cli(["waitpoint", "x", "--intent", "y", "--quorum", "some"])).exitCode).toBe(2);
    const unknownDevice = await daemon.cli([
      "waitpoint",
      "x",
      "--intent",
      "y",
      "--device",
      "gpu9",
      "--session",
      "c-wp",
    ]);
    expect(unknownDevice.exitCode).toBe(1);
    expect(String(unknownDevice.stderr)).toContain('Unknown device "gpu9"');
  });

  test("retry finds a wake's session from the wake id alone", async () => {
    // A receiver that refuses (400): the wake needs review at once.
    const refusing = createServer((_req, res) => res.writeHead(400).end());
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hook`;
    expect(
      (await daemon.api("POST", "/api/sessions", { id: "c-retry", adapter: { kind: "webhook", url } })).status,
    ).toBe(201);
    const armed = await daemon.api("POST", "/api/sessions/c-retry/monitors", {
      source: { kind: "command", command: "true" },
      intervalSeconds: 5,
    });
    expect(armed.status, JSON.stringify(armed.body)).toBe(201);
    const review = await daemon.waitForState("c-retry", "mon-1", ["needs_review"]);
    const wake = review.delivery.wakeId as string;
    const retried = await daemon.cli(["retry", wake]);
    expect(retried.exitCode, String(retried.stderr)).toBe(0);
    expect(retried.stdout).toBe(`${wake} ready (session c-retry)`);
    // ls --all reads every session's monitors in one request (the panel route).
    const all = await daemon.cli(["ls", "--all"]);
    expect(all.stdout).toMatch(/^c-retry mon-1 /m);
    expect(all.stdout).toMatch(/^c1 mon-1 /m);
    const unknown = await daemon.cli(["retry", "wake-999999"]);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain("Unknown wake wake-999999");
    refusing.close();
  });

  test("errors are one line on stderr and a nonzero exit", async () => {
    const unknown = await daemon.cli(["show", "mon-42", "--session", "c1"]);
    expect(unknown.exitCode).toBe(1);
    expect(String(unknown.stderr)).toBe("vigil: Unknown monitor mon-42 in session c1");
    const badTimeout = await daemon.cli(["wait", "--until", "5", "--timeout", "900", "--", "true"]);
    expect(badTimeout.exitCode).toBe(1);
    expect(String(badTimeout.stderr)).toBe(
      "vigil: timeoutSeconds: Expected 60–600 seconds (1–59 use the default 300), got 900",
    );
    // A usage error: what is wrong, then where the usage is (not the whole usage).
    const missing = await daemon.cli(["wait", "--", "true"]);
    expect(missing.exitCode).toBe(2);
    expect(String(missing.stderr)).toBe(
      "vigil: required option '--until <seconds>' not specified\nTry 'vigil wait --help'",
    );
  });

  test("vigil wait says on stderr which values it raised or lowered, and --json carries them as adjusted", async () => {
    const plain = await daemon.cli([
      "wait",
      "--session",
      "adjusted",
      "--until",
      "600",
      "--timeout",
      "30",
      "--",
      "false",
    ]);
    expect(plain.exitCode, String(plain.stderr)).toBe(0);
    expect(String(plain.stdout)).toMatch(/^mon-\d+$/);
    expect(String(plain.stderr)).toBe(
      "vigil: --timeout 30 raised to 300 s: deadlines under 60 s use the default 300 s\n" +
        "vigil: --until 600 lowered to 75 s: at least 4 checks must fit the 300 s deadline",
    );
    const json = await daemon.cli([
      "wait",
      "--session",
      "adjusted",
      "--until",
      "100",
      "--timeout",
      "60",
      "--json",
      "--",
      "false",
    ]);
    expect(JSON.parse(String(json.stdout)).adjusted).toEqual([
      { field: "intervalSeconds", asked: 100, used: 15, why: "at least 4 checks must fit the 60 s deadline" },
    ]);
    expect(String(json.stderr)).toBe(
      "vigil: --until 100 lowered to 15 s: at least 4 checks must fit the 60 s deadline",
    );
    const none = await daemon.cli(["wait", "--session", "adjusted", "--until", "10", "--", "false"]);
    expect(String(none.stderr)).toBe("");
  });

  test("without a daemon the CLI says how to start one, the way this user runs vigil", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-nohome-"));
    const userHome = join(home, "user");
    const bin = join(home, "bin");
    mkdirSync(userHome);
    mkdirSync(bin);
    writeFileSync(join(bin, "vigil"), "#!/bin/sh\n", { mode: 0o755 });
    const ls = (path: string) =>
      execa(process.execPath, [BIN, "--home", home, "ls"], { reject: false, env: { HOME: userHome, PATH: path } });
    const said = (how: string) =>
      `vigil: The Vigil daemon is not running for ${home} (no daemon socket at ${join(home, "api.sock")}). Start it with: ${how} --home ${home} serve`;
    const onPath = await ls(`${bin}:/usr/bin:/bin`);
    expect(onPath.exitCode).toBe(1);
    expect(onPath.stderr).toBe(said("vigil"));
    // Not on PATH, no launcher: this checkout's bin, by its absolute path.
    expect((await ls("/usr/bin:/bin")).stderr).toBe(said(BIN));
    rmSync(home, { recursive: true, force: true });
  });

  test("status reports the running daemon; SIGTERM exits 0 and removes daemon.json", async () => {
    const status = await daemon.cli(["status"]);
    expect(String(status.stdout)).toMatch(new RegExp(`^running · pid ${daemon.pid} · ${daemon.url}`));
    const own = await TestDaemon.start();
    expect(await own.stop()).toBe(0);
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(own.home, "daemon.json"))).toBe(false);
    await own.dispose();
  });

  test("a daemon that cannot start says why in one line and exits 1 at once", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-cannot-start-"));
    const serve = (port: string) =>
      execa(process.execPath, [BIN, "--home", home, "serve", "--port", port], { reject: false, timeout: 30_000 });
    writeFileSync(join(home, "settings.json"), JSON.stringify({ sweep: 1 }));
    const badSettings = await serve("0");
    expect(badSettings.exitCode).toBe(1);
    expect(badSettings.stderr).toBe(`vigil: ${join(home, "settings.json")}: Unrecognized key: "sweep"`);
    rmSync(join(home, "settings.json"));
    const taken = await serve(new URL(daemon.url).port);
    expect(taken.exitCode).toBe(1);
    expect(taken.stderr).toBe(
      `vigil: Port ${new URL(daemon.url).port} on 127.0.0.1 is taken by another program: pick another with --port N (or VIGIL_PORT=N; 0 takes any free port)`,
    );
    rmSync(home, { recursive: true, force: true });
  });

  test("daemons started on one home in the same instant: exactly one runs, the others say so and exit 1", async () => {
    const home = mkdtempSync(join(tmpdir(), "vigil-race-"));
    const starts = Array.from({ length: 3 }, () =>
      execa(process.execPath, [BIN, "--home", home, "serve", "--port", "0"], { reject: false }),
    );
    const exited: Array<{ exitCode?: number; stderr: unknown }> = [];
    for (const start of starts) void start.then((result) => exited.push(result));
    await waitFor(() => exited.length >= 2, { what: "two of the three to give up" });
    for (const result of exited) {
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr)).toMatch(new RegExp(`^vigil: A Vigil daemon already runs for ${home}`));
    }
    // The winner serves the home.
    const { url } = await waitFor(
      () => JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")) as { url: string },
      {
        what: "the winner's daemon.json",
      },
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(exited).toHaveLength(2);
    for (const start of starts) start.kill("SIGTERM");
    await Promise.all(starts);
    rmSync(home, { recursive: true, force: true });
  });

  test("a reader that stops early (| head) ends the command quietly", async () => {
    const result = await execa("sh", ["-c", `"${process.execPath}" "${BIN}" --help | head -1`], { reject: false });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^Usage: vigil/);
    // A reader that is gone before the first line: every write fails with EPIPE.
    const many = await execa(
      "bash",
      ["-c", `set -o pipefail; "${process.execPath}" "${BIN}" setup claude-code --dry-run | true`],
      { reject: false, env: { ...process.env, HOME: work } },
    );
    expect(many.exitCode).toBe(0);
    expect(many.stderr).not.toContain("EPIPE");
  });
});
