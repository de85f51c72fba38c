/**
 * `vigil wait-pr OWNER/REPO#N --for checks|review|merge`: arms a `github__pr` monitor with the
 * ready-made condition for what is awaited (design.md §4.1, §7). The pull request may be given as
 * `OWNER/REPO#N` or as its URL (a GitHub Enterprise URL gives the monitor that host's API).
 */
import type { Command } from "commander";
import type { Condition } from "../../../shared/schemas/conditions.js";
import type { MonitorView } from "../../../shared/schemas/views.js";
import { ApiClient } from "../api/client.js";
import { ensureSession } from "../api/sessions.js";
import { homeOf, print, printError, printJson, SESSION_HELP, sessionOf } from "./context.js";
import { follow } from "./follow.js";
import { optionalSeconds, usageError } from "./options.js";

const flag = (path: string, value: unknown = true): Condition => ({ path, operator: "equals", value });

/**
 * The ready-made conditions over a `github__pr` observation (the table in docs/monitors.md, "Wait for a pull request"; each is tested
 * against the daemon in test/integration/github-story.test.ts). `args` is what the row also needs
 * in the tool's arguments.
 */
export const PR_CONDITIONS = {
  checks_completed: { when: "every check on the head commit completed", condition: flag("checks_completed") },
  check_failed: { when: "any check failed", condition: flag("checks_failed") },
  approved: { when: "approved, and nobody requests changes", condition: flag("approved") },
  changes_requested: { when: "changes requested", condition: flag("changes_requested") },
  new_review_comment: {
    when: "a review comment written or edited since a time",
    args: "comments_since",
    condition: { path: "comments_count", operator: "gt", value: 0 },
  },
  unresolved_thread: {
    when: "an unresolved review thread with a comment since a time",
    args: "comments_since",
    condition: { path: "unresolved_since", operator: "gt", value: 0 },
  },
  conflicts: { when: "conflicts with its base", condition: flag("conflicts") },
  in_merge_queue: { when: "in the merge queue", condition: flag("in_merge_queue") },
  closed: { when: "merged or closed", condition: flag("state", "closed") },
} satisfies Record<string, { when: string; args?: string; condition: Condition }>;

/** What `--for` arms: each also wakes when the PR is closed or merged, so no wait outlives its PR. */
export const WAIT_FOR = {
  checks: {
    what: "checks",
    interval: 60,
    timeout: 7200,
    condition: {
      any: [
        PR_CONDITIONS.checks_completed.condition,
        PR_CONDITIONS.check_failed.condition,
        PR_CONDITIONS.closed.condition,
      ],
    },
  },
  review: {
    what: "review",
    interval: 300,
    timeout: 604_800,
    condition: {
      any: [
        PR_CONDITIONS.approved.condition,
        PR_CONDITIONS.changes_requested.condition,
        // Any new review, a plain comment included (the first check's reviews are the baseline).
        { path: "reviews", operator: "changed" },
        PR_CONDITIONS.closed.condition,
      ],
    },
  },
  merge: {
    what: "can merge",
    interval: 120,
    timeout: 86_400,
    condition: {
      any: [
        {
          all: [
            PR_CONDITIONS.checks_completed.condition,
            flag("checks_failed", false),
            PR_CONDITIONS.approved.condition,
            flag("conflicts", false),
            flag("draft", false),
          ],
        },
        PR_CONDITIONS.closed.condition,
      ],
    },
  },
} satisfies Record<string, { what: string; interval: number; timeout: number; condition: Condition }>;

export type WaitFor = keyof typeof WAIT_FOR;

export interface PrRef {
  repo: string;
  number: number;
  /** Only for a URL on another host than github.com: that host's Enterprise API. */
  apiUrl?: string;
}

const NAME = "[A-Za-z0-9_.-]+";
const SHORT = new RegExp(`^(${NAME}/${NAME})#([1-9][0-9]{0,9})$`);
const URL_PATH = new RegExp(`^/(${NAME}/${NAME})/pull/([1-9][0-9]{0,9})(?:/[A-Za-z-]*)?/?$`);

