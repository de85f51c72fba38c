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
import { waitFor } from "../helpers/daemon.js";
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
  const wake = await waitFor(
    async () =>
      (await vigil("inbox", "--all", "--session", sessionId)).find((w: { state: string }) => w.state === "delivered"),
    { timeoutMs: 240_000, what: "the wake to be delivered" },
  ).catch(async (error: Error) => {
    const wakes = await vigil("inbox", "--all", "--session", sessionId);
    throw new Error(
      `${error.message}\n--- wakes ---\n${JSON.stringify(wakes)}\n--- vigil.log ---\n${readFileSync(join(world.vigilHome, "vigil.log"), "utf8").slice(-3000)}`,
    );
  });
  expect(wake.deliveredVia).toBe("opencode run --session (headless)");
  const withWake = world.api.main().filter((r) => r.last.includes("Vigil wake for session"));
  expect(withWake).toHaveLength(1);
  // The same conversation: its history holds the first prompt.
  expect(withWake[0]?.text).toContain("Run the build in the background.");
});
