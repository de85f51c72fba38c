import { afterEach, beforeEach, expect, test } from "vitest";
import { fakeGitHub } from "../../../test/helpers/fake-github.js";
import { resetGitHubClient } from "./github-api.js";
import { resetSharedPrs } from "./github-pr.js";
import { githubRun } from "./github-run.js";
import type { ToolContext } from "./tool.js";

const context: ToolContext = {
  signal: new AbortController().signal,
  timeoutMs: 5000,
  secrets: new Map([["GITHUB_TOKEN", "ghp_runTokenValue0000"]]),
};
let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const base = () => ({ repo: fake.repo, token: "${secret:GITHUB_TOKEN}", api_url: fake.url });

beforeEach(async () => {
  resetGitHubClient();
  resetSharedPrs();
  fake = await fakeGitHub();
});
afterEach(() => fake.close());

test("github__run by id: status, conclusion, jobs (bodies from GitHub's OpenAPI examples)", async () => {
  const run = (await githubRun.run({ ...base(), run_id: 30433642 }, context)) as Record<string, any>;
  expect(run).toMatchObject({
    found: true,
    run_id: 30433642,
    name: "Build",
    status: "queued",
    conclusion: null,
    completed: false,
    failed: false,
    head_branch: "main",
    url: "https://github.com/octo-org/octo-repo/actions/runs/30433642",
  });
  expect(run.jobs).toEqual([
    {
      name: "build",
      status: "completed",
      conclusion: "success",
      url: "https://github.com/octo-org/octo-repo/runs/29679449/jobs/399444496",
      failed_step: null,
      failed_step_url: null,
    },
  ]);
});

test("the latest run of a workflow on a branch; a failed job names its first failing step and that step's log", async () => {
  fake.script.run = { ...fake.script.run, status: "completed", conclusion: "failure" };
  const job = fake.script.jobs[0]!;
  const steps = job.steps.map((step: Record<string, unknown>, i: number) =>
    i === 3 ? { ...step, conclusion: "failure" } : i > 3 ? { ...step, conclusion: "skipped" } : step,
  );
  fake.script.jobs[0] = { ...job, conclusion: "failure", steps };
  const run = (await githubRun.run({ ...base(), workflow: "build.yml", branch: "main" }, context)) as Record<
    string,
    any
  >;
  expect(run).toMatchObject({ completed: true, failed: true });
  expect(run.failed_jobs).toEqual([
    {
      name: "build",
      status: "completed",
      conclusion: "failure",
      url: job.html_url,
      failed_step: job.steps[3].name,
      failed_step_url: `${job.html_url}#step:${job.steps[3].number}:1`,
    },
  ]);
  expect(run.summary).toBe(
    [
      'octocat/Hello-World run 30433642 "Build" on main: completed (failure). https://github.com/octo-org/octo-repo/actions/runs/30433642',
      `Failed: build (failure) at step ${JSON.stringify(job.steps[3].name)} ${job.html_url}#step:${job.steps[3].number}:1`,
    ].join("\n"),
  );
  expect(fake.requests.some((r) => r.path.endsWith("/actions/workflows/build.yml/runs"))).toBe(true);
});

test("run_id or workflow, not both and not neither", () => {
  expect(githubRun.args.safeParse({ repo: "o/r" }).success).toBe(false);
  expect(githubRun.args.safeParse({ repo: "o/r", run_id: 1, workflow: "ci.yml" }).success).toBe(false);
  expect(githubRun.args.safeParse({ repo: "o/r", workflow: "ci.yml", branch: "main" }).success).toBe(true);
});
