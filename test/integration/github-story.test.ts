/**
 * A pull request's life, scripted at the fake GitHub API (test/helpers/fake-github.ts), watched by
 * the real daemon: one monitor per ready-made condition of docs/monitors.md (PR_CONDITIONS) and the three
 * `vigil wait-pr --for` waits. Each step of the story is observed by every monitor still waiting
 * before the next one starts, so each wakes exactly at its step; the wake texts are golden files
 * (test/integration/golden/github/, regenerate on purpose with UPDATE_GOLDEN=1).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PR_CONDITIONS, WAIT_FOR } from "../../native-host/src/cli/wait-pr-command.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { examples, fakeGitHub, gqlThread } from "../helpers/fake-github.js";

const TOKEN = "ghp_storyTokenValue0123456789abcdef";
const GOLDEN = join(import.meta.dirname, "golden", "github");

/** A `gh` on the daemon's PATH that prints the token in GH_TOKEN_FILE (what `gh auth login` stored). */
const GH_BIN = mkdtempSync(join(tmpdir(), "vigil-gh-story-"));
const GH_TOKEN_FILE = join(GH_BIN, "token");
const GH_TOKENS = ["gho_ghLoginTokenOne00000000000000000", "gho_ghLoginTokenTwo00000000000000000"] as const;

let daemon: TestDaemon;
let fake: Awaited<ReturnType<typeof fakeGitHub>>;
const others: Array<Awaited<ReturnType<typeof fakeGitHub>>> = [];

beforeAll(async () => {
  writeFileSync(join(GH_BIN, "gh"), `#!/bin/sh\n[ "$1 $2" = "auth token" ] && exec cat "${GH_TOKEN_FILE}"\nexit 1\n`);
  chmodSync(join(GH_BIN, "gh"), 0o755);
  writeFileSync(GH_TOKEN_FILE, `${GH_TOKENS[0]}\n`);
  daemon = await TestDaemon.start({ env: { PATH: `${GH_BIN}:${process.env.PATH}` } });
  const set = await daemon.api("PUT", "/api/vault/GITHUB_TOKEN", { value: TOKEN });
  expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
  fake = await fakeGitHub();
});
afterAll(async () => {
  await Promise.all([fake, ...others].map((f) => f?.close()));
  await daemon?.dispose();
  rmSync(GH_BIN, { recursive: true, force: true });
});

async function otherFake() {
  const made = await fakeGitHub();
  others.push(made);
  return made;
}

type Row = keyof typeof PR_CONDITIONS;
type Wait = keyof typeof WAIT_FOR;
type Observation = Record<string, any>;

/** The wake text an agent reads, up to the observation's JSON; run-dependent values replaced. */
function wakeHead(text: string): string {
  const head = text.slice(0, text.indexOf("\n\n{\n"));
  return `${head
    .replace(/\b2026-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<now>")
    .replace(/after [0-9hms. ]+ \(armed/, "after <elapsed> (armed")
    .replace(/on check \d+/g, "on check <n>")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>")}\n…\n`;
}

function golden(name: string, text: string): void {
  const file = join(GOLDEN, `${name}.txt`);
  if (process.env.UPDATE_GOLDEN) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(file, text);
  }
  expect(text, `golden file ${file}`).toBe(readFileSync(file, "utf8"));
}

