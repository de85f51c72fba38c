import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { fakeGitHub } from "../../../test/helpers/fake-github.js";
import { resetGitHubClient, shieldGhTokensWith } from "./github-api.js";
import { githubPr, resetSharedPrs, withDefaults } from "./github-pr.js";
import { type ToolContext, ToolError } from "./tool.js";

const TOKEN = "ghp_fakeTokenValue123456";
const context = (secrets: Record<string, string> = { GITHUB_TOKEN: TOKEN }): ToolContext => ({
  signal: new AbortController().signal,
  timeoutMs: 5000,
  secrets: new Map(Object.entries(secrets)),
});

let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const args = () => ({
  repo: fake.repo,
  number: fake.number,
  token: "${secret:GITHUB_TOKEN}",
  api_url: fake.url,
});
const observe = async (ctx = context()) => (await githubPr.run(args(), ctx)) as Record<string, any>;

beforeEach(async () => {
  resetGitHubClient();
  resetSharedPrs();
  fake = await fakeGitHub();
});
afterEach(() => fake.close());

describe("github__pr observation (bodies from GitHub's OpenAPI examples)", () => {
  test("state, mergeability, head checks from runs and statuses, latest reviews and the flags", async () => {
    const pr = await observe();
    expect(pr).toMatchObject({
      repo: "octocat/Hello-World",
      number: 1347,
      state: "open",
      draft: false,
      merged: false,
      mergeable: true,
      mergeable_state: "clean",
      head_sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e",
      checks_total: 3,
      checks_completed: true,
      checks_failed: false,
      review_decision: "approved",
      approved: true,
      changes_requested: false,
      conflicts: false,
    });
    expect(pr.checks).toEqual([
      {
        name: "mighty_readme",
        kind: "check_run",
        status: "completed",
        conclusion: "neutral",
        url: "https://github.com/github/hello-world/runs/4",
      },
      {
        name: "continuous-integration/jenkins",
        kind: "status",
        status: "completed",
        conclusion: "success",
        url: "https://ci.example.com/1000/output",
      },
      {
        name: "security/brakeman",
        kind: "status",
        status: "completed",
        conclusion: "success",
        url: "https://ci.example.com/2000/output",
      },
    ]);
    expect(pr.reviews).toEqual([
      {
        user: "octocat",
        state: "APPROVED",
        submitted_at: "2019-11-17T17:43:43Z",
        first_line: "Here is the body for the review.",
        url: "https://github.com/octocat/Hello-World/pull/12#pullrequestreview-80",
      },
    ]);
  });

  test("a pending run, a failed status, a change request after an approval and a conflict", async () => {
    fake.script.checkRuns[0] = { ...fake.script.checkRuns[0], status: "in_progress", conclusion: null };
    fake.script.statuses[1] = { ...fake.script.statuses[1], state: "failure" };
    const approval = fake.script.reviews[0]!;
    fake.script.reviews.push(
      { ...approval, id: 81, user: { ...approval.user, login: "hubot" }, state: "APPROVED" },
      {
        ...approval,
        id: 82,
        state: "CHANGES_REQUESTED",
        submitted_at: "2019-11-18T10:00:00Z",
        body: "The migration drops a column still read by the API.\n\nDetails below.",
      },
      { ...approval, id: 83, state: "COMMENTED", submitted_at: "2019-11-18T11:00:00Z" },
    );
    fake.script.pull.mergeable = false;
    fake.script.pull.mergeable_state = "dirty";
    const pr = await observe();
    expect(pr).toMatchObject({
      checks_completed: false,
      checks_pending: 1,
      checks_failed: true,
      failed_checks: [{ name: "security/brakeman", conclusion: "failure", url: "https://ci.example.com/2000/output" }],
      review_decision: "changes_requested",
      approved: false,
      changes_requested: true,
      conflicts: true,
    });
    expect(pr.summary).toBe(
      [
        'octocat/Hello-World#1347 "Amazing new feature": open.',
        "Checks: 2 of 3 completed, 1 failed.",
        "Failed: security/brakeman (failure) https://ci.example.com/2000/output",
        "Changes requested by octocat: The migration drops a column still read by the API. https://github.com/octocat/Hello-World/pull/12#pullrequestreview-80",
        "Review decision: changes requested (approved by hubot).",
        "Conflicts: new-topic cannot merge cleanly into master (mergeable_state dirty); merge or rebase onto master, resolve, and push.",
      ].join("\n"),
    );
    expect(pr.reviews.map((r: { user: string; state: string }) => `${r.user}:${r.state}`)).toEqual([
      "octocat:CHANGES_REQUESTED",
      "hubot:APPROVED",
    ]);
  });

  test("every page of reviews is read (the latest review of a reviewer may be on the last)", async () => {
    const first = fake.script.reviews[0]!;
    for (let i = 0; i < 150; i += 1)
      fake.script.reviews.push({
        ...first,
        id: 100 + i,
        user: { ...first.user, login: `r${i % 3}` },
        state: "COMMENTED",
      });
    fake.script.reviews.push({ ...first, id: 999, state: "CHANGES_REQUESTED", body: "Not yet." });
    const pr = await observe();
    expect(pr.changes_requested).toBe(true);
    expect(pr.reviews).toHaveLength(4);
    expect(fake.hits("reviews").map((r) => r.path)).toHaveLength(2);
    resetSharedPrs();
    await observe();
    expect(fake.hits("reviews").map((r) => r.status)).toEqual([200, 200, 304, 304]);
  });

  test("review comments since a time: none, then one, with a summary line naming who, where and its URL", async () => {
    const since = "2026-12-01T00:00:00Z";
    const withSince = { ...args(), comments_since: since };
    const before = (await githubPr.run(withSince, context())) as Record<string, any>;
    expect(before).toMatchObject({ comments: [], comments_count: 0 });
    expect(before.summary).toMatch(/\nReview comments since 2026-12-01T00:00:00Z: none\.$/);
    fake.script.comments.push({
      ...fake.script.comments[0],
      id: 2,
      body: "This null check is backwards.\nSee the spec.",
      line: 14,
      updated_at: "2026-12-02T09:30:00Z",
    });
    resetSharedPrs();
    const after = (await githubPr.run(withSince, context())) as Record<string, any>;
    expect(after.comments_count).toBe(1);
    expect(after.comments[0]).toEqual({
      user: "octocat",
      path: "file1.txt",
      line: 14,
      first_line: "This null check is backwards.",
      url: "https://github.com/octocat/Hello-World/pull/1#discussion-diff-1",
      updated_at: "2026-12-02T09:30:00Z",
    });
    expect(after.summary).toContain(
      "\nReview comments since 2026-12-01T00:00:00Z: 1; the latest by octocat on file1.txt:14: This null check is backwards. https://github.com/octocat/Hello-World/pull/1#discussion-diff-1",
    );
    expect(fake.hits("pull").length).toBe(2);
    expect(fake.requests.filter((r) => r.path.endsWith("/comments"))).toHaveLength(2);
  });

  test("no checks yet is not 'checks completed'", async () => {
    fake.script.checkRuns.length = 0;
    fake.script.statuses.length = 0;
    fake.script.reviews.length = 0;
    expect(await observe()).toMatchObject({
      checks_total: 0,
      checks_completed: false,
      review_decision: "none",
      approved: false,
    });
  });
});

