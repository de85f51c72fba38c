/**
 * `github__pr`: a pull request as an agent waits on it — its state, whether it can merge, the checks
 * on its head commit (check runs and commit statuses) and the latest review of each reviewer — with
 * flags that make conditions read naturally (`checks_completed`, `checks_failed`, `approved`,
 * `changes_requested`, `conflicts`).
 * Four conditional REST requests per observation (github-api.ts): the pull, then the check runs,
 * the combined status and the reviews of its head (one more per extra page, and one for review
 * comments when `comments_since` asks), and, with a token, one GraphQL request for the review threads
 * and the merge queue (github-pr-threads.ts); github-pr-view.ts makes the observation. Monitors on the same PR share one observation:
 * a call while another is in flight waits for it, and one made within SHARE_MS of the last reuses it,
 * so twenty monitors on one PR cost one set of requests per interval.
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { envConfig } from "../base/config.js";
import { ValidationError } from "../base/errors.js";
import {
  apiUrlForHost,
  assertGateOpen,
  authKey,
  DEFAULT_API_URL,
  type GitHubAuth,
  githubGet,
  githubGetAll,
  resolveAuth,
} from "./github-api.js";
import { describeThreads, readThreads, withoutThreads } from "./github-pr-threads.js";
import {
  type CheckRunsBody,
  type CommentBody,
  describePr,
  type PullBody,
  type ReviewBody,
  type StatusBody,
  withComments,
} from "./github-pr-view.js";
import { isLoopbackHost } from "./private-address.js";
import { type Tool, ToolError } from "./tool.js";

const DEFAULT_TOKEN_KEY = "GITHUB_TOKEN";
/** An observation this young is shared with every other monitor on the same PR. */
export const SHARE_MS = 3000;

/** The arguments every github__* tool takes besides its own. */
export const RepoArg = z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "Expected owner/name");
export const TokenArg = z
  .string()
  .regex(
    /^\$\{secret:[A-Za-z_][A-Za-z0-9_]{0,63}\}$/,
    "Expected a vault reference like ${secret:GITHUB_TOKEN}, not a token",
  )
  .optional();