test("pending → failed check → re-run → green → changes requested → approved → merge queue → conflict → closed: each condition wakes at its step", async () => {
  const sid = await daemon.newSession("story");
  const since = new Date(Date.now() - 1000).toISOString();
  const now = () => new Date().toISOString();
  const s = fake.script;
  // Step 0, pending: a check run in progress, two statuses pending, no reviews, no new comments.
  s.checkRuns[0] = { ...s.checkRuns[0], status: "in_progress", conclusion: null };
  s.statuses = s.statuses.map((status) => ({ ...status, state: "pending" }));
  s.reviews = [];
  s.pull = { ...s.pull, mergeable_state: "blocked" };

  const ids = new Map<Row | Wait, string>();
  for (const [row, { condition }] of Object.entries(PR_CONDITIONS)) {
    const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
      name: row,
      source: {
        kind: "tool",
        name: "github__pr",
        args: { repo: fake.repo, number: fake.number, api_url: fake.url, comments_since: since },
        condition,
      },
      intervalSeconds: 0.3,
      timeoutSeconds: 600,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    ids.set(row as Row, made.body.id);
  }
  const url = `https://github.com/${fake.repo}/pull/${fake.number}`;
  for (const wait of Object.keys(WAIT_FOR) as Wait[]) {
    const ran = await daemon.cli([
      "wait-pr",
      wait === "checks" ? url : `${fake.repo}#${fake.number}`,
      "--for",
      wait,
      "--api-url",
      fake.url,
      "--every",
      "0.3",
      "--timeout",
      "600",
      "--session",
      sid,
      "--json",
    ]);
    expect(ran.exitCode, String(ran.stderr)).toBe(0);
    const view = JSON.parse(String(ran.stdout));
    expect(view.source).toMatchObject({
      kind: "tool",
      name: "github__pr",
      args: { repo: fake.repo, number: fake.number, api_url: fake.url, token: "${secret:GITHUB_TOKEN}" },
      condition: WAIT_FOR[wait].condition,
    });
    expect(view.name).toBe(`${fake.repo}#${fake.number}: ${WAIT_FOR[wait].what}`);
    ids.set(wait, view.id);
  }

  const woken = new Set<Row | Wait>();
  /**
   * After a change at the fake: every monitor still waiting observes it (`seen`), those in `wake`
   * end met, the others stay waiting with that observation.
   */
  async function step(name: string, seen: (o: Observation) => boolean, wake: Array<Row | Wait>) {
    for (const [key, id] of ids) {
      if (woken.has(key)) continue;
      const view = await waitFor(
        async () => {
          const monitor = await daemon.monitor(sid, id);
          return monitor.lastObservation && seen(monitor.lastObservation) ? monitor : null;
        },
        { what: `${key} (${id}) to observe step "${name}"` },
      );
      const expected = wake.includes(key) ? ["ready", "continuing", "finished"] : ["waiting"];
      expect(expected, `${key} at step "${name}": ${view.state} ${view.ending?.detail ?? ""}`).toContain(view.state);
      if (wake.includes(key)) {
        expect(view.ending.reason).toBe("met");
        woken.add(key);
      }
    }
  }
  const wakeOf = async (key: Row | Wait): Promise<string> => {
    const wakes = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{
      text: string;
      monitors: string[];
    }>;
    const wake = wakes.find((w) => w.monitors.includes(ids.get(key) as string));
    expect(wake, `a wake for ${key}`).toBeDefined();
    return wake?.text ?? "";
  };

  await step("pending", (o) => o.checks_pending === 3, []);

  s.checkRuns[0] = { ...s.checkRuns[0], status: "completed", conclusion: "failure" };
  await step("failed check", (o) => o.checks_failed === true, ["check_failed", "checks"]);
  golden("check-failed", wakeHead(await wakeOf("check_failed")));

  s.checkRuns[0] = { ...s.checkRuns[0], status: "queued", conclusion: null };
  s.statuses = s.statuses.map((status) => ({ ...status, state: "success" }));
  await step("re-run", (o) => o.checks_pending === 1 && !o.checks_failed, []);

  s.checkRuns[0] = { ...s.checkRuns[0], status: "completed", conclusion: "success" };
  await step("green", (o) => o.checks_completed === true, ["checks_completed"]);

  const reviewer = { ...examples.reviews[0].user, login: "hubot" };
  s.reviews = [
    {
      ...examples.reviews[0],
      id: 81,
      user: reviewer,
      state: "CHANGES_REQUESTED",
      body: "Please add a test for the empty list.\nThe rest reads well.",
      submitted_at: now(),
      html_url: `${url}#pullrequestreview-81`,
    },
  ];
  const comment = {
    ...examples.comments[0],
    id: 82,
    user: reviewer,
    path: "src/list.ts",
    line: 14,
    body: "This returns undefined for an empty list.",
    created_at: now(),
    updated_at: now(),
    html_url: `${url}#discussion_r82`,
  };
  s.comments = [...s.comments, comment];
  s.threads = [...s.threads, gqlThread(comment, false)];
  await step("changes requested", (o) => o.changes_requested === true, [
    "changes_requested",
    "new_review_comment",
    "unresolved_thread",
    "review",
  ]);
  golden("changes-requested", wakeHead(await wakeOf("changes_requested")));
  golden("unresolved-thread", wakeHead(await wakeOf("unresolved_thread")));

  s.reviews = [
    ...s.reviews,
    { ...s.reviews[0], id: 83, state: "APPROVED", body: "Thanks, approved.", submitted_at: now() },
  ];
  s.threads = s.threads.map((thread) => ({ ...thread, isResolved: true }));
  s.pull = { ...s.pull, mergeable_state: "clean" };
  await step("approved", (o) => o.approved === true, ["approved", "merge"]);
  golden("can-merge", wakeHead(await wakeOf("merge")));

  s.mergeQueueEntry = { position: 1, state: "AWAITING_CHECKS", enqueuedAt: now() };
  await step("in the merge queue", (o) => o.in_merge_queue === true, ["in_merge_queue"]);

  s.mergeQueueEntry = null;
  s.pull = { ...s.pull, mergeable: false, mergeable_state: "dirty" };
  await step("conflict", (o) => o.conflicts === true, ["conflicts"]);
  golden("conflicts", wakeHead(await wakeOf("conflicts")));

  s.pull = { ...s.pull, state: "closed" };
  await step("closed", (o) => o.state === "closed", ["closed"]);
  expect([...woken].sort()).toEqual([...ids.keys()].sort());

  // Polite throughout: after the first answer of each REST URL, unchanged ones were 304s.
  const pulls = fake.hits("pull");
  expect(pulls.filter((r) => r.status === 304).length).toBeGreaterThan(pulls.length / 2);
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

const prMonitor = (target: { url: string; repo: string; number: number }, condition: unknown, interval = 0.3) => ({
  source: {
    kind: "tool",
    name: "github__pr",
    args: { repo: target.repo, number: target.number, api_url: target.url },
    condition,
  },
  intervalSeconds: interval,
  timeoutSeconds: 600,
});

test("vigil wait-pr: a malformed PR, a missing or unknown --for are usage errors (exit 2) that say what was expected", async () => {
  const cases: Array<[string[], string]> = [
    [
      ["wait-pr", "octocat/Hello-World", "--for", "checks"],
      'vigil: Expected OWNER/REPO#N or a pull request URL like https://github.com/OWNER/REPO/pull/N, got "octocat/Hello-World"',
    ],
    [["wait-pr", "octocat/Hello-World#1347"], "vigil: Expected --for checks, review or merge, got none"],
    [
      ["wait-pr", "octocat/Hello-World#1347", "--for", "deploy"],
      'vigil: Expected --for checks, review or merge, got "deploy"',
    ],
  ];
  for (const [args, message] of cases) {
    const ran = await daemon.cli(args);
    expect(ran.exitCode, args.join(" ")).toBe(2);
    expect(String(ran.stderr)).toBe(`${message}\nTry 'vigil wait-pr --help'`);
    expect(String(ran.stdout)).toBe("");
  }
  // The daemon's refusal (a deadline past 7 days) is exit 1, in its words.
  const refused = await daemon.cli(["wait-pr", "octocat/Hello-World#1347", "--for", "review", "--timeout", "999999"]);
  expect(refused.exitCode).toBe(1);
  expect(String(refused.stderr)).toMatch(/^vigil: .*timeoutSeconds/);
});

test("304s are not counted against the budget: with 14 requests left, checks go on after the first answer without closing the gate", async () => {
  const quiet = await otherFake();
  quiet.setRemaining(14);
  const sid = await daemon.newSession("budget");
  const made = await daemon.api(
    "POST",
    `/api/sessions/${sid}/monitors`,
    prMonitor(quiet, { path: "merged", operator: "equals", value: true }),
  );
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  await waitFor(() => quiet.hits("pull").length >= 3, { timeoutMs: 30_000, what: "three observations" });
  // The first observation's four REST answers spent 4 (14 → 10); the 304s after it spent nothing,
  // so the gate (closed below 10 left) never closed and no check failed.
  expect(quiet.remaining()).toBe(10);
  expect(
    quiet
      .rest()
      .slice(4)
      .every((r) => r.status === 304),
  ).toBe(true);
  const view = await daemon.monitor(sid, made.body.id);
  expect(view.errorCount).toBe(0);
  expect(view.state).toBe("waiting");
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

test("a secondary rate limit (403 + retry-after) stretches the interval to it, with the reason in the check log", async () => {
  const busy = await otherFake();
  busy.override(() => ({
    status: 403,
    headers: { "retry-after": "120" },
    body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
  }));
  const sid = await daemon.newSession("secondary");
  const before = Date.now();
  const made = await daemon.api(
    "POST",
    `/api/sessions/${sid}/monitors`,
    prMonitor(busy, { path: "approved", operator: "equals", value: true }),
  );
  const view = await waitFor(async () => {
    const monitor = await daemon.monitor(sid, made.body.id);
    return monitor.lastError ? monitor : null;
  });
  expect(view.lastError).toMatch(
    /^GitHub rate limit reached \(403: You have exceeded a secondary rate limit\. Please wait a few minutes before you try again\.\); retry after \d{4}-/,
  );
  // Checked every 0.3 s until then; now the next check waits the 120 s GitHub asked for.
  expect(Date.parse(view.nextCheckAt)).toBeGreaterThanOrEqual(before + 120_000);
  const checks = (await daemon.api("GET", `/api/sessions/${sid}/monitors/${made.body.id}/checks`)).body as Array<{
    outcome: string;
    excerpt: string;
  }>;
  expect(checks.at(-1)?.excerpt).toContain("You have exceeded a secondary rate limit");
  expect(busy.requests).toHaveLength(1);
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

test("gh auth token: used when the vault has no GITHUB_TOKEN, shielded everywhere; revoked, an error, then a new login recovers", async () => {
  const removed = await daemon.api("DELETE", "/api/vault/GITHUB_TOKEN");
  expect(removed.status, JSON.stringify(removed.body)).toBeLessThan(300);
  const gh = await otherFake();
  const host = `127.0.0.1:${new URL(gh.url).port}`;
  // GitHub echoing the token back (in a title) must not carry it into any output either.
  gh.script.pull.title = `Rotate ${GH_TOKENS[0]}`;
  const sid = await daemon.newSession("ghtoken");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    name: "PR via gh",
    ...prMonitor(gh, { path: "state", operator: "equals", value: "closed" }),
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.source.args).not.toHaveProperty("token");
  const mid = made.body.id as string;
  await waitFor(async () => (await daemon.monitor(sid, mid)).lastObservation?.state === "open");
  expect(gh.requests[0]?.headers.authorization).toBe(`Bearer ${GH_TOKENS[0]}`);
  // A command wait that prints the token gh gives (an agent checking `gh auth token`).
  const cmd = await daemon.cli(["wait", "--session", sid, "--until", "5", "--", `"${GH_BIN}/gh" auth token`]);
  expect(cmd.exitCode, String(cmd.stderr)).toBe(0);
  const cmdId = String(cmd.stdout).trim();
  await daemon.waitForState(sid, cmdId, ["ready", "continuing", "finished"]);

  // Revoked: every answer is a 401; the check says so and what to do, and checking goes on.
  gh.override(() => ({ status: 401, body: { message: "Bad credentials" } }));
  const refused = await waitFor(async () => {
    const monitor = await daemon.monitor(sid, mid);
    return monitor.lastError ? monitor : null;
  });
  expect(refused.lastError).toBe(
    "GitHub refused the token (gh auth token): 401: Bad credentials; log in again with `gh auth login` (gh is asked again at the next check)",
  );
  expect(refused.state).toBe("waiting");
  // `gh auth login` again: the next check asks gh, gets the new token, and observes.
  writeFileSync(GH_TOKEN_FILE, `${GH_TOKENS[1]}\n`);
  gh.override(undefined);
  await waitFor(async () => (await daemon.monitor(sid, mid)).lastError === null, { what: "the error cleared" });
  expect(gh.requests.at(-1)?.headers.authorization).toBe(`Bearer ${GH_TOKENS[1]}`);
  gh.script.pull = { ...gh.script.pull, title: `Rotate ${GH_TOKENS[1]}`, state: "closed" };
  await daemon.waitForState(sid, mid, ["ready", "continuing", "finished"]);

  const cli = async (...args: string[]) => String((await daemon.cli([...args, "--session", sid])).stdout);
  const everything = [
    JSON.stringify((await daemon.api("GET", `/api/sessions/${sid}/monitors`)).body),
    JSON.stringify((await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body),
    JSON.stringify((await daemon.api("GET", "/api/panel")).body),
    ...(await Promise.all(
      [mid, cmdId].flatMap((id) => [
        daemon.api("GET", `/api/sessions/${sid}/monitors/${id}/checks`).then((r) => JSON.stringify(r.body)),
        daemon.api("GET", `/api/sessions/${sid}/monitors/${id}/events`).then((r) => JSON.stringify(r.body)),
      ]),
    )),
    // The CLI's own renderings (each command a process: two, to keep the test lean).
    await cli("checks", mid),
    await cli("inbox"),
    readFileSync(join(daemon.home, "vigil.log"), "utf8"),
    daemon.stderr,
  ].join("\n");
  for (const token of GH_TOKENS) expect(everything).not.toContain(token);
  // Shielded, not merely absent: where it was printed or echoed, the mask stands in its place.
  expect(everything).toContain(`[secret:gh auth token for ${host}]`);
  const wakes = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as Array<{
    text: string;
    monitors: string[];
  }>;
  expect(wakes.find((w) => w.monitors.includes(cmdId))?.text).toContain(`[secret:gh auth token for ${host}]`);
  expect(wakes.find((w) => w.monitors.includes(mid))?.text).toContain(
    `"Rotate [secret:gh auth token for ${host} (2)]": closed.`,
  );
  await daemon.api("DELETE", `/api/sessions/${sid}`);
});

test("every condition in docs/monitors.md's pull-request table is one the story tests", () => {
  const guide = readFileSync(join(import.meta.dirname, "..", "..", "docs", "monitors.md"), "utf8");
  const start = guide.indexOf("### Wait for a pull request");
  expect(start).toBeGreaterThan(-1);
  const section = guide.slice(start, guide.indexOf("\n## ", start));
  const rows = [...section.matchAll(/^\|[^|\n]+\| `(\{.*\})` +\|$/gm)].map(([, json]) => JSON.parse(json as string));
  expect(rows.length).toBeGreaterThanOrEqual(7);
  const tested = Object.values(PR_CONDITIONS).map(({ condition }) => condition);
  for (const row of rows) expect(tested, JSON.stringify(row)).toContainEqual(row);
});
