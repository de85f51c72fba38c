import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { examples, fakeGitHub, gqlComment, gqlThread } from "../../../test/helpers/fake-github.js";
import { resetGitHubClient } from "./github-api.js";
import { graphqlUrl } from "./github-graphql.js";
import { githubPr, resetSharedPrs } from "./github-pr.js";
import type { ToolContext } from "./tool.js";

const TOKEN = "ghp_threadsTokenValue0000";
const context = (secrets: Record<string, string> = { GITHUB_TOKEN: TOKEN }): ToolContext => ({
  signal: new AbortController().signal,
  timeoutMs: 5000,
  secrets: new Map(Object.entries(secrets)),
});

let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const args = (extra: Record<string, unknown> = {}) => ({
  repo: fake.repo,
  number: fake.number,
  token: "${secret:GITHUB_TOKEN}",
  api_url: fake.url,
  ...extra,
});
const observe = async (extra: Record<string, unknown> = {}, ctx = context()) => {
  resetSharedPrs();
  return (await githubPr.run(args(extra), ctx)) as Record<string, any>;
};
const comment = (changes: Record<string, unknown>) => ({ ...structuredClone(examples.comments[0]), ...changes });

beforeEach(async () => {
  resetGitHubClient();
  resetSharedPrs();
  fake = await fakeGitHub();
});
afterEach(() => fake.close());

test("the GraphQL endpoint beside the REST root (github.com, Enterprise, a bare origin)", () => {
  expect(graphqlUrl("https://api.github.com")).toBe("https://api.github.com/graphql");
  expect(graphqlUrl("https://ghe.example/api/v3/")).toBe("https://ghe.example/api/graphql");
  expect(graphqlUrl("http://127.0.0.1:9")).toBe("http://127.0.0.1:9/graphql");
});

