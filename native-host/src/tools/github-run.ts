/**
 * `github__run`: a GitHub Actions workflow run — `{repo, run_id}`, or the latest run of
 * `{repo, workflow, branch?}` — with its jobs, each failed job's first failing step and the URL of
 * that step's log. Two conditional requests (the run, its jobs; one more per extra page of jobs),
 * shared by every monitor on the same run as `github__pr` shares a PR.
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { assertGateOpen, type GitHubAuth, githubGet, githubGetAll } from "./github-api.js";
import { ApiUrlArg, githubTool, RepoArg, TokenArg } from "./github-pr.js";

const Args = z
  .strictObject({
    repo: RepoArg,
    run_id: z.coerce.number().int().positive().optional(),
    workflow: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, "Expected a workflow file name like ci.yml, or its id")
      .optional(),
    branch: z.string().min(1).max(255).optional(),
    token: TokenArg,
    api_url: ApiUrlArg,
  })
  .refine((args) => (args.run_id === undefined) !== (args.workflow === undefined), {
    message: "Expected run_id, or workflow (with branch?), not both",
  });
type Args = z.infer<typeof Args>;

const FAILED = new Set(["failure", "cancelled", "timed_out", "action_required", "startup_failure"]);

export const githubRun = githubTool<Args>({
  name: "github__run",
  description:
    "A GitHub Actions run ({repo, run_id} or the latest of {repo, workflow, branch?}): status, conclusion, completed, failed, jobs with the first failing step and its log URL",
  args: Args,
  keyOf: (args) => `${args.repo} run ${args.run_id ?? `${args.workflow}@${args.branch ?? ""}`}`,
  observe,
});

interface RunBody {
  id?: number;
  name?: string | null;
  status?: string | null;
  conclusion?: string | null;
  html_url?: string;
  head_branch?: string | null;
  head_sha?: string;
  run_attempt?: number;
}
interface JobBody {
  name?: string;
  status?: string;
  conclusion?: string | null;
  html_url?: string | null;
  steps?: Array<{ name?: string; conclusion?: string | null; number?: number }>;
}

async function observe(args: Args, apiUrl: string, auth: GitHubAuth, signal: AbortSignal) {
  assertGateOpen(apiUrl, auth);
  let run: RunBody | undefined;
  if (args.run_id !== undefined) {
    run = (await githubGet(apiUrl, `/repos/${args.repo}/actions/runs/${args.run_id}`, auth, signal)).body as RunBody;
  } else {
    const branch = args.branch ? `&branch=${encodeURIComponent(args.branch)}` : "";
    const path = `/repos/${args.repo}/actions/workflows/${args.workflow}/runs?per_page=1${branch}`;
    run = ((await githubGet(apiUrl, path, auth, signal)).body as { workflow_runs?: RunBody[] }).workflow_runs?.[0];
    if (!run) return { summary: `${args.repo}: no run of ${args.workflow} yet.`, found: false };
  }
  const jobs = await githubGetAll(
    apiUrl,
    `/repos/${args.repo}/actions/runs/${run.id}/jobs?per_page=100`,
    auth,
    signal,
    (body) => (body as { jobs?: JobBody[] }).jobs ?? [],
  );
  return describeRun(args.repo, run, jobs);
}

/** The observation, from the run and its jobs (pure). */
export function describeRun(repo: string, run: RunBody, jobList: JobBody[]) {
  const jobs = jobList.map((job) => {
    const step = (job.steps ?? []).find((s) => s.conclusion && FAILED.has(s.conclusion));
    return {
      name: job.name ?? "",
      status: job.status ?? "unknown",
      conclusion: job.conclusion ?? null,
      url: job.html_url ?? null,
      failed_step: step?.name ?? null,
      failed_step_url: step && job.html_url ? `${job.html_url}#step:${step.number}:1` : null,
    };
  });
  const failedJobs = jobs.filter((job) => job.conclusion !== null && FAILED.has(job.conclusion));
  const status = run.status ?? "unknown";
  const conclusion = run.conclusion ?? null;
  const lines = [
    `${repo} run ${run.id} ${JSON.stringify(run.name ?? "")} on ${run.head_branch ?? "?"}: ${status}${conclusion ? ` (${conclusion})` : ""}. ${run.html_url ?? ""}`.trimEnd(),
    ...failedJobs.map((job) =>
      `Failed: ${job.name} (${job.conclusion})${job.failed_step ? ` at step ${JSON.stringify(job.failed_step)}` : ""} ${job.failed_step_url ?? job.url ?? ""}`.trimEnd(),
    ),
  ];
  return {
    summary: lines.join("\n"),
    found: true,
    repo,
    run_id: run.id ?? null,
    name: run.name ?? null,
    url: run.html_url ?? null,
    head_branch: run.head_branch ?? null,
    head_sha: run.head_sha ?? null,
    run_attempt: run.run_attempt ?? null,
    status,
    conclusion,
    completed: status === "completed",
    failed: conclusion !== null && FAILED.has(conclusion),
    jobs,
    failed_jobs: failedJobs,
  };
}
