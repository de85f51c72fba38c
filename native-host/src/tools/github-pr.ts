/**
 * `github__pr`: a pull request as an agent waits on it — its state, whether it can merge, the checks
 * on its head commit (check runs and commit statuses) and the latest review of each reviewer — with
 * flags that make conditions read naturally (`checks_completed`, `checks_failed`, `approved`,
 * `changes_requested`, `conflicts`).
 * Four conditional REST requests per observation (github-api.ts): the pull, then the check runs,
 * the combined status and the reviews of its head. Monitors on the same PR share one observation:
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
import { type Tool, ToolError } from "./tool.js";

const DEFAULT_TOKEN_KEY = "GITHUB_TOKEN";
/** An observation this young is shared with every other monitor on the same PR. */
export const SHARE_MS = 3000;

const Args = z.strictObject({
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "Expected owner/name"),
  number: z.coerce.number().int().positive(),
  token: z
    .string()
    .regex(
      /^\$\{secret:[A-Za-z_][A-Za-z0-9_]{0,63}\}$/,
      "Expected a vault reference like ${secret:GITHUB_TOKEN}, not a token",
    )
    .optional(),
  comments_since: z
    .string()
    .refine(
      (value) => /^\d{4}-\d\d-\d\dT/.test(value) && Number.isFinite(Date.parse(value)),
      "Expected an ISO time like 2026-12-03T17:00:00Z",
    )
    .optional(),
  api_url: z
    .string()
    .refine((value) => /^https?:\/\/[^/]/.test(value), "Expected an http(s) URL like https://ghe.example/api/v3")
    .optional(),
});
type Args = z.infer<typeof Args>;

interface Check {
  name: string;
  kind: "check_run" | "status";
  status: string;
  conclusion: string | null;
  url: string | null;
}

interface Review {
  user: string;
  state: string;
  submitted_at: string | null;
  /** The first line of what the reviewer wrote (at most FIRST_LINE_CAP characters). */
  first_line: string;
  url: string | null;
}

const FIRST_LINE_CAP = 200;

const FAILED = new Set(["failure", "cancelled", "timed_out", "action_required", "error", "startup_failure"]);

const shared = new Map<string, { at: number | null; observation: Promise<unknown> }>();

