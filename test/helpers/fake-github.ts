/**
 * A local fake of the GitHub API for the `github__*` tools: the REST endpoints they read, answering
 * with the example bodies of GitHub's published OpenAPI description (`@octokit/openapi`, vendored in
 * github-examples.json), changed only where a test says (a PR's state, its checks, its reviews); and
 * `POST /graphql` for the one
 * query `github__pr` sends (review threads, merge queue), answered in the shape of GitHub's GraphQL
 * schema (`data.repository.pullRequest…`, a `NOT_FOUND` error for an unknown pull request), its
 * threads made from the REST review-comment example. It sends ETags and answers `If-None-Match` with
 * 304 (not counted against the budget, as GitHub does), sends rate-limit headers for two budgets
 * (`core`, `graphql`), can answer a rate limit (403 + `x-ratelimit-remaining: 0`) or a 401, and
 * records every request it got.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

type Json = Record<string, any>;

/**
 * The examples GitHub publishes for the endpoints the fake answers: github-examples.json, copied
 * verbatim from the OpenAPI description in `@octokit/openapi` (its version and the description's
 * sha256 are in the file) by vendor-github-examples.mjs, run by hand.
 */
export const examples = (() => {
  const vendored = JSON.parse(readFileSync(join(import.meta.dirname, "github-examples.json"), "utf8")) as {
    examples: Record<string, unknown>;
  };
  const value = (name: string) => {
    if (!(name in vendored.examples)) throw new Error(`Expected the example "${name}" in github-examples.json`);
    return structuredClone(vendored.examples[name]) as any;
  };
  return {
    pull: value("pull-request") as Json,
    checkRuns: value("check-run-paginated") as Json,
    status: value("combined-commit-status") as Json,
    reviews: value("pull-request-review-items") as Json[],
    comments: value("pull-request-review-comment-items") as Json[],
    run: value("workflow-run") as Json,
    jobs: value("job-paginated") as Json,
    workflowRuns: value("workflow-run-paginated") as Json,
    deployments: value("deployment-items") as Json[],
    deploymentStatuses: value("deployment-status-items") as Json[],
  };
})();

export interface FakeRequest {
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
}

/** A review comment as GitHub's GraphQL schema has it (PullRequestReviewComment: the fields read). */
export interface GqlComment {
  author: { login: string } | null;
  body: string;
  url: string;
  createdAt: string;
  updatedAt: string;
}
/** A review thread (PullRequestReviewThread) with every comment, oldest first. */
export interface GqlThread {
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  comments: GqlComment[];
}

/** A GraphQL review comment from a REST one (the OpenAPI example, or a test's changed copy). */
export function gqlComment(rest: Json): GqlComment {
  return {
    author: rest.user ? { login: rest.user.login } : null,
    body: rest.body,
    url: rest.html_url,
    createdAt: rest.created_at,
    updatedAt: rest.updated_at,
  };
}

/** A thread opened by a REST review comment (its path and line). */
export function gqlThread(rest: Json, isResolved: boolean): GqlThread {
  return { isResolved, isOutdated: false, path: rest.path, line: rest.line ?? null, comments: [gqlComment(rest)] };
}

export interface PrScript {
  pull: Json;
  checkRuns: Json[];
  statuses: Json[];
  reviews: Json[];
  comments: Json[];
  run: Json;
  jobs: Json[];
  deployments: Json[];
  deploymentStatuses: Json[];
  /** Review threads (GraphQL only); at first one resolved thread, the example comment's. */
  threads: GqlThread[];
  /** The merge queue entry (MergeQueueEntry: position, state, enqueuedAt), or null. */
  mergeQueueEntry: Json | null;
}

