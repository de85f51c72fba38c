/**
 * `github__deployment`: the latest deployment to an environment (of one commit when `sha` is given)
 * and its latest status, with the environment's URL. Two conditional requests (the deployments,
 * then the statuses of the latest), shared by every monitor on the same environment.
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { assertGateOpen, type GitHubAuth, githubGet } from "./github-api.js";
import { ApiUrlArg, githubTool, RepoArg, TokenArg } from "./github-pr.js";

const Args = z.strictObject({
  repo: RepoArg,
  environment: z.string().min(1).max(255),
  sha: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/, "Expected a commit sha")
    .optional(),
  token: TokenArg,
  api_url: ApiUrlArg,
});
type Args = z.infer<typeof Args>;

/** Deployment states after which nothing more happens to it. */
const FINAL = new Set(["success", "failure", "error", "inactive"]);

export const githubDeployment = githubTool<Args>({
  name: "github__deployment",
  description:
    "The latest GitHub deployment to an environment ({repo, environment, sha?}): its latest status state, environment_url, log_url, finished, succeeded",
  args: Args,
  keyOf: (args) => `${args.repo} deployment ${args.environment}@${args.sha ?? ""}`,
  observe,
});

interface DeploymentBody {
  id?: number;
  sha?: string;
  ref?: string;
  environment?: string;
  created_at?: string;
}
interface StatusBody {
  state?: string;
  environment_url?: string | null;
  log_url?: string | null;
  target_url?: string | null;
  description?: string | null;
  created_at?: string;
}

async function observe(args: Args, apiUrl: string, auth: GitHubAuth, signal: AbortSignal) {
  assertGateOpen(apiUrl, auth);
  const query = `environment=${encodeURIComponent(args.environment)}${args.sha ? `&sha=${args.sha}` : ""}&per_page=1`;
  const list = (await githubGet(apiUrl, `/repos/${args.repo}/deployments?${query}`, auth, signal)).body;
  const deployment = Array.isArray(list) ? (list[0] as DeploymentBody | undefined) : undefined;
  if (!deployment) {
    return { summary: `${args.repo}: no deployment to ${args.environment} yet.`, found: false };
  }
  const statuses = (
    await githubGet(apiUrl, `/repos/${args.repo}/deployments/${deployment.id}/statuses?per_page=1`, auth, signal)
  ).body;
  return describeDeployment(args.repo, deployment, Array.isArray(statuses) ? (statuses[0] as StatusBody) : undefined);
}

/** The observation, from the deployment and its latest status (GitHub lists statuses newest first). */
export function describeDeployment(repo: string, deployment: DeploymentBody, status: StatusBody | undefined) {
  const state = status?.state ?? "pending";
  const environmentUrl = status?.environment_url || null;
  const logUrl = status?.log_url || status?.target_url || null;
  return {
    summary:
      `${repo} deployment ${deployment.id} of ${deployment.ref ?? "?"} (${(deployment.sha ?? "").slice(0, 7)}) to ${deployment.environment ?? "?"}: ${state}${status?.description ? ` (${status.description})` : ""}.` +
      `${environmentUrl ? ` ${environmentUrl}` : ""}${logUrl && state !== "success" ? ` Log: ${logUrl}` : ""}`,
    found: true,
    repo,
    deployment_id: deployment.id ?? null,
    environment: deployment.environment ?? null,
    ref: deployment.ref ?? null,
    sha: deployment.sha ?? null,
    created_at: deployment.created_at ?? null,
    state,
    description: status?.description ?? null,
    environment_url: environmentUrl,
    log_url: logUrl,
    finished: FINAL.has(state),
    succeeded: state === "success",
  };
}