export const ApiUrlArg = z
  .string()
  .superRefine((value, context) => {
    const problem = apiUrlProblem(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  })
  .optional();

/**
 * What is wrong with an API URL, or null: it must be https (a token goes with every request), or
 * http to loopback only (a local fake in tests). The request-time guard is github-api.ts's.
 */
export function apiUrlProblem(value: string): string | null {
  let url: URL | undefined;
  try {
    url = /^https?:\/\/[^/]/.test(value) ? new URL(value) : undefined;
  } catch {}
  if (!url) return `Expected an https URL like https://ghe.example/api/v3, got ${JSON.stringify(value.slice(0, 200))}`;
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    return `Expected https://…, got ${value.slice(0, 200)}: a token is never sent in clear text`;
  return null;
}

const Args = z.strictObject({
  repo: RepoArg,
  number: z.coerce.number().int().positive(),
  token: TokenArg,
  comments_since: z
    .string()
    .refine(
      (value) => /^\d{4}-\d\d-\d\dT/.test(value) && Number.isFinite(Date.parse(value)),
      "Expected an ISO time like 2026-12-03T17:00:00Z",
    )
    .optional(),
  api_url: ApiUrlArg,
});
type Args = z.infer<typeof Args>;

const shared = new Map<string, { at: number | null; observation: Promise<unknown> }>();

export const githubPr = githubTool<Args>({
  name: "github__pr",
  description:
    "A GitHub pull request: state, mergeable, head checks, latest reviews, review_decision, unresolved review threads, merge queue, and flags checks_completed, checks_failed, approved, changes_requested, conflicts, in_merge_queue (token: ${secret:GITHUB_TOKEN} or gh auth token)",
  args: Args,
  keyOf: (args) => `${args.repo}#${args.number} ${args.comments_since ?? ""}`,
  observe,
});

/**
 * A read-only GitHub tool: its arguments get their defaults at arming (withDefaults), and each
 * check resolves the API and its token, then shares one observation per key (sharedObservation).
 */
export function githubTool<A extends { api_url?: string; token?: string }>(spec: {
  name: string;
  description: string;
  args: z.ZodType<A>;
  /** What makes two checks the same observation (besides the API and the token). */
  keyOf: (args: A) => string;
  observe: (args: A, apiUrl: string, auth: GitHubAuth, signal: AbortSignal) => Promise<unknown>;
}): Tool<A> {
  return {
    name: spec.name,
    readOnly: true,
    description: spec.description,
    args: spec.args,
    withDefaults: (args, hasKey) => withDefaults(args, hasKey, envConfig().GH_HOST),
    async run(args, context) {
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
      const apiUrl = (args.api_url ?? DEFAULT_API_URL).replace(/\/+$/, "");
      const auth = await resolveAuth(args.token, apiUrl, context.secrets, signal);
      return sharedObservation(`${authKey(apiUrl, auth)} ${spec.keyOf(args)}`, signal, () =>
        spec.observe(args, apiUrl, auth, AbortSignal.timeout(context.timeoutMs)),
      );
    },
  };
}

/**
 * One observation per key for every caller: in flight, or made under SHARE_MS ago. The request is
 * not tied to one caller's signal (a monitor cancelled mid-request must not fail the others).
 */
export function sharedObservation(key: string, signal: AbortSignal, make: () => Promise<unknown>): Promise<unknown> {
  const kept = shared.get(key);
  if (kept && (kept.at === null || Date.now() - kept.at < SHARE_MS)) return untilAborted(kept.observation, signal);
  const entry: { at: number | null; observation: Promise<unknown> } = { at: null, observation: make() };
  shared.set(key, entry);
  entry.observation.then(
    () => {
      entry.at = Date.now();
    },
    () => {
      if (shared.get(key) === entry) shared.delete(key);
    },
  );
  for (const [other, { at }] of shared) if (at !== null && Date.now() - at > SHARE_MS) shared.delete(other);
  return untilAborted(entry.observation, signal);
}

/** The shared observation for one caller: a caller stopped (a cancelled monitor, shutdown) stops waiting at once. */
function untilAborted<T>(observation: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new ToolError("the check was stopped before GitHub answered"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ToolError("the check was stopped before GitHub answered"));
    signal.addEventListener("abort", onAbort, { once: true });
    observation.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Filled in at arming, so the stored monitor says what it reads with: the vault's GITHUB_TOKEN when
 * no token is named and that key exists; the Enterprise API of GH_HOST when no api_url is given.
 */
export function withDefaults(args: unknown, hasKey: (key: string) => boolean, ghHost: string | undefined): unknown {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  const filled: Record<string, unknown> = { ...args };
  if (!("token" in filled) && hasKey(DEFAULT_TOKEN_KEY)) filled.token = `\${secret:${DEFAULT_TOKEN_KEY}}`;
  if (!("api_url" in filled) && ghHost && ghHost !== "github.com") {
    if (!/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(ghHost))
      throw new ValidationError(
        `GH_HOST: Expected a host name like ghe.example.com, got ${JSON.stringify(ghHost.slice(0, 100))} (or give args.api_url)`,
      );
    filled.api_url = apiUrlForHost(ghHost);
  }
  return filled;
}

async function observe(args: Args, apiUrl: string, auth: GitHubAuth, signal: AbortSignal) {
  const { repo, number } = args;
  assertGateOpen(apiUrl, auth);
  const get = async (path: string) => (await githubGet(apiUrl, path, auth, signal)).body;
  const pr = (await get(`/repos/${repo}/pulls/${number}`)) as PullBody;
  const sha = pr.head?.sha;
  if (typeof sha !== "string")
    throw new ToolError(`GitHub answered a pull request without head.sha for ${repo}#${number}`);
  const [checkRuns, status, reviews, threads, comments] = await Promise.all([
    githubGetAll(
      apiUrl,
      `/repos/${repo}/commits/${sha}/check-runs?filter=latest&per_page=100`,
      auth,
      signal,
      (body) => (body as CheckRunsBody).check_runs ?? [],
    ),
    get(`/repos/${repo}/commits/${sha}/status?per_page=100`) as Promise<StatusBody>,
    githubGetAll(apiUrl, `/repos/${repo}/pulls/${number}/reviews?per_page=100`, auth, signal, (body) =>
      Array.isArray(body) ? (body as ReviewBody[]) : [],
    ),
    auth.token === undefined
      ? undefined
      : // What only GraphQL tells is not worth the rest: refused or rate limited, the REST facts stand.
        readThreads(apiUrl, repo, number, auth, signal).catch((error: unknown) => {
          if (error instanceof ToolError) return error;
          throw error;
        }),
    args.comments_since === undefined
      ? undefined
      : githubGetAll(
          apiUrl,
          `/repos/${repo}/pulls/${number}/comments?since=${encodeURIComponent(args.comments_since)}&per_page=100`,
          auth,
          signal,
          (body) => (Array.isArray(body) ? (body as CommentBody[]) : []),
        ),
  ]);
  const runs: CheckRunsBody = { check_runs: checkRuns };
  const described = describePr(repo, pr, runs, status, reviews);
  const observation = comments === undefined ? described : withComments(described, comments, args.comments_since ?? "");
  if (threads === undefined) return withoutThreads(observation, "GitHub's GraphQL API needs a token");
  if (threads instanceof ToolError) return withoutThreads(observation, threads.message);
  return describeThreads(observation, threads, args.comments_since);
}

/** Forgets the shared observations (tests). */
export function resetSharedPrs(): void {
  shared.clear();
}
