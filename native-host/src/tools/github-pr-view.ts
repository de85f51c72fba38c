/**
 * What `github__pr` makes of GitHub's answers (pure): the checks, the latest review of each
 * reviewer, the flags conditions read, review comments, and the summary shown in the wake.
 * Design: docs/design.md §4.1.
 */
export interface Check {
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

export interface PullBody {
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
export interface CheckRunsBody {
  total_count?: number;
  check_runs?: Array<{
    name?: string;
    status?: string;
    conclusion?: string | null;
    html_url?: string | null;
    details_url?: string | null;
  }>;
}
export interface StatusBody {
  statuses?: Array<{ context?: string; state?: string; target_url?: string | null }>;
}
export interface ReviewBody {
  user?: { login?: string } | null;
  state?: string;
  submitted_at?: string | null;
  body?: string | null;
  html_url?: string | null;
}

export interface CommentBody {
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
    lines.push(
      `Changes requested by ${review.user}${review.first_line ? `: ${review.first_line}` : ""}${review.url ? ` ${review.url}` : ""}`,
    );
  const approvers = reviews.filter((r) => r.state === "APPROVED").map((r) => r.user);
  lines.push(
    `Review decision: ${decision.replace("_", " ")}${approvers.length ? ` (approved by ${approvers.join(", ")})` : ""}.`,
  );
  if (conflicts) {
    const base = pr.base?.ref ?? "its base";
    lines.push(
      `Conflicts: ${pr.head?.ref ?? "the branch"} cannot merge cleanly into ${base} (mergeable_state ${pr.mergeable_state}); merge or rebase onto ${base}, resolve, and push.`,
    );
  }
  return lines.join("\n");
}

/** The first line of what someone wrote, at most FIRST_LINE_CAP characters. */
export function firstLine(text: string | null | undefined): string {
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
