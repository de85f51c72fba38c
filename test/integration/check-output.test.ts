/**
 * A failed command's output can be read (issue #38 item 1): each check keeps its exit code and the
 * tail of its output — the last 200 lines or 32 KiB, shielded — and the API, `vigil show` and
 * `vigil checks` print it (`--output`: all that is kept).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

const SECRET = "tail-s3cr3t-4a1b2c";
let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

test("a command printing 300 lines and a vault secret keeps its last 200 lines, shielded, with its exit code", async () => {
  const set = await daemon.cli(["vault", "set", "TAIL_TOKEN"], { input: `${SECRET}\n` });
  expect(set.exitCode, String(set.stderr)).toBe(0);
  const sid = await daemon.newSession("out");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: {
      kind: "command",
      command:
        'i=1; while [ $i -le 300 ]; do echo "line $i"; i=$((i+1)); done; echo "token=${secret:TAIL_TOKEN}" >&2; exit 3',
    },
    intervalSeconds: 60,
    timeoutSeconds: 600,
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const id = made.body.id as string;
  const checks = await waitFor(
    async () => {
      const list = (await daemon.api("GET", `/api/sessions/${sid}/monitors/${id}/checks`)).body as any[];
      return list.length > 0 ? list : null;
    },
    { what: "a first check" },
  );
  const last = checks.at(-1);
  expect(last.outcome).toBe("not_met");
  expect(last.exitCode).toBe(3);
  const lines = (last.output as string).split("\n");
  expect(lines).toHaveLength(200);
  expect(lines[0]).toBe("line 102");
  expect(lines.at(-2)).toBe("line 300");
  expect(lines.at(-1)).toBe("token=[secret:TAIL_TOKEN]");

  const view = await daemon.monitor(sid, id);
  expect(view.lastOutput.exitCode).toBe(3);
  expect(view.lastOutput.lines.split("\n")).toHaveLength(20);
  expect(view.lastOutput.lines.endsWith("line 300\ntoken=[secret:TAIL_TOKEN]")).toBe(true);

  const show = await daemon.cli(["show", id, "--session", sid]);
  expect(show.exitCode, String(show.stderr)).toBe(0);
  expect(show.stdout).toContain("last check: exit 3, output:");
  expect(show.stdout).toContain("    | line 300\n    | token=[secret:TAIL_TOKEN]");
  expect(show.stdout).toContain("    | line 282\n");
  expect(show.stdout).not.toContain("| line 281\n");

  const brief = await daemon.cli(["checks", id, "--session", sid]);
  expect(brief.stdout).toMatch(/#1 \S+ not met \(\d+ ms\) · exit 3 · line 1/);
  expect(brief.stdout).toContain("check #1: exit 3, output:");
  expect(brief.stdout).not.toContain("| line 200\n");

  const all = await daemon.cli(["checks", id, "--session", sid, "--output"]);
  expect(all.exitCode, String(all.stderr)).toBe(0);
  expect(all.stdout).toContain("    | line 102\n");
  expect(all.stdout).not.toContain("| line 101\n");
  const showAll = await daemon.cli(["show", id, "--session", sid, "--output"]);
  expect(showAll.stdout).toContain("    | line 102\n");

  const everything = [show, brief, all, showAll].map((r) => r.stdout).join("\n") + JSON.stringify([checks, view]);
  expect(everything).not.toContain(SECRET);
});