export async function fakeGitHub(owner = "octocat", repo = "Hello-World", number = 1347) {
  const script: PrScript = {
    pull: { ...structuredClone(examples.pull), number },
    checkRuns: structuredClone(examples.checkRuns.check_runs),
    statuses: structuredClone(examples.status.statuses),
    reviews: structuredClone(examples.reviews),
    comments: structuredClone(examples.comments),
    run: structuredClone(examples.run),
    jobs: structuredClone(examples.jobs.jobs),
    deployments: structuredClone(examples.deployments),
    deploymentStatuses: structuredClone(examples.deploymentStatuses),
    threads: [gqlThread(examples.comments[0], true)],
    mergeQueueEntry: null,
  };
  const requests: FakeRequest[] = [];
  let answer: ((path: string) => { status: number; headers?: Json; body: unknown } | undefined) | undefined;
  let remaining = 4999;
  let graphqlRemaining = 4999;

  /** The answer to github__pr's GraphQL query (github-pr-threads.ts), as GitHub shapes it. */
  const graphqlBody = (request: { query?: string; variables?: Json }): Json => {
    const query = request.query ?? "";
    for (const field of ["mergeQueueEntry", "reviewThreads(first: 100, after: $cursor)", "latest: comments(last: 1)"])
      if (!query.includes(field)) return { errors: [{ message: `the fake knows no query without ${field}` }] };
    const v = request.variables ?? {};
    if (`${v.owner}/${v.name}` !== `${owner}/${repo}`)
      return {
        data: { repository: null },
        errors: [
          {
            type: "NOT_FOUND",
            path: ["repository"],
            message: `Could not resolve to a Repository with the name '${v.owner}/${v.name}'.`,
          },
        ],
      };
    if (v.number !== number)
      return {
        data: { repository: { pullRequest: null } },
        errors: [
          {
            type: "NOT_FOUND",
            path: ["repository", "pullRequest"],
            message: `Could not resolve to a PullRequest with the number of ${v.number}.`,
          },
        ],
      };
    const start = v.cursor ? Number(Buffer.from(String(v.cursor), "base64").toString().split(":")[1]) : 0;
    const page = script.threads.slice(start, start + 100);
    const end = start + page.length;
    return {
      data: {
        repository: {
          pullRequest: {
            mergeQueueEntry: script.mergeQueueEntry,
            reviewThreads: {
              totalCount: script.threads.length,
              pageInfo: {
                hasNextPage: end < script.threads.length,
                endCursor: page.length ? Buffer.from(`cursor:${end}`).toString("base64") : null,
              },
              nodes: page.map((thread) => ({
                isResolved: thread.isResolved,
                isOutdated: thread.isOutdated,
                path: thread.path,
                line: thread.line,
                comments: {
                  totalCount: thread.comments.length,
                  nodes: thread.comments.slice(0, 1).map(({ author, body, url }) => ({ author, body, url })),
                },
                latest: {
                  nodes: thread.comments
                    .slice(-1)
                    .map(({ author, createdAt, updatedAt }) => ({ author, createdAt, updatedAt })),
                },
              })),
            },
          },
        },
      },
    };
  };

  const bodyFor = (path: string, query: URLSearchParams): unknown => {
    const sha = script.pull.head.sha as string;
    const base = `/repos/${owner}/${repo}`;
    if (path === `${base}/pulls/${number}`) return script.pull;
    if (path === `${base}/commits/${sha}/check-runs`)
      return { ...examples.checkRuns, total_count: script.checkRuns.length, check_runs: script.checkRuns };
    if (path === `${base}/commits/${sha}/status`) {
      const states = script.statuses.map((s) => s.state as string);
      const state = states.some((s) => s === "failure" || s === "error")
        ? "failure"
        : states.every((s) => s === "success") && states.length > 0
          ? "success"
          : "pending";
      return { ...examples.status, sha, state, total_count: script.statuses.length, statuses: script.statuses };
    }
    if (path === `${base}/pulls/${number}/reviews`) return script.reviews;
    if (path === `${base}/actions/runs/${script.run.id}`) return script.run;
    if (path === `${base}/deployments`) {
      const environment = query.get("environment");
      const sha = query.get("sha");
      return script.deployments.filter(
        (d) => (!environment || d.environment === environment) && (!sha || d.sha === sha),
      );
    }
    if (path === `${base}/deployments/${script.deployments[0]?.id}/statuses`) return script.deploymentStatuses;
    if (path === `${base}/actions/runs/${script.run.id}/jobs`)
      return { total_count: script.jobs.length, jobs: script.jobs };
    if (path.startsWith(`${base}/actions/workflows/`) && path.endsWith("/runs"))
      return { ...examples.workflowRuns, total_count: 1, workflow_runs: [script.run] };
    if (path === `${base}/pulls/${number}/comments`) {
      const since = query.get("since");
      return script.comments.filter((c) => since === null || Date.parse(c.updated_at) >= Date.parse(since));
    }
    return undefined;
  };

  let held: Promise<void> | undefined;
  let arrived = 0;
  let flood: { matches: (path: string) => boolean; bytes: number } | undefined;
  let flooded = 0;
  const server: Server = createServer(async (req, res) => {
    arrived += 1;
    if (held) await held;
    const requested = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const path = requested.pathname;
    const reply = (status: number, headers: Json, body?: string) => {
      requests.push({ path, status, headers: req.headers });
      res.writeHead(status, {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-resource": "core",
        "x-ratelimit-remaining": String(remaining),
        "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
        ...headers,
      });
      res.end(body);
    };
    if (flood?.matches(path)) {
      requests.push({ path, status: 200, headers: req.headers });
      res.writeHead(200, { "content-type": "application/json", etag: '"flood"' });
      // A JSON array that goes on for `bytes`, written as fast as the reader takes it (no more).
      const chunk = Buffer.from(`${'"0123456789abcdef",'.repeat(3449)}"x",`);
      res.write("[");
      for (let sent = 1; sent < flood.bytes && !res.destroyed; sent += chunk.length) {
        flooded += chunk.length;
        if (!res.write(chunk))
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off("drain", done);
              res.off("close", done);
              resolve();
            };
            res.once("drain", done);
            res.once("close", done);
          });
      }
      res.end('"end"]');
      return;
    }
    const scripted = answer?.(path);
    if (path === "/graphql" && req.method === "POST" && !scripted) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const resource = { "x-ratelimit-resource": "graphql", "x-ratelimit-remaining": String(--graphqlRemaining) };
      if (!req.headers.authorization) {
        reply(
          401,
          { "content-type": "application/json", ...resource },
          JSON.stringify({ message: "This endpoint requires you to be authenticated." }),
        );
        return;
      }
      const body = graphqlBody(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      reply(200, { "content-type": "application/json; charset=utf-8", ...resource }, JSON.stringify(body));
      return;
    }
    if (scripted) {
      reply(
        scripted.status,
        { "content-type": "application/json", ...scripted.headers },
        JSON.stringify(scripted.body),
      );
      return;
    }
    let body = bodyFor(path, requested.searchParams);
    const paging: Json = {};
    if (body !== undefined && /\/(reviews|comments|check-runs|deployments|statuses)$/.test(path)) {
      // Pages as GitHub does: per_page (default 30), page (from 1), a Link header to the next one.
      const perPage = Number(requested.searchParams.get("per_page") ?? 30);
      const page = Number(requested.searchParams.get("page") ?? 1);
      const list: Json[] = Array.isArray(body) ? body : (body as Json).check_runs;
      const slice = list.slice((page - 1) * perPage, page * perPage);
      body = Array.isArray(body) ? slice : { ...(body as Json), check_runs: slice };
      if (page * perPage < list.length) {
        const next = new URL(requested);
        next.searchParams.set("page", String(page + 1));
        paging.link = `<${next.href}>; rel="next"`;
      }
    }
    if (body === undefined) {
      reply(404, { "content-type": "application/json" }, JSON.stringify({ message: "Not Found" }));
      return;
    }
    const text = JSON.stringify(body);
    const etag = `"${createHash("sha1").update(text).digest("hex")}"`;
    if (req.headers["if-none-match"] === etag) {
      reply(304, { etag, ...paging });
      return;
    }
    remaining -= 1;
    reply(200, { "content-type": "application/json; charset=utf-8", etag, ...paging }, text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    repo: `${owner}/${repo}`,
    number,
    script,
    requests,
    /** Requests for one endpoint of the PR: "pull", "check-runs", "status", "reviews" or "graphql". */
    hits(endpoint: "pull" | "check-runs" | "status" | "reviews" | "graphql") {
      const suffix = {
        pull: `/pulls/${number}`,
        "check-runs": "/check-runs",
        status: "/status",
        reviews: "/reviews",
        graphql: "/graphql",
      };
      return requests.filter((r) => r.path.endsWith(suffix[endpoint]));
    },
    /** The REST requests (GET), without GraphQL's. */
    rest: () => requests.filter((r) => r.path !== "/graphql"),
    /** What the `core` budget has left (only 200 answers spend it). */
    remaining: () => remaining,
    /** Answers every request with this instead (undefined: the normal answers again). */
    override(next: typeof answer) {
      answer = next;
    },
    /** Answers requests whose path `matches` with a JSON body of `bytes` (undefined: normal answers again). */
    flood(matches: ((path: string) => boolean) | undefined, bytes = 0) {
      flood = matches && { matches, bytes };
    },
    /** The bytes of flood bodies written so far (what readers took, plus the sockets' buffers). */
    flooded: () => flooded,
    /** Requests that reached the server, answered or not. */
    arrived: () => arrived,
    /** Answers nothing until the returned function is called. */
    hold(): () => void {
      let release = () => {};
      held = new Promise<void>((resolve) => {
        release = () => {
          held = undefined;
          resolve();
        };
      });
      return release;
    },
    setRemaining(next: number) {
      remaining = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}