describe("github__pr is cheap and polite", () => {
  test("the second observation sends If-None-Match; the 304s reuse the bodies kept from before", async () => {
    const first = await observe();
    resetSharedPrs();
    const second = await observe();
    expect(second).toEqual(first);
    expect(fake.rest().map((r) => r.status)).toEqual([200, 200, 200, 200, 304, 304, 304, 304]);
    for (const request of fake.rest().slice(4)) expect(request.headers["if-none-match"]).toMatch(/^"[0-9a-f]{40}"$/);
    // GraphQL (a POST) has no ETag: one request per observation.
    expect(fake.hits("graphql").map((r) => r.status)).toEqual([200, 200]);
    fake.script.pull.state = "closed";
    resetSharedPrs();
    expect((await observe()).state).toBe("closed");
    expect(fake.hits("pull").map((r) => r.status)).toEqual([200, 304, 200]);
  });

  test("twenty concurrent callers on one PR make one set of requests; a later one within the share window none", async () => {
    const all = await Promise.all(Array.from({ length: 20 }, () => observe()));
    expect(new Set(all.map((o) => JSON.stringify(o))).size).toBe(1);
    await observe();
    expect(fake.hits("pull")).toHaveLength(1);
    expect(fake.hits("graphql")).toHaveLength(1);
    expect(fake.requests).toHaveLength(5);
  });

  test("a caller stopped while the shared request is out stops waiting at once; the others still get the answer", async () => {
    const release = fake.hold();
    const stopped = new AbortController();
    const first = githubPr.run(args(), { ...context(), signal: stopped.signal });
    const second = githubPr.run(args(), context());
    await vi.waitFor(() => expect(fake.arrived()).toBe(1));
    stopped.abort();
    await expect(first).rejects.toThrow("the check was stopped before GitHub answered");
    release();
    expect(((await second) as { state: string }).state).toBe("open");
    expect(fake.hits("pull")).toHaveLength(1);
  });

  test("a rate-limit answer is an error naming the reset, and nothing is sent until then", async () => {
    const reset = Math.floor(Date.now() / 1000) + 1800;
    fake.override(() => ({
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      body: { message: "API rate limit exceeded for user ID 1." },
    }));
    const error = await githubPr.run(args(), context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toContain("GitHub rate limit reached (403: API rate limit exceeded");
    expect((error as ToolError).message).toContain(`retry after ${new Date(reset * 1000).toISOString()}`);
    expect((error as ToolError).retryAt).toBe(reset * 1000);
    fake.override(undefined);
    resetSharedPrs();
    const again = await githubPr.run(args(), context()).catch((e: unknown) => e);
    expect((again as ToolError).message).toContain(`no request is sent before ${new Date(reset * 1000).toISOString()}`);
    expect(fake.requests).toHaveLength(1);
  });

  test("with fewer than 10 requests left the answer is used, then nothing is sent until the reset", async () => {
    fake.setRemaining(8);
    expect((await observe()).state).toBe("open");
    resetSharedPrs();
    const error = (await githubPr.run(args(), context()).catch((e: unknown) => e)) as ToolError;
    expect(error.message).toMatch(
      /^GitHub rate limit nearly spent \([0-9] requests left\); no request is sent before \d{4}-\d\d-\d\dT/,
    );
    expect(error.retryAt).toBeGreaterThan(Date.now() + 3000_000);
    expect(fake.requests).toHaveLength(5);
  });

  test("a secondary rate limit (403 + retry-after) waits that long", async () => {
    fake.override(() => ({
      status: 403,
      headers: { "retry-after": "120" },
      body: { message: "You have exceeded a secondary rate limit." },
    }));
    const before = Date.now();
    const error = (await githubPr.run(args(), context()).catch((e: unknown) => e)) as ToolError;
    expect(error.message).toContain("secondary rate limit");
    expect(error.retryAt).toBeGreaterThanOrEqual(before + 120_000);
  });
});

describe("github__pr credentials", () => {
  test("the vault token is sent as a bearer token and never appears in an error", async () => {
    await observe();
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    fake.override(() => ({ status: 401, body: { message: "Bad credentials" } }));
    resetSharedPrs();
    const error = (await githubPr.run(args(), context()).catch((e: unknown) => e)) as ToolError;
    expect(error.message).toBe(
      "GitHub refused the token (vault key GITHUB_TOKEN): 401: Bad credentials; store a new token with `vigil vault set GITHUB_TOKEN`: monitors armed after that use it, this one once the daemon restarts",
    );
    expect(error.message).not.toContain(TOKEN);
  });

  test("a 404 says a private repository may need a token", async () => {
    const error = (await githubPr
      .run({ ...args(), repo: "octocat/private" }, context())
      .catch((e: unknown) => e)) as ToolError;
    expect(error.message).toMatch(
      /404: Not Found \(no such repository or pull request, or vault key GITHUB_TOKEN cannot see it\)/,
    );
  });

  test("a literal token is refused: only a vault reference is stored", () => {
    const parsed = githubPr.args.safeParse({ repo: "o/r", number: 1, token: TOKEN });
    expect(parsed.success).toBe(false);
  });

  test("the default token is the vault's GITHUB_TOKEN when that key exists; GH_HOST gives the Enterprise API", () => {
    const hasToken = (key: string) => key === "GITHUB_TOKEN";
    expect(withDefaults({ repo: "o/r", number: 1 }, hasToken, undefined)).toEqual({
      repo: "o/r",
      number: 1,
      token: "${secret:GITHUB_TOKEN}",
    });
    expect(withDefaults({ repo: "o/r", number: 1 }, () => false, "github.com")).toEqual({ repo: "o/r", number: 1 });
    expect(withDefaults({ repo: "o/r", number: 1, token: "${secret:MINE}" }, hasToken, "ghe.example")).toEqual({
      repo: "o/r",
      number: 1,
      token: "${secret:MINE}",
      api_url: "https://ghe.example/api/v3",
    });
    expect(() => withDefaults({ repo: "o/r", number: 1 }, hasToken, "https://ghe.example")).toThrow(
      'GH_HOST: Expected a host name like ghe.example.com, got "https://ghe.example" (or give args.api_url)',
    );
  });

  test("a refused token is an error, and the next check after it is put right observes again", async () => {
    fake.override(() => ({ status: 401, body: { message: "Bad credentials" } }));
    await expect(githubPr.run(args(), context())).rejects.toThrow("GitHub refused the token");
    fake.override(undefined);
    expect((await observe()).state).toBe("open");
  });

  test("a token from gh is handed to the shield; refused (401), it is forgotten and gh is asked again at the next check", async () => {
    const bin = mkdtempSync(join(tmpdir(), "vigil-gh-"));
    writeFileSync(join(bin, "token"), "ghp_firstFromGh000000000\n");
    writeFileSync(join(bin, "gh"), `#!/bin/sh\necho asked >> "${bin}/asked"\ncat "${bin}/token"\n`);
    chmodSync(join(bin, "gh"), 0o755);
    const shielded: Array<[string, string]> = [];
    shieldGhTokensWith((key, value) => shielded.push([key, value]));
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    const { token: _, ...noToken } = args();
    const host = `127.0.0.1:${new URL(fake.url).port}`;
    try {
      await githubPr.run(noToken, context({}));
      expect(shielded).toEqual([[`gh auth token for ${host}`, "ghp_firstFromGh000000000"]]);
      fake.override(() => ({ status: 401, body: { message: "Bad credentials" } }));
      resetSharedPrs();
      const refused = (await githubPr.run(noToken, context({})).catch((e: unknown) => e)) as ToolError;
      expect(refused.message).toBe(
        "GitHub refused the token (gh auth token): 401: Bad credentials; log in again with `gh auth login` (gh is asked again at the next check)",
      );
      // `gh auth login` again: a new token, asked for at the next check (not kept for 5 minutes).
      writeFileSync(join(bin, "token"), "ghp_secondFromGh00000000\n");
      fake.override(undefined);
      resetSharedPrs();
      expect(((await githubPr.run(noToken, context({}))) as { state: string }).state).toBe("open");
      expect(fake.requests.at(-1)?.headers.authorization).toBe("Bearer ghp_secondFromGh00000000");
      expect(readFileSync(join(bin, "asked"), "utf8").trim().split("\n")).toHaveLength(2);
      // The first stays shielded too (its own key).
      expect(shielded).toEqual([
        [`gh auth token for ${host}`, "ghp_firstFromGh000000000"],
        [`gh auth token for ${host} (2)`, "ghp_secondFromGh00000000"],
      ]);
    } finally {
      process.env.PATH = path;
      shieldGhTokensWith(undefined);
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test("without a token argument, `gh auth token --hostname HOST` is asked (and its token never shown)", async () => {
    const bin = mkdtempSync(join(tmpdir(), "vigil-gh-"));
    const gh = join(bin, "gh");
    writeFileSync(gh, `#!/bin/sh\necho "$@" > "${bin}/args"\necho ghp_fromGhCli0000000000\n`);
    chmodSync(gh, 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const { token: _, ...noToken } = args();
      await githubPr.run(noToken, context({}));
    } finally {
      process.env.PATH = path;
    }
    expect(readFileSync(join(bin, "args"), "utf8").trim()).toBe(
      `auth token --hostname 127.0.0.1:${new URL(fake.url).port}`,
    );
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer ghp_fromGhCli0000000000");
    rmSync(bin, { recursive: true, force: true });
  });
});
