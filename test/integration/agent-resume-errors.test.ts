/**
 * A headless resume that fails says why, the cause first (design.md §6): a session whose folder is
 * gone says so, not "Command failed with ENOENT: …/claude"; a resume that exits non-zero shows the
 * last lines the agent wrote on stderr. Against the real daemon, with a fake `claude` program.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let dir: string;
beforeAll(async () => {
  daemon = await TestDaemon.start({ env: { VIGIL_DELIVERY_RETRY_BASE_MS: "60000" } });
  dir = mkdtempSync(join(tmpdir(), "vigil-resume-errors-"));
});
afterAll(async () => {
  await daemon.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A fake `claude`: reads the wake, then runs `script`. */
function fakeClaude(name: string, script: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ncat >/dev/null\n${script}\n`, { mode: 0o755 });
  return path;
}

/** A closed Claude Code session in `root`, with one wake due, and that wake once it has failed once. */
async function failedWake(sid: string, root: string, program: string) {
  await daemon.api("POST", "/api/sessions", { id: sid, root, adapter: { kind: "claude", program } });
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "true" },
    intervalSeconds: 5,
  });
  return waitFor(
    async () => {
      const wake = (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body[0];
      return wake?.lastError ? wake : null;
    },
    { what: `a failed delivery to ${sid}`, everyMs: 100 },
  );
}

test("a session whose folder no longer exists: the error says so on its first line", async () => {
  const root = join(dir, "gone-project");
  mkdirSync(root);
  const program = fakeClaude("claude", `printf '{"session_id":"%s","is_error":false}\\n' "$2"`);
  rmSync(root, { recursive: true });
  const wake = await failedWake("folder-gone", root, program);
  expect(wake.lastError.split("\n")[0]).toBe(`claude --resume could not run: its folder ${root} no longer exists`);
  const ls = String((await daemon.cli(["ls", "--session", "folder-gone"])).stdout);
  expect(ls).toContain(`its folder ${root} no longer exists`);
});

test("a resume that exits 1 shows the last lines it wrote on stderr", async () => {
  const root = join(dir, "project");
  mkdirSync(root);
  const program = fakeClaude(
    "claude-fails",
    `i=0; while [ $i -lt 20 ]; do echo "noise $i" >&2; i=$((i+1)); done\necho "No conversation found with session ID: $2" >&2\nexit 1`,
  );
  const wake = await failedWake("resume-fails", root, program);
  expect(wake.lastError).toBe(
    "claude --resume exited with code 1: noise 16\nnoise 17\nnoise 18\nnoise 19\nNo conversation found with session ID: resume-fails",
  );
});
