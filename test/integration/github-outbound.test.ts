/**
 * Issue #37 (findings 4 and Lower 8) through the real daemon: a GitHub API that answers without end
 * fails the check with the cap's error while the daemon's memory stays bounded, and an `http://`
 * API URL is refused at arming (400) with what was expected and what came.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { fakeGitHub } from "../helpers/fake-github.js";

const MB = 1024 * 1024;
let daemon: TestDaemon;
let fake: Awaited<ReturnType<typeof fakeGitHub>>;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  expect(
    (await daemon.api("PUT", "/api/vault/GITHUB_TOKEN", { value: "ghp_outboundTokenValue0123456789" })).status,
  ).toBeLessThan(300);
  fake = await fakeGitHub();
});
afterAll(async () => {
  await fake?.close();
  await daemon?.dispose();
});

/** The daemon's resident memory, from /proc (bytes). */
const rssOf = (pid: number): number =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024;

test("eight monitors on PRs whose answers never end: each check fails with the cap's error; the daemon's RSS grows < 100 MB", async () => {
  fake.flood((path) => /\/pulls\/\d+$/.test(path), 1024 * MB);
  const sid = await daemon.newSession("gh-flood");
  const before = rssOf(daemon.pid);
  let most = before;
  for (let n = 1; n <= 8; n += 1) {
    const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      source: {
        kind: "tool",
        name: "github__pr",
        args: { repo: fake.repo, number: n, api_url: fake.url },
        condition: { path: "state", operator: "equals", value: "closed" },
      },
      intervalSeconds: 30,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
  }
  const errors = await waitFor(
    async () => {
      most = Math.max(most, rssOf(daemon.pid));
      const views = await Promise.all(Array.from({ length: 8 }, (_, i) => daemon.monitor(sid, `mon-${i + 1}`)));
      return views.every((v) => v.lastError) ? views.map((v) => v.lastError as string) : null;
    },
    { timeoutMs: 60_000, what: "eight check errors" },
  );
  for (const [i, error] of errors.entries())
    expect(error).toBe(
      `GitHub answered more than ${4 * MB} bytes for GET ${fake.url}/repos/octocat/Hello-World/pulls/${i + 1}; read ${4 * MB}`,
    );
  expect(fake.flooded()).toBeLessThan(8 * (4 * MB + 16 * MB));
  expect(most - before).toBeLessThan(100 * MB);
  fake.flood(undefined);
});

test("an http:// api_url is refused at arming: 400, 'a token is never sent in clear text', nothing stored", async () => {
  const sid = await daemon.newSession("gh-http");
  const refused = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: {
      kind: "tool",
      name: "github__pr",
      args: { repo: "octocat/Hello-World", number: 1, api_url: "http://api.github.com" },
      condition: { path: "state", operator: "equals", value: "closed" },
    },
  });
  expect(refused.status).toBe(400);
  expect(JSON.stringify(refused.body)).toContain(
    "source.args: api_url: Expected https://…, got http://api.github.com: a token is never sent in clear text",
  );
  expect((await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body).toEqual([]);
});
