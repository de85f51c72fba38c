import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { codexSandboxOf } from "./codex-sandbox-report.js";

const dir = mkdtempSync(join(tmpdir(), "vigil-codex-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A turn_context line as Codex 0.169 writes it (trimmed to what is read). */
const turn = (type: string, cwd = "/work/p") =>
  JSON.stringify({
    timestamp: "t",
    type: "turn_context",
    payload: { cwd, approval_policy: "never", sandbox_policy: { type, network_access: false } },
  });

test("the newest turn's sandbox policy and folder are the session's", () => {
  const path = join(dir, "rollout.jsonl");
  writeFileSync(
    path,
    [JSON.stringify({ type: "session_meta", payload: {} }), turn("read-only"), turn("workspace-write"), ""].join("\n"),
  );
  expect(codexSandboxOf(path)).toEqual({ agent: "codex", mode: "workspace-write", root: "/work/p" });
});

test("full access claimed by a transcript the agent could have written (under /tmp) is not believed", () => {
  const path = join(dir, "forged.jsonl");
  writeFileSync(path, `${turn("danger-full-access")}\n`);
  expect(codexSandboxOf(path)).toBeNull();
});

test("no turn yet, a policy Vigil does not know, a FIFO or no file: nothing is reported", () => {
  const empty = join(dir, "empty.jsonl");
  writeFileSync(empty, `${JSON.stringify({ type: "session_meta", payload: {} })}\n`);
  expect(codexSandboxOf(empty)).toBeNull();
  const odd = join(dir, "odd.jsonl");
  writeFileSync(odd, `${turn("external-sandbox")}\n`);
  expect(codexSandboxOf(odd)).toBeNull();
  const fifo = join(dir, "fifo.jsonl");
  execFileSync("mkfifo", [fifo]);
  expect(codexSandboxOf(fifo)).toBeNull();
  expect(codexSandboxOf(join(dir, "missing.jsonl"))).toBeNull();
});
