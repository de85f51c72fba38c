import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { sandboxedCommand } from "./codex-sandbox.js";
import { runShellDirect } from "./run-shell.js";

const dir = mkdtempSync(join(tmpdir(), "vigil-codex-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Stands in for `codex` to see the argv it gets: prints the words up to `--`, then runs the rest. */
const recorder = join(dir, "codex it's");
writeFileSync(
  recorder,
  '#!/bin/sh\nwhile [ "$1" != "--" ]; do printf "<%s>" "$1"; shift; done; shift; echo; exec "$@"\n',
);
chmodSync(recorder, 0o755);

test("the check becomes `codex sandbox -C ROOT -P PROFILE -- /bin/sh …`, its text and folder passed as words", async () => {
  const hostile = `echo "$0" '$1' "it's"; pwd; exit 3`;
  const folder = join(dir, "a folder; rm -rf ~");
  mkdirSync(folder);
  const command = sandboxedCommand(hostile, folder, { mode: "workspace-write", root: "/w/it's", codex: recorder });
  const result = await runShellDirect(command, { cwd: dir, timeoutMs: 10_000 });
  expect(result.exitCode).toBe(3);
  const [argv, echoed, cwd] = result.stdout.split("\n");
  expect(argv).toBe("<sandbox><-C></w/it's><-P><:workspace>");
  expect(echoed).toBe("/bin/sh $1 it's");
  expect(cwd).toBe(folder);
  const readOnly = sandboxedCommand("true", dir, { mode: "read-only", root: dir, codex: recorder });
  expect(readOnly).toContain(" -P :read-only -- ");
});
