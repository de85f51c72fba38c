/**
 * The GitHub client against a server that plays the attacker (issue #37): an endless answer, many
 * large answers, and a token asked to travel in clear text (an `http://` API, a redirect to one).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { fakeGitHub } from "../../../test/helpers/fake-github.js";
import { networkAddress } from "../../../test/helpers/network-address.js";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { prepareMonitor } from "../engine/arming.js";
import { GITHUB_BODY_CAP } from "./github-answer.js";
import { ETAG_BUDGET, githubGet, keptAnswerBytes, resetGitHubClient } from "./github-api.js";
import { githubPr, resetSharedPrs } from "./github-pr.js";
import type { ToolContext, ToolError } from "./tool.js";

const TOKEN = "ghp_fakeTokenValue123456";
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  timeoutMs: 30_000,
  secrets: new Map([["GITHUB_TOKEN", TOKEN]]),
});
const auth = { token: TOKEN, source: "vault key GITHUB_TOKEN" };
const MB = 1024 * 1024;

let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const servers: Server[] = [];
beforeEach(async () => {
  resetGitHubClient();
  resetSharedPrs();
  fake = await fakeGitHub();
});
afterEach(async () => {
  await fake.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const failure = (run: Promise<unknown>) => rejectionOf<ToolError>(run);

// Tens of MB go through a real socket: room for a loaded machine (a limit, not a timed assertion).
describe("GitHub answers are read with a byte cap", { timeout: 60_000 }, () => {
  test("a 300 MB answer fails the check with the cap's error; the server wrote little and RSS grew < 100 MB", async () => {
    fake.flood((path) => path.endsWith("/pulls/1347"), 300 * MB);
    const rssBefore = process.memoryUsage().rss;
    const args = { repo: fake.repo, number: fake.number, token: "${secret:GITHUB_TOKEN}", api_url: fake.url };
    const error = await failure(githubPr.run(args, context()));
    const growth = process.memoryUsage().rss - rssBefore;
    expect(error.message).toBe(
      `GitHub answered more than ${GITHUB_BODY_CAP} bytes for GET ${fake.url}/repos/octocat/Hello-World/pulls/1347; read ${GITHUB_BODY_CAP}`,
    );
    expect(fake.flooded()).toBeLessThan(GITHUB_BODY_CAP + 32 * MB);
    expect(growth).toBeLessThan(100 * MB);
  });

  test("sixteen checks of sixteen endless answers at once: each stops at the cap", async () => {
    fake.flood((path) => /\/pulls\/\d+$/.test(path), 300 * MB);
    const runs = Array.from({ length: 16 }, (_, i) =>
      failure(
        githubPr.run(
          { repo: fake.repo, number: 1000 + i, token: "${secret:GITHUB_TOKEN}", api_url: fake.url },
          context(),
        ),
      ),
    );
    const errors = await Promise.all(runs);
    for (const error of errors) expect(error.message).toMatch(/^GitHub answered more than \d+ bytes for GET /);
    expect(fake.flooded()).toBeLessThan(16 * (GITHUB_BODY_CAP + 8 * MB));
  });

  test("a GraphQL answer too: the observation says the threads were not read, naming the cap", async () => {
    fake.flood((path) => path === "/graphql", 300 * MB);
    const args = { repo: fake.repo, number: fake.number, token: "${secret:GITHUB_TOKEN}", api_url: fake.url };
    const pr = (await githubPr.run(args, context())) as Record<string, unknown>;
    expect(pr.threads_error).toBe(
      `GitHub answered more than ${GITHUB_BODY_CAP} bytes for POST ${fake.url}/graphql; read ${GITHUB_BODY_CAP}`,
    );
    expect(fake.flooded()).toBeLessThan(GITHUB_BODY_CAP + 32 * MB);
  });

  test("many distinct large answers keep the ETag cache under its byte budget; the latest are still reused", async () => {
    const big = "x".repeat(3 * MB);
    fake.override((path) => ({ status: 200, headers: { etag: `"${path}"` }, body: { path, big } }));
    const paths = Array.from({ length: 14 }, (_, i) => `/big/${i}`);
    for (const path of paths) {
      await githubGet(fake.url, path, auth, AbortSignal.timeout(30_000));
      expect(keptAnswerBytes()).toBeLessThanOrEqual(ETAG_BUDGET);
    }
    expect(keptAnswerBytes()).toBeGreaterThan(ETAG_BUDGET - 4 * MB);
    fake.override((path) => ({ status: 304, headers: { etag: `"${path}"` }, body: "" }));
    const last = await githubGet(fake.url, "/big/13", auth, AbortSignal.timeout(30_000));
    expect(last).toMatchObject({ notModified: true, body: { path: "/big/13" } });
    expect(fake.requests.at(-1)?.headers["if-none-match"]).toBe('"/big/13"');
  });
});

/** A server on a non-loopback address that records every request's headers. */
async function networkServer(): Promise<{ url: string; got: IncomingHttpHeaders[] }> {
  const got: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    got.push(req.headers);
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  servers.push(server);
  const host = networkAddress();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://${host}:${port}`, got };
}