/** `OWNER/REPO#N`, or a pull request's URL (`https://github.com/OWNER/REPO/pull/N`, `…/files`, `#…`). */
export function parsePrRef(raw: string): PrRef {
  const expected = `Expected OWNER/REPO#N or a pull request URL like https://github.com/OWNER/REPO/pull/N, got ${JSON.stringify(raw.slice(0, 200))}`;
  const short = SHORT.exec(raw.trim());
  if (short) return { repo: short[1] as string, number: Number(short[2]) };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(expected);
  }
  const path = URL_PATH.exec(url.pathname);
  if (!/^https?:$/.test(url.protocol) || !path) throw usageError(expected);
  const ref: PrRef = { repo: path[1] as string, number: Number(path[2]) };
  const host = url.host.replace(/^www\./, "");
  return host === "github.com" ? ref : { ...ref, apiUrl: `${url.protocol}//${url.host}/api/v3` };
}

function parseFor(raw: string | undefined): WaitFor {
  if (raw !== undefined && Object.hasOwn(WAIT_FOR, raw)) return raw as WaitFor;
  throw usageError(`Expected --for checks, review or merge, got ${raw === undefined ? "none" : JSON.stringify(raw)}`);
}

interface WaitPrOptions {
  for?: string;
  session?: string;
  every?: string;
  timeout?: string;
  apiUrl?: string;
  description?: string;
  continuation?: string;
  follow?: boolean;
  json?: boolean;
}

const FLAGS = { intervalSeconds: "--every", timeoutSeconds: "--timeout" } as const;

/** The `createMonitor` body `vigil wait-pr` sends (pure: the CLI's whole decision). */
export function waitPrBody(pr: PrRef, waitFor: WaitFor, options: WaitPrOptions) {
  const spec = WAIT_FOR[waitFor];
  if (options.apiUrl !== undefined && !/^https?:\/\/[^/]/.test(options.apiUrl))
    throw usageError(`Expected --api-url to be an http(s) URL like https://ghe.example/api/v3, got ${options.apiUrl}`);
  const apiUrl = options.apiUrl ?? pr.apiUrl;
  return {
    name: options.description ?? `${pr.repo}#${pr.number}: ${spec.what}`,
    source: {
      kind: "tool" as const,
      name: "github__pr",
      args: { repo: pr.repo, number: pr.number, ...(apiUrl ? { api_url: apiUrl } : {}) },
      condition: spec.condition,
    },
    intervalSeconds: optionalSeconds("--every", options.every) ?? spec.interval,
    timeoutSeconds: optionalSeconds("--timeout", options.timeout) ?? spec.timeout,
    continuation: options.continuation,
  };
}

export function registerWaitPrCommand(program: Command): void {
  program
    .command("wait-pr")
    .description("arm a github__pr monitor: wake when a pull request's checks end, it is reviewed, or it can merge")
    .usage("OWNER/REPO#N --for checks|review|merge [options]")
    .argument("<pr>", "OWNER/REPO#N, or the pull request's URL")
    .option(
      "--for <what>",
      "required: checks (all completed, or one failed), review (approved, changes requested or any new review), merge (checks green, approved, no conflicts, not a draft); each also wakes when the PR is closed",
    )
    .option("--session <id>", SESSION_HELP)
    .option("--every <seconds>", "check every N seconds (default: checks 60, review 300, merge 120)")
    .option("--timeout <seconds>", "deadline, 30 s – 7 days (default: checks 2 h, review 7 days, merge 1 day)")
    .option(
      "--api-url <url>",
      "GitHub Enterprise API, like https://ghe.example/api/v3 (default: from the URL, or $GH_HOST)",
    )
    .option("--description <text>", "shown in every wake (default: OWNER/REPO#N: what)")
    .option("--continuation <text>", "a note to yourself, delivered with the wake")
    .option("--follow", "stay until it ends, with progress on a terminal; exit 0 when met, else 1")
    .option("--json", "print the monitor view as JSON")
    .action(async (raw: string, options: WaitPrOptions, command: Command) => {
      // Everything the command line says is checked before the daemon is asked anything.
      const pr = parsePrRef(raw);
      const body = waitPrBody(pr, parseFor(options.for), options);
      const client = new ApiClient(homeOf(command));
      const sid = sessionOf(options, command);
      await ensureSession(client, sid);
      const view = await client.call("createMonitor", { params: { sid }, body });
      sayAdjusted(view);
      if (options.json) printJson(view);
      else print(view.id);
      if (options.follow) await follow(client, sid, view.id);
    });
}

/** One line on stderr per value the daemon raised or lowered (the JSON carries them as `adjusted`). */
function sayAdjusted(view: MonitorView): void {
  for (const a of view.adjusted ?? []) {
    printError(
      `vigil: ${FLAGS[a.field]} ${a.asked} ${a.used > a.asked ? "raised" : "lowered"} to ${a.used} s: ${a.why}`,
    );
  }
}
