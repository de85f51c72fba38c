import { afterEach, beforeEach, expect, test } from "vitest";
import { fakeGitHub } from "../../../test/helpers/fake-github.js";
import { resetGitHubClient } from "./github-api.js";
import { githubDeployment } from "./github-deployment.js";
import { resetSharedPrs } from "./github-pr.js";
import type { ToolContext } from "./tool.js";

const context: ToolContext = {
  signal: new AbortController().signal,
  timeoutMs: 5000,
  secrets: new Map([["GITHUB_TOKEN", "ghp_deployTokenValue000"]]),
};
let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const args = (more: Record<string, unknown> = {}) => ({
  repo: fake.repo,
  environment: "production",
  token: "${secret:GITHUB_TOKEN}",
  api_url: fake.url,
  ...more,
});

beforeEach(async () => {
  resetGitHubClient();
  resetSharedPrs();
  fake = await fakeGitHub();
});
afterEach(() => fake.close());

test("the latest deployment to an environment and its latest status (bodies from GitHub's OpenAPI examples)", async () => {
  const seen = (await githubDeployment.run(args(), context)) as Record<string, unknown>;
  expect(seen).toEqual({
    summary:
      "octocat/Hello-World deployment 1 of topic-branch (a84d88e) to production: success (Deployment finished successfully.). https://test-branch.lab.acme.com",
    found: true,
    repo: "octocat/Hello-World",
    deployment_id: 1,
    environment: "production",
    ref: "topic-branch",
    sha: "a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d",
    created_at: "2012-07-20T01:19:13Z",
    state: "success",
    description: "Deployment finished successfully.",
    environment_url: "https://test-branch.lab.acme.com",
    log_url: "https://example.com/deployment/42/output",
    finished: true,
    succeeded: true,
  });
});

test("a failed status names its log; no deployment of that sha yet is found: false", async () => {
  fake.script.deploymentStatuses[0] = {
    ...fake.script.deploymentStatuses[0],
    state: "failure",
    description: "Smoke test failed",
  };
  const failed = (await githubDeployment.run(args(), context)) as Record<string, unknown>;
  expect(failed).toMatchObject({ state: "failure", finished: true, succeeded: false });
  expect(failed.summary).toContain(
    "failure (Smoke test failed). https://test-branch.lab.acme.com Log: https://example.com/deployment/42/output",
  );
  const none = await githubDeployment.run(args({ sha: "0123456789abcdef0123456789abcdef01234567" }), context);
  expect(none).toEqual({ summary: "octocat/Hello-World: no deployment to production yet.", found: false });
});
