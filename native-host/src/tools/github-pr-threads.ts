/**
 * What `github__pr` reads through GraphQL (REST has neither): the PR's review threads, whether each
 * is resolved, and its merge queue entry. One request per check (one more per extra 100 threads,
 * at most MAX_PAGES), only with a token (GitHub's GraphQL API refuses anonymous requests).
 * `describeThreads` (pure) adds the facts and a summary line to the observation.
 * Design: docs/design.md §4.1.
 */
import { type GitHubAuth, MAX_PAGES } from "./github-api.js";
import { githubGraphql } from "./github-graphql.js";
import { firstLine } from "./github-pr-view.js";
import { ToolError } from "./tool.js";

/** Checked against GitHub's published schema (@octokit/graphql-schema 15.26.1). */
export const PR_THREADS_QUERY = `query ($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      mergeQueueEntry { position state enqueuedAt }
      reviewThreads(first: 100, after: $cursor) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          isOutdated
          path
          line
          comments(first: 1) { totalCount nodes { author { login } body url } }
          latest: comments(last: 1) { nodes { author { login } createdAt updatedAt } }
        }
      }
    }
  }
}`;

interface CommentNode {
  author?: { login?: string } | null;
  body?: string | null;
  url?: string | null;
  createdAt?: string;
  updatedAt?: string;
}
export interface ThreadNode {
  isResolved?: boolean;
  isOutdated?: boolean;
  path?: string;
  line?: number | null;
  comments?: { totalCount?: number; nodes?: CommentNode[] };
  latest?: { nodes?: CommentNode[] };
}
export interface QueueEntry {
  position?: number;
  state?: string;
  enqueuedAt?: string;
}
interface PullData {
  repository?: {
    pullRequest?: {
      mergeQueueEntry?: QueueEntry | null;
      reviewThreads?: {
        totalCount?: number;
        pageInfo?: { hasNextPage?: boolean; endCursor?: string | null };
        nodes?: ThreadNode[];
      };
    } | null;
  } | null;
}

export interface PrThreads {
  threads: ThreadNode[];
  queue: QueueEntry | null;
}

/** Every review thread (100 a page, at most MAX_PAGES) and the merge queue entry of one PR. */
export async function readThreads(
  apiUrl: string,
  repo: string,
  number: number,
  auth: GitHubAuth,
  signal: AbortSignal,
): Promise<PrThreads> {
  const [owner, name] = repo.split("/");
  const threads: ThreadNode[] = [];
  let queue: QueueEntry | null = null;
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const data = (await githubGraphql(apiUrl, PR_THREADS_QUERY, { owner, name, number, cursor }, auth, signal)) as
      | PullData
      | undefined;
    const pull = data?.repository?.pullRequest;
    if (!pull) throw new ToolError(`GitHub's GraphQL API found no pull request ${repo}#${number}`);
    if (page === 0) queue = pull.mergeQueueEntry ?? null;
    threads.push(...(pull.reviewThreads?.nodes ?? []));
    const info = pull.reviewThreads?.pageInfo;
    if (!info?.hasNextPage || !info.endCursor) break;
    cursor = info.endCursor;
  }
  return { threads, queue };
}

/** Unresolved threads listed in the observation at most (the count is of all). */
const LISTED = 30;

/**
 * The thread facts: `unresolved_threads` (a count), `threads` (the unresolved ones: who opened each,
 * where, its first line, who wrote last and when), `unresolved_since` (with `since`: those with a
 * comment written or edited since), `in_merge_queue` and `merge_queue`; and lines in the summary.
 */
export function describeThreads<O extends { summary: string }>(
  observation: O,
  { threads, queue }: PrThreads,
  since: string | undefined,
) {
  const unresolved = threads
    .filter((thread) => thread.isResolved === false)
    .map((thread) => {
      const first = thread.comments?.nodes?.[0];
      const last = thread.latest?.nodes?.[0];
      return {
        path: thread.path ?? "",
        line: thread.line ?? null,
        outdated: thread.isOutdated ?? false,
        user: first?.author?.login ?? "",
        first_line: firstLine(first?.body),
        url: first?.url ?? null,
        comments: thread.comments?.totalCount ?? 0,
        last_user: last?.author?.login ?? "",
        last_at: last ? (latestOf(last.createdAt, last.updatedAt) ?? null) : null,
      };
    });
  const recent =
    since === undefined
      ? undefined
      : unresolved.filter((t) => t.last_at !== null && Date.parse(t.last_at) >= Date.parse(since));
  const lines: string[] = [];
  if (unresolved.length > 0) {
    const shown = recent ?? unresolved;
    const latest = [...shown].sort((a, b) => Date.parse(b.last_at ?? "") - Date.parse(a.last_at ?? ""))[0];
    lines.push(
      `Unresolved review threads: ${unresolved.length}${recent ? `, ${recent.length} with a comment since ${since}` : ""}${
        latest
          ? `; the latest on ${latest.path}${latest.line === null ? "" : `:${latest.line}`}, opened by ${latest.user}: ${latest.first_line} ${latest.url ?? ""}`.trimEnd()
          : ""
      }`,
    );
  }
  if (queue)
    lines.push(
      `In the merge queue: position ${queue.position ?? "?"} (${queue.state ?? "?"}) since ${queue.enqueuedAt ?? "?"}.`,
    );
  return {
    ...observation,
    summary: [observation.summary, ...lines].join("\n"),
    unresolved_threads: unresolved.length,
    threads: unresolved.slice(0, LISTED),
    ...(recent ? { unresolved_since: recent.length } : {}),
    in_merge_queue: queue !== null,
    merge_queue: queue
      ? { position: queue.position ?? null, state: queue.state ?? null, enqueued_at: queue.enqueuedAt ?? null }
      : null,
  };
}

/**
 * Not read (no token, or GraphQL refused or rate limited while REST answered): the facts are null,
 * `threads_error` and the summary say why, and conditions on them are unavailable, never met.
 */
export function withoutThreads<O extends { summary: string }>(observation: O, why: string) {
  return {
    ...observation,
    summary: `${observation.summary}\nReview threads and the merge queue: not read (${why}).`,
    unresolved_threads: null,
    threads: [],
    in_merge_queue: null,
    merge_queue: null,
    threads_error: why,
  };
}

function latestOf(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}
