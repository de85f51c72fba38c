/**
 * The real OpenCode CLI (pinned, from a cache outside the repo) against a scripted fake
 * OpenAI-compatible Chat Completions API (a provider with a `baseURL` in opencode.json), wired to a
 * real Vigil daemon by `vigil setup opencode` alone (its plugin): the agent arms a wait through its
 * shell tool with no session flag (the plugin gives the tool OPENCODE_SESSION_ID), and once the
 * process has exited the wake resumes that same session headless, once. Pre-seeded as test setup,
 * never by the product: the fake provider and model.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { untilCli, waitFor } from "../helpers/daemon.js";
import { useAgentWorld } from "./agent-world.js";

const world = useAgentWorld("opencode", ({ api, home }) => {
  const config = join(home, ".config", "opencode");
  mkdirSync(config, { recursive: true });
  const provider = {
    npm: "@ai-sdk/openai-compatible",
    name: "Fake",
    options: { baseURL: `${api.url}/v1`, apiKey: "sk-fake" },
    models: { "fake-model": { name: "Fake" } },
  };
  writeFileSync(
    join(config, "opencode.json"),
    JSON.stringify({ model: "fake/fake-model", provider: { fake: provider }, autoupdate: false, share: "disabled" }),
  );
  return { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
});
const vigil = (...args: string[]) => world.vigil(...args);

const events = (stdout: string) =>
  stdout.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as { type: string; sessionID?: string }];
    } catch {
      return [];
    }
  });

const wakes = (sessionId: string) => vigil("inbox", "--all", "--session", sessionId);
const explain = async (error: Error, sessionId: string) =>
  new Error(
    `${error.message}\n--- wakes ---\n${JSON.stringify(await wakes(sessionId))}\n--- vigil.log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-3000)}`,
  );

test("a closed OpenCode session is resumed headless with the wake, once", async () => {
  const flag = join(world.work, "build-done");
  // The RUN line ends the line: OpenCode may quote a message that holds spaces.
  const first = await execa(
    "opencode",
    [
      "run",
      "--format",
      "json",
      `Run the build in the background.\nRUN: vigil wait --until 0.3 --timeout 120 --description build -- test -f ${flag}\n`,
    ],
    { cwd: world.work, env: world.env, reject: false, timeout: 180_000, input: "" },
  );
  expect(first.exitCode, first.stderr).toBe(0);
  const sessionId = events(first.stdout).find((event) => event.sessionID)?.sessionID as string;
  expect(sessionId).toMatch(/^ses_/);

  // The plugin bound the session; the wait armed from the shell tool landed in it.
  const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === sessionId);
  expect(session?.adapter).toMatchObject({ kind: "opencode", pid: expect.any(Number) });
  expect((await vigil("ls", "--session", sessionId))[0]).toMatchObject({ state: "waiting", name: "build" });

  writeFileSync(flag, "");
  const wake = await untilCli(
    async () => (await wakes(sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 240_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    throw await explain(error, sessionId);
  });
  expect(wake.deliveredVia).toBe("opencode run --session (headless)");
  const withWake = world.api.main().filter((r) => r.last.includes("Vigil wake for session"));
  expect(withWake).toHaveLength(1);
  // The same conversation: its history holds the first prompt.
  expect(withWake[0]?.text).toContain("Run the build in the background.");
}, 420_000);

test("an idle session open in OpenCode's server is prompted with its wake by Vigil's plugin, in-session, once", async () => {
  const flag = join(world.work, "build-done");
  // The open session lives in `opencode serve` (what the TUI runs too); a client prompts it once.
  const server = execa("opencode", ["serve", "--port", "0"], {
    cwd: world.work,
    env: world.env,
    reject: false,
    detached: true,
    timeout: 300_000,
  });
  let out = "";
  server.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  try {
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(out)?.[0], {
      timeoutMs: 120_000,
      what: "opencode serve to listen",
    });
    // A client (what the TUI does) makes a session in the server and prompts it, through the server's API.
    const call = async (path: string, body: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      return (await response.json()) as { id: string };
    };
    const sessionId = (await call("/session", {})).id;
    expect(sessionId).toMatch(/^ses_/);
    await call(`/session/${sessionId}/message`, {
      parts: [
        {
          type: "text",
          text: `Run the build in the background.\nRUN: vigil wait --until 0.3 --timeout 120 --description build -- test -f ${flag}\n`,
        },
      ],
    });

    // The plugin bound the session to the server's process; the wait armed from the shell tool landed in it.
    const [session] = (await vigil("sessions")).filter((s: { id: string }) => s.id === sessionId);
    expect(session?.adapter).toMatchObject({ kind: "opencode", pid: expect.any(Number) });
    expect((await vigil("ls", "--session", sessionId))[0]).toMatchObject({ state: "waiting", name: "build" });

    // Idle and open: no prompt is typed, the plugin takes the wake and prompts the session with it.
    writeFileSync(flag, "");
    const taken = await untilCli(
      async () => (await wakes(sessionId)).find((w: { state: string }) => w.state === "delivered"),
      { timeoutMs: 60_000, what: "the plugin to take the wake" },
    ).catch(async (error: Error) => {
      throw await explain(error, sessionId);
    });
    expect(taken.deliveredVia).toBe("OpenCode plugin (idle session prompted)");
    await waitFor(() => world.api.main().some((r) => r.last.includes("Vigil wake for session")), {
      timeoutMs: 60_000,
      what: "the model to be sent the wake in the open session",
    });
    expect(readFileSync(join(world.vigilHome, "vigil.log"), "utf8")).not.toContain("delivering turn");
  } finally {
    process.kill(-(server.pid as number), "SIGKILL");
    await server;
  }
}, 420_000);