describe("github__pr review threads and merge queue (GraphQL)", () => {
  test("a resolved thread counts for nothing; unresolved ones are listed with who opened them, where, and their first line", async () => {
    expect(await observe()).toMatchObject({
      unresolved_threads: 0,
      threads: [],
      in_merge_queue: false,
      merge_queue: null,
    });
    fake.script.threads.push(
      gqlThread(comment({ body: "Why a loop here?\nA map reads better.", path: "src/a.ts", line: 12 }), false),
    );
    const pr = await observe();
    expect(pr.unresolved_threads).toBe(1);
    expect(pr.threads).toEqual([
      {
        path: "src/a.ts",
        line: 12,
        outdated: false,
        user: "octocat",
        first_line: "Why a loop here?",
        url: "https://github.com/octocat/Hello-World/pull/1#discussion-diff-1",
        comments: 1,
        last_user: "octocat",
        last_at: "2011-04-14T16:00:49Z",
      },
    ]);
    expect(pr.summary).toContain(
      "Unresolved review threads: 1; the latest on src/a.ts:12, opened by octocat: Why a loop here? https://github.com/octocat/Hello-World/pull/1#discussion-diff-1",
    );
    expect(pr).not.toHaveProperty("unresolved_since");
  });

  test("with comments_since: unresolved_since counts the unresolved threads written in since then (a reply counts)", async () => {
    const since = "2026-12-03T10:00:00Z";
    const old = gqlThread(comment({ body: "Old", path: "a.ts", line: 1 }), false);
    const answered = gqlThread(comment({ body: "Rename this?", path: "b.ts", line: 2 }), false);
    answered.comments.push(
      gqlComment(
        comment({ user: { login: "hubot" }, created_at: "2026-12-03T11:00:00Z", updated_at: "2026-12-03T11:00:00Z" }),
      ),
    );
    const resolved = gqlThread(
      comment({ created_at: "2026-12-03T12:00:00Z", updated_at: "2026-12-03T12:00:00Z" }),
      true,
    );
    fake.script.threads = [old, answered, resolved];
    const pr = await observe({ comments_since: since });
    expect(pr).toMatchObject({ unresolved_threads: 2, unresolved_since: 1 });
    expect(pr.threads[1]).toMatchObject({
      path: "b.ts",
      user: "octocat",
      comments: 2,
      last_user: "hubot",
      last_at: "2026-12-03T11:00:00Z",
    });
    expect(pr.summary).toContain(
      `Unresolved review threads: 2, 1 with a comment since ${since}; the latest on b.ts:2, opened by octocat: Rename this?`,
    );
  });

  test("every page of threads is read (100 a page, by cursor)", async () => {
    fake.script.threads = Array.from({ length: 230 }, (_, i) => gqlThread(comment({ path: `f${i}.ts` }), i !== 229));
    const pr = await observe();
    expect(pr.unresolved_threads).toBe(1);
    expect(pr.threads[0].path).toBe("f229.ts");
    expect(fake.hits("graphql")).toHaveLength(3);
  });

  test("in the merge queue: in_merge_queue, its position and state, and a summary line", async () => {
    fake.script.mergeQueueEntry = { position: 2, state: "AWAITING_CHECKS", enqueuedAt: "2026-12-03T12:00:00Z" };
    const pr = await observe();
    expect(pr).toMatchObject({
      in_merge_queue: true,
      merge_queue: { position: 2, state: "AWAITING_CHECKS", enqueued_at: "2026-12-03T12:00:00Z" },
    });
    expect(pr.summary).toContain("In the merge queue: position 2 (AWAITING_CHECKS) since 2026-12-03T12:00:00Z.");
  });

  test("without a token GraphQL is not asked: the facts are null and the summary says why", async () => {
    const { token: _, ...anonymous } = args();
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent"; // no gh either
    let pr: Record<string, any>;
    try {
      pr = (await githubPr.run(anonymous, context({}))) as Record<string, any>;
    } finally {
      process.env.PATH = path;
    }
    expect(pr).toMatchObject({ unresolved_threads: null, in_merge_queue: null, merge_queue: null });
    expect(pr.summary).toContain("Review threads and the merge queue: not read (GitHub's GraphQL API needs a token).");
    expect(fake.hits("graphql")).toHaveLength(0);
  });

  test("GitHub's NOT_FOUND error (200 with errors) leaves the REST facts standing, the thread facts null and why", async () => {
    fake.override((path) =>
      path === "/graphql"
        ? {
            status: 200,
            body: {
              data: { repository: { pullRequest: null } },
              errors: [
                {
                  type: "NOT_FOUND",
                  path: ["repository", "pullRequest"],
                  message: "Could not resolve to a PullRequest with the number of 1347.",
                },
              ],
            },
          }
        : undefined,
    );
    const pr = await observe();
    const why = `POST ${fake.url}/graphql: GitHub answered NOT_FOUND: Could not resolve to a PullRequest with the number of 1347.`;
    expect(pr).toMatchObject({
      state: "open",
      checks_completed: true,
      unresolved_threads: null,
      in_merge_queue: null,
      merge_queue: null,
      threads_error: why,
    });
    expect(pr.summary).toContain(`Review threads and the merge queue: not read (${why}).`);
  });

  test("GraphQL's own rate limit (RATE_LIMITED) closes GraphQL's gate until its reset; REST goes on", async () => {
    const reset = Math.floor(Date.now() / 1000) + 900;
    fake.override((path) =>
      path === "/graphql"
        ? {
            status: 200,
            headers: {
              "x-ratelimit-resource": "graphql",
              "x-ratelimit-remaining": "0",
              "x-ratelimit-reset": String(reset),
            },
            body: { errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded for user ID 1." }] },
          }
        : undefined,
    );
    const resetIso = new Date(reset * 1000).toISOString();
    const first = await observe();
    expect(first.threads_error).toBe(
      `GitHub GraphQL rate limit reached (RATE_LIMITED: API rate limit exceeded for user ID 1.); retry after ${resetIso}`,
    );
    expect(first.state).toBe("open");
    fake.override(undefined);
    const again = await observe();
    expect(again.threads_error).toBe(
      `GitHub GraphQL rate limit reached (RATE_LIMITED: API rate limit exceeded for user ID 1.); no request is sent before ${resetIso}`,
    );
    // No GraphQL request until the reset; the REST requests went on (as 304s).
    expect(fake.hits("graphql")).toHaveLength(1);
    expect(fake.hits("pull").map((r) => r.status)).toEqual([200, 304]);
  });
});