describe("a GitHub token never travels in clear text", () => {
  test("arming refuses an http:// api_url (loopback aside) with what was expected and what came", () => {
    const arm = (api_url: string) =>
      prepareMonitor(
        {
          source: {
            kind: "tool",
            name: "github__pr",
            args: { repo: "o/r", number: 1, api_url },
            condition: { path: "state", operator: "equals", value: "closed" },
          },
        },
        () => true,
        Date.now(),
      );
    expect(() => arm("http://api.github.com")).toThrow(
      "source.args: api_url: Expected https://…, got http://api.github.com: a token is never sent in clear text",
    );
    expect(() => arm("http://ghe.example/api/v3")).toThrow(/a token is never sent in clear text/);
    for (const loopback of ["http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9", "https://ghe.example/api/v3"])
      expect(() => arm(loopback)).not.toThrow();
  });

  test("an http:// API stored before (or given past the schema) is refused at request time: nothing is sent", async () => {
    const plain = await networkServer();
    const args = { repo: fake.repo, number: fake.number, token: "${secret:GITHUB_TOKEN}", api_url: plain.url };
    const error = await failure(githubPr.run(args, context()));
    expect(error.message).toBe(
      `GET ${plain.url}/repos/octocat/Hello-World/pulls/1347: expected https://…, got ${plain.url}: a token is never sent in clear text`,
    );
    expect(plain.got).toEqual([]);
    expect(error.message).not.toContain(TOKEN);
  });

  test("a redirect to an http:// host is not followed: the token (or anything) never reaches it", async () => {
    const plain = await networkServer();
    fake.override((path) => ({ status: 302, headers: { location: `${plain.url}${path}` }, body: {} }));
    const error = await failure(githubGet(fake.url, "/repos/o/r/pulls/1", auth, AbortSignal.timeout(10_000)));
    expect(error.message).toBe(
      `GET ${fake.url}/repos/o/r/pulls/1: expected https://…, got ${plain.url}: a token is never sent in clear text`,
    );
    expect(plain.got).toEqual([]);
  });

  test("a same-origin redirect (a renamed repository) is followed with the token", async () => {
    fake.override((path) =>
      path === "/repos/old/name"
        ? { status: 301, headers: { location: `${fake.url}/repos/new/name` }, body: {} }
        : { status: 200, body: { path } },
    );
    const answer = await githubGet(fake.url, "/repos/old/name", auth, AbortSignal.timeout(10_000));
    expect(answer.body).toEqual({ path: "/repos/new/name" });
    expect(fake.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ["/repos/old/name", `Bearer ${TOKEN}`],
      ["/repos/new/name", `Bearer ${TOKEN}`],
    ]);
  });
});
