/**
 * A pull request's life, scripted at the fake GitHub API (test/helpers/fake-github.ts), watched by
 * the real daemon: one monitor per ready-made condition of the README (PR_CONDITIONS) and the three
 * `vigil wait-pr --for` waits. Each step of the story is observed by every monitor still waiting
 * before the next one starts, so each wakes exactly at its step; the wake texts are golden files
 * (test/integration/golden/github/, regenerate on purpose with UPDATE_GOLDEN=1).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PR_CONDITIONS, WAIT_FOR } from "../../native-host/src/cli/wait-pr-command.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { examples, fakeGitHub, gqlThread } from "../helpers/fake-github.js";

const TOKEN = "ghp_storyTokenValue0123456789abcdef";
const GOLDEN = join(import.meta.dirname, "golden", "github");

let daemon: TestDaemon;
let fake: Awaited<ReturnType<typeof fakeGitHub>>;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  const set = await daemon.api("PUT", "/api/vault/GITHUB_TOKEN", { value: TOKEN });
  expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
  fake = await fakeGitHub();
});
afterAll(async () => {
  await fake?.close();
  await daemon?.dispose();
});

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
  if (process.env.UPDATE_GOLDEN || !existsSync(file)) {
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