export const githubPr: Tool<Args> = {
  name: "github__pr",
  readOnly: true,
  description:
    "A GitHub pull request: state, mergeable, head checks, latest reviews, review_decision and flags checks_completed, checks_failed, approved, changes_requested, conflicts (token: ${secret:GITHUB_TOKEN} or gh auth token)",
  args: Args,
  withDefaults: (args, hasKey) => withDefaults(args, hasKey, envConfig().GH_HOST),
  async run(args, context) {
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
    const apiUrl = (args.api_url ?? DEFAULT_API_URL).replace(/\/+$/, "");
    const auth = await resolveAuth(args.token, apiUrl, context.secrets, signal);
    const key = `${authKey(apiUrl, auth)} ${args.repo}#${args.number} ${args.comments_since ?? ""}`;
    const kept = shared.get(key);
    if (kept && (kept.at === null || Date.now() - kept.at < SHARE_MS)) return kept.observation;
    // Not tied to one caller's signal: a monitor cancelled mid-request must not fail the others.
    const entry: { at: number | null; observation: Promise<unknown> } = {
      at: null,
      observation: observe(args, apiUrl, auth, AbortSignal.timeout(context.timeoutMs)),
    };
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
    return entry.observation;
  },
};

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
  const [checkRuns, status, reviews, comments] = await Promise.all([
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
  const observation = describePr(repo, pr, runs, status, reviews);
  return comments === undefined ? observation : withComments(observation, comments, args.comments_since ?? "");
}

interface PullBody {
  number?: number;
  title?: string;
  html_url?: string;
  state?: string;
  draft?: boolean;
  merged?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  head?: { sha?: string; ref?: string };
  base?: { ref?: string };
}
interface CheckRunsBody {
  total_count?: number;
  check_runs?: Array<{
    name?: string;
    status?: string;
    conclusion?: string | null;
    html_url?: string | null;
    details_url?: string | null;
  }>;
}
interface StatusBody {
  statuses?: Array<{ context?: string; state?: string; target_url?: string | null }>;
}
interface ReviewBody {
  user?: { login?: string } | null;
  state?: string;
  submitted_at?: string | null;
  body?: string | null;
  html_url?: string | null;
}

interface CommentBody {
  user?: { login?: string } | null;
  path?: string;
  line?: number | null;
  body?: string | null;
  html_url?: string | null;
  updated_at?: string;
}

/** Review comments written or edited since `since` (GitHub's own filter), and a line in the summary. */
export function withComments(observation: ReturnType<typeof describePr>, list: CommentBody[], since: string) {
  const comments = list.map((comment) => ({
    user: comment.user?.login ?? "",
    path: comment.path ?? "",
    line: comment.line ?? null,
    first_line: firstLine(comment.body),
    url: comment.html_url ?? null,
    updated_at: comment.updated_at ?? null,
  }));
  const latest = comments.at(-1);
  const line = latest
    ? `\nReview comments since ${since}: ${comments.length}; the latest by ${latest.user} on ${latest.path}${latest.line === null ? "" : `:${latest.line}`}: ${latest.first_line} ${latest.url ?? ""}`.trimEnd()
    : `\nReview comments since ${since}: none.`;
  return { ...observation, summary: observation.summary + line, comments, comments_count: comments.length };
}

/** The observation, from the four answers (pure). */
export function describePr(
  repo: string,
  pr: PullBody,
  runs: CheckRunsBody,
  status: StatusBody,
  reviewList: ReviewBody[],
) {
  const checks: Check[] = [
    ...(runs.check_runs ?? []).map((run) => ({
      name: run.name ?? "",
      kind: "check_run" as const,
      status: run.status ?? "unknown",
      conclusion: run.conclusion ?? null,
      url: run.html_url ?? run.details_url ?? null,
    })),
    ...(status.statuses ?? []).map((item) => ({
      name: item.context ?? "",
      kind: "status" as const,
      status: item.state === "pending" ? "pending" : "completed",
      conclusion: item.state === "pending" ? null : (item.state ?? null),
      url: item.target_url ?? null,
    })),
  ];
  const failed = checks.filter((check) => check.conclusion !== null && FAILED.has(check.conclusion));
  const reviews = latestReviews(reviewList);
  const changesRequested = reviews.some((review) => review.state === "CHANGES_REQUESTED");
  const approved = !changesRequested && reviews.some((review) => review.state === "APPROVED");
  const mergeable = pr.mergeable ?? null;
  const mergeableState = pr.mergeable_state ?? "unknown";
  const conflicts = mergeable === false || mergeableState === "dirty";
  const reviewDecision = changesRequested
    ? "changes_requested"
    : approved
      ? "approved"
      : reviews.length > 0
        ? "review_required"
        : "none";
  return {
    summary: summaryOf(repo, pr, checks, failed, reviews, reviewDecision, conflicts),
    repo,
    number: pr.number ?? null,
    title: pr.title ?? "",
    url: pr.html_url ?? null,
    state: pr.state ?? "unknown",
    draft: pr.draft ?? false,
    merged: pr.merged ?? false,
    mergeable,
    mergeable_state: mergeableState,
    head_sha: pr.head?.sha ?? null,
    checks,
    checks_total: checks.length,
    checks_pending: checks.filter((check) => check.status !== "completed").length,
    checks_completed: checks.length > 0 && checks.every((check) => check.status === "completed"),
    checks_failed: failed.length > 0,
    failed_checks: failed.map((check) => ({ name: check.name, conclusion: check.conclusion, url: check.url })),
    reviews,
    review_decision: reviewDecision,
    approved,
    changes_requested: changesRequested,
    conflicts,
  };
}

/**
 * One paragraph an agent can act on hours later: the PR, its checks (each failed one with its
 * URL), the reviews that decide (who requested changes, and their first line), and conflicts.
 */
function summaryOf(
  repo: string,
  pr: PullBody,
  checks: Check[],
  failed: Check[],
  reviews: Review[],
  decision: string,
  conflicts: boolean,
): string {
  const state = pr.merged ? "merged" : `${pr.state ?? "unknown"}${pr.draft ? " (draft)" : ""}`;
  const lines = [`${repo}#${pr.number ?? "?"} ${JSON.stringify(pr.title ?? "")}: ${state}.`];
  const done = checks.filter((check) => check.status === "completed").length;
  lines.push(
    checks.length === 0
      ? "No checks on the head commit yet."
      : `Checks: ${done} of ${checks.length} completed, ${failed.length} failed.`,
  );
  for (const check of failed) lines.push(`Failed: ${check.name} (${check.conclusion}) ${check.url ?? "(no URL)"}`);
  for (const review of reviews.filter((r) => r.state === "CHANGES_REQUESTED"))
    lines.push(`Changes requested by ${review.user}${review.first_line ? `: ${review.first_line}` : ""}`);
  const approvers = reviews.filter((r) => r.state === "APPROVED").map((r) => r.user);
  lines.push(
    `Review decision: ${decision.replace("_", " ")}${approvers.length ? ` (approved by ${approvers.join(", ")})` : ""}.`,
  );
  if (conflicts) lines.push(`Conflicts: the branch cannot merge cleanly (mergeable_state ${pr.mergeable_state}).`);
  return lines.join("\n");
}

function firstLine(text: string | null | undefined): string {
  const line = (text ?? "").trim().split(/\r?\n/, 1)[0] ?? "";
  return line.length > FIRST_LINE_CAP ? `${line.slice(0, FIRST_LINE_CAP)}…` : line;
}

/** The latest review of each reviewer that approved, requested changes or commented (GitHub lists them oldest first). */
function latestReviews(list: ReviewBody[]): Review[] {
  const latest = new Map<string, Review>();
  for (const review of list) {
    const user = review.user?.login;
    if (!user || review.state === "PENDING") continue;
    // A plain comment after an approval or a change request does not undo it (as GitHub decides).
    const before = latest.get(user);
    if (review.state === "COMMENTED" && before && before.state !== "COMMENTED") continue;
    latest.set(user, {
      user,
      state: review.state ?? "COMMENTED",
      submitted_at: review.submitted_at ?? null,
      first_line: firstLine(review.body),
      url: review.html_url ?? null,
    });
  }
  return [...latest.values()];
}

/** Forgets the shared observations (tests). */
export function resetSharedPrs(): void {
  shared.clear();
}
