/**
 * A realistic workload for the side panel's browser tests (issue #26), built once through the real
 * daemon's API: 4 sessions with monitors of every kind and state — two wakes whose webhook refuses
 * them (needs review), an armed, a failed, an expired and a device's waitpoint, a device that cannot
 * be reached, a check failing with exit 127, paused, cancelled and met monitors, a watch, a
 * time, an event, an http__get tool, a browser monitor on a local CI page, a github__pr monitor
 * against the fake GitHub API, and a 198-character name.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { type TestDaemon, waitFor } from "../helpers/daemon.js";
import { fakeGitHub } from "../helpers/fake-github.js";

export interface Workload {
  sessions: { ci: string; train: string; deploy: string; docs: string };
  /** Monitor ids by role. */
  ids: Record<string, string>;
  /** The two wakes needing review, in the order they were made. */
  reviewWakes: string[];
  longName: string;
  /** How many deliveries the refusing webhook has been sent. */
  hookRequests(): number;
  close(): Promise<void>;
}

const LONG_NAME =
  "Wait for the nightly end-to-end suite on the release branch to pass on all three platforms (Linux, macOS, Windows) before tagging v2.4.0 and publishing the packages to the registry as planned";

export async function buildWorkload(daemon: TestDaemon, ciUrl: string, ciTabId: number): Promise<Workload> {
  // A webhook receiver that refuses everything with 400: the wake needs review at once.
  let hookRequests = 0;
  const refusing: Server = createServer((req, res) => {
    hookRequests++;
    req.resume();
    req.on("end", () => res.writeHead(400).end("no"));
  });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hook`;
  const github = await fakeGitHub();
  const token = await daemon.api("PUT", "/api/vault/GITHUB_TOKEN", { value: "ghp_fakeTokenForThePanelSuite0000" });
  expect(token.status, JSON.stringify(token.body)).toBeLessThan(300);
  github.script.checkRuns[0] = { ...github.script.checkRuns[0], status: "in_progress", conclusion: null };

  const session = async (id: string, label: string, adapter?: unknown) => {
    const reply = await daemon.api("POST", "/api/sessions", { id, label, ...(adapter ? { adapter } : {}) });
    expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
    return id;
  };
  const sessions = {
    ci: await session("wl-ci", "CI agent", { kind: "webhook", url: hookUrl }),
    train: await session("wl-train", "Training run"),
    deploy: await session("wl-deploy", "Deploy bot"),
    docs: await session("wl-docs", "Docs writer"),
  };
  const ids: Record<string, string> = {};
  const arm = async (role: string, sid: string, body: Record<string, unknown>) => {
    const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, body);
    expect(reply.status, `${role}: ${JSON.stringify(reply.body)}`).toBe(201);
    ids[role] = reply.body.id;
    return reply.body.id as string;
  };
  const command = (command: string) => ({ kind: "command", command });

  // A device nothing answers on (a closed port): offline or error, with why.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const device = await daemon.api("POST", "/api/devices", { name: "gpu1", ssh: "nobody@127.0.0.1", port });
  expect(device.status, JSON.stringify(device.body)).toBe(201);

  // CI agent: two met monitors whose wakes the webhook refuses, and one still waiting. The two wake
  // the session in one turn (held behind a busy turn until both are ready), so both need review at
  // once, as the panel's one notification for the session tells.
  const turn = (state: "busy" | "idle") => daemon.api("POST", `/api/sessions/${sessions.ci}/turn`, { state });
  expect((await turn("busy")).status).toBe(200);
  await arm("ciGreen", sessions.ci, {
    name: "CI run 8812 green",
    source: command("echo run 8812 passed"),
    intervalSeconds: 5,
  });
  await arm("release", sessions.ci, {
    name: "Release notes built",
    source: command("echo notes ready"),
    intervalSeconds: 5,
  });
  for (const role of ["ciGreen", "release"]) await daemon.waitForState(sessions.ci, ids[role] as string, ["ready"]);
  expect((await turn("idle")).status).toBe(200);
  await arm("lint", sessions.ci, { name: "Lint on main", source: command("exit 1"), intervalSeconds: 30 });

  // Training run: an armed waitpoint, a failed one, and one on the unreachable device.
  const wait = async (role: string, body: Record<string, unknown>) => {
    const reply = await daemon.api("POST", `/api/sessions/${sessions.train}/waitpoints`, body);
    expect(reply.status, `${role}: ${JSON.stringify(reply.body)}`).toBe(201);
    ids[role] = reply.body.id;
    return reply.body.id as string;
  };
  await wait("arm2", {
    label: "train-arm2",
    intent: "Compare arm 2's eval loss with arm 1 and pick the better checkpoint",
    expires_in_hours: 3,
  });
  const sweep = await wait("sweep", {
    label: "eval-sweep",
    intent: "Collect both evals, then report the better one",
    members: ["eval-a", "eval-b"],
    fail_fast: true,
  });
  // Expires a second after arming: an expired waitpoint (red), its wake not taken.
  await wait("expired", {
    label: "smoke-test report",
    intent: "Read the smoke test report",
    expires_in_hours: 1 / 3600,
  });
  await wait("gpuJob", {
    label: "gpu1 fine-tune",
    intent: "Resume once the fine-tune writes its checkpoint",
    device: "gpu1",
  });
  const failed = await daemon.api("POST", `/api/waitpoints/${sweep}/signal`, {
    status: "fail",
    member: "eval-a",
    message: "CUDA out of memory at step 1200",
  });
  expect(failed.status, JSON.stringify(failed.body)).toBeLessThan(300);

  // Deploy bot: failing, paused, cancelled.
  await arm("flaky", sessions.deploy, {
    name: "Staging health probe",
    source: command("no-such-health-tool --staging"),
    intervalSeconds: 30,
  });
  const backup = await arm("backup", sessions.deploy, {
    name: "Nightly backup finished",
    source: command("exit 1"),
    intervalSeconds: 60,
  });
  const canary = await arm("canary", sessions.deploy, {
    name: "Old canary",
    source: command("exit 1"),
    intervalSeconds: 60,
  });
  await daemon.api("POST", `/api/sessions/${sessions.deploy}/monitors/${backup}/control`, { action: "pause" });
  await daemon.api("POST", `/api/sessions/${sessions.deploy}/monitors/${canary}/control`, { action: "cancel" });

  // Docs writer: a very long name, a watch, a time, an event, an http__get tool, the CI tab, a PR on (fake) GitHub.
  await arm("long", sessions.docs, { name: LONG_NAME, source: command("exit 1"), intervalSeconds: 60 });
  await arm("watch", sessions.docs, { name: "Docs build log", source: { kind: "watch", command: "sleep 600" } });
  await arm("time", sessions.docs, {
    name: "Publish window opens",
    source: { kind: "time", at: new Date(Date.now() + 20 * 60_000).toISOString().replace(/\.\d+Z$/, "Z") },
  });
  await arm("event", sessions.docs, { name: "Translation done", source: { kind: "event", type: "translation.done" } });
  await arm("http", sessions.docs, {
    name: "Docs site up",
    source: {
      kind: "tool",
      name: "http__get",
      args: { url: ciUrl },
      condition: { path: "status", operator: "equals", value: 503 },
    },
    intervalSeconds: 30,
  });
  await arm("browser", sessions.docs, {
    name: "CI run 42",
    source: {
      kind: "browser",
      tabId: ciTabId,
      url: ciUrl,
      selector: '[data-testid="run-status"]',
      condition: { path: "text", operator: "equals", value: "Succeeded" },
    },
    intervalSeconds: 30,
  });
  await arm("pr", sessions.docs, {
    name: "PR 1347 checks",
    source: {
      kind: "tool",
      name: "github__pr",
      args: { repo: github.repo, number: github.number, api_url: github.url },
      condition: { path: "checks_completed", operator: "equals", value: true },
    },
    intervalSeconds: 30,
  });

  // Settled: the refused wakes need review, the smoke-test waitpoint expired, the check failed.
  const reviewWakes: string[] = [];
  for (const role of ["ciGreen", "release"]) {
    const view = await daemon.waitForState(sessions.ci, ids[role] as string, ["needs_review"]);
    reviewWakes.push(view.delivery.wakeId);
  }
  await daemon.waitForState(sessions.train, ids.expired as string, ["ready", "finished", "needs_review"]);
  await waitFor(
    async () => {
      const view = await daemon.monitor(sessions.deploy, ids.flaky as string);
      return view.lastError ? view : null;
    },
    { what: "the health probe's first failing check" },
  );
  await waitFor(
    async () => {
      const list = (await daemon.api("GET", "/api/devices")).body as Array<{
        name: string;
        state: string;
        lastError: string | null;
      }>;
      const gpu1 = list.find((d) => d.name === "gpu1");
      return gpu1 && gpu1.state !== "connected" && gpu1.lastError ? gpu1 : null;
    },
    { what: "gpu1's connection failed" },
  );

  return {
    sessions,
    ids,
    reviewWakes,
    longName: LONG_NAME,
    hookRequests: () => hookRequests,
    close: async () => {
      refusing.close();
      await github.close();
    },
  };
}
