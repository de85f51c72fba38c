/**
 * `github__pr` monitors through the real daemon against a fake GitHub API whose answers are
 * GitHub's own OpenAPI examples (test/helpers/fake-github.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { fakeGitHub } from "../helpers/fake-github.js";

const TOKEN = "ghp_integrationTokenValue0123456789";

let daemon: TestDaemon;
const fakes: Array<Awaited<ReturnType<typeof fakeGitHub>>> = [];

beforeAll(async () => {
  daemon = await TestDaemon.start();
  const set = await daemon.api("PUT", "/api/vault/GITHUB_TOKEN", { value: TOKEN });
  expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
});
afterAll(() => daemon.dispose());
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function newFake() {
  const fake = await fakeGitHub();
  fakes.push(fake);
  return fake;
}

const prSource = (fake: { url: string; repo: string; number: number }, condition: unknown) => ({
  kind: "tool",
  name: "github__pr",
  args: { repo: fake.repo, number: fake.number, api_url: fake.url },
  condition,
});

test("a monitor on a PR's checks wakes when the last check completes; the token is the vault's and appears nowhere", async () => {
  const fake = await newFake();
  fake.script.checkRuns[0] = { ...fake.script.checkRuns[0], status: "in_progress", conclusion: null };
  const sid = await daemon.newSession("gh");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    name: "PR 1347 checks",
    source: prSource(fake, { path: "checks_completed", operator: "equals", value: true }),
    intervalSeconds: 0.5,
    timeoutSeconds: 120,
    continuation: "Read the failed checks and fix them.",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  // The default token: the vault's GITHUB_TOKEN, stored as a reference.
  expect(made.body.source.args.token).toBe("${secret:GITHUB_TOKEN}");
  const waiting = await waitFor(async () => {
    const view = await daemon.monitor(sid, "mon-1");
    return view.lastObservation?.checks_pending === 1 ? view : null;
  });
  expect(waiting.state).toBe("waiting");
  fake.script.checkRuns[0] = { ...fake.script.checkRuns[0], status: "completed", conclusion: "failure" };
  const ended = await daemon.waitForState(sid, "mon-1", ["ready"]);
  expect(ended.lastObservation).toMatchObject({ checks_completed: true, checks_failed: true });
  expect(ended.lastObservation.failed_checks).toEqual([
    { name: "mighty_readme", conclusion: "failure", url: "https://github.com/github/hello-world/runs/4" },
  ]);
  const wakes = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{ text: string }>;
  expect(wakes[0]?.text).toContain(
    [
      "```text",
      'octocat/Hello-World#1347 "Amazing new feature": open.',
      "Checks: 3 of 3 completed, 1 failed.",
      "Failed: mighty_readme (failure) https://github.com/github/hello-world/runs/4",
      "Review decision: approved (approved by octocat).",
      "",
      "{",
    ].join("\n"),
  );
  expect(wakes[0]?.text).toContain('"checks_failed": true');

  expect(fake.requests.length).toBeGreaterThan(0);
  for (const request of fake.requests) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
  const everything = JSON.stringify([
    (await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body,
    (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/checks`)).body,
    (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/events`)).body,
    wakes,
  ]);
  expect(everything).not.toContain(TOKEN);
  expect(readFileSync(join(daemon.home, "vigil.log"), "utf8")).not.toContain(TOKEN);
  expect(daemon.stderr).not.toContain(TOKEN);
});

test("twenty monitors on one PR: one set of requests per interval at the fake, 304s after the first", async () => {
  const fake = await newFake();
  const sid = await daemon.newSession("gh20");
  for (let i = 0; i < 20; i += 1) {
    const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: prSource(fake, { path: "merged", operator: "equals", value: true }),
      intervalSeconds: 4,
      timeoutSeconds: 300,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
  const checksOf = async (id: string) =>
    ((await daemon.api("GET", `/api/sessions/${sid}/monitors/${id}/checks`)).body as unknown[]).length;
  const ids = Array.from({ length: 20 }, (_, i) => `mon-${i + 1}`);
  await waitFor(async () => (await Promise.all(ids.map(checksOf))).every((n) => n >= 3), {
    timeoutMs: 40_000,
    what: "three checks of every monitor",
  });
  const checks = Math.max(...(await Promise.all(ids.map(checksOf))));
  const pulls = fake.hits("pull");
  // One request per interval (at most one more when arming twenty took longer than the share window).
  expect(pulls.length).toBeLessThanOrEqual(checks + 1);
  expect(pulls.slice(1).every((r) => r.status === 304)).toBe(true);
  // GraphQL (threads, merge queue) is part of the one shared observation: one POST per interval too.
  expect(fake.hits("graphql").length).toBeLessThanOrEqual(checks + 1);
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

test("a rate-limit answer is a check error naming the reset, and the next check waits for it", async () => {
  const fake = await newFake();
  const reset = Math.floor(Date.now() / 1000) + 1800;
  fake.override(() => ({
    status: 403,
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
    body: { message: "API rate limit exceeded for user ID 1." },
  }));
  const sid = await daemon.newSession("ghrl");
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: prSource(fake, { path: "approved", operator: "equals", value: true }),
    intervalSeconds: 0.5,
    timeoutSeconds: 3600,
  });
  const view = await waitFor(async () => {
    const monitor = await daemon.monitor(sid, "mon-1");
    return monitor.lastError ? monitor : null;
  });
  const resetIso = new Date(reset * 1000).toISOString();
  expect(view.lastError).toContain(
    `GitHub rate limit reached (403: API rate limit exceeded for user ID 1.); retry after ${resetIso}`,
  );
  expect(Date.parse(view.nextCheckAt)).toBeGreaterThanOrEqual(reset * 1000);
  const checks = (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/checks`)).body as Array<{
    outcome: string;
    excerpt: string;
  }>;
  expect(checks.at(-1)?.excerpt).toContain(`retry after ${resetIso}`);
  expect(fake.requests).toHaveLength(1);
});

test("docs/monitors.md's three pull-request waits arm as written", async () => {
  const fake = await newFake();
  const guide = readFileSync(join(import.meta.dirname, "..", "..", "docs", "monitors.md"), "utf8");
  const start = guide.indexOf("### Wait for a pull request");
  expect(start).toBeGreaterThan(-1);
  const section = guide.slice(start);
  const block = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const bodies = block
    .split(/\n(?=\{)/)
    .filter((text) => text.trim())
    .map((text) => JSON.parse(text));
  expect(bodies).toHaveLength(3);
  const sid = await daemon.newSession("ghreadme");
  for (const body of bodies) {
    body.source.args.api_url = fake.url;
    const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, body);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

test("a github__run monitor wakes when the run completes, with the failed step's log URL in the wake", async () => {
  const fake = await newFake();
  const sid = await daemon.newSession("ghrun");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: {
      kind: "tool",
      name: "github__run",
      args: { repo: fake.repo, workflow: "build.yml", branch: "main", api_url: fake.url },
      condition: { path: "completed", operator: "equals", value: true },
    },
    intervalSeconds: 0.5,
    timeoutSeconds: 120,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await waitFor(async () => (await daemon.monitor(sid, "mon-1")).lastObservation?.status === "queued");
  const job = fake.script.jobs[0]!;
  fake.script.jobs[0] = {
    ...job,
    conclusion: "failure",
    steps: job.steps.map((step: Record<string, unknown>, i: number) =>
      i === 2 ? { ...step, conclusion: "failure" } : step,
    ),
  };
  fake.script.run = { ...fake.script.run, status: "completed", conclusion: "failure" };
  await daemon.waitForState(sid, "mon-1", ["ready"]);
  const wakes = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{ text: string }>;
  expect(wakes[0]?.text).toContain(
    `Failed: build (failure) at step ${JSON.stringify(job.steps[2].name)} ${job.html_url}#step:${job.steps[2].number}:1`,
  );
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});
