import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { agentAncestor, boundSession, parentOf, recordBinding, runs } from "./agent-process.js";
import { processStart } from "./process-start.js";

test("a shell under an agent finds the session its nearest recorded ancestor is in", () => {
  const home = mkdtempSync(join(tmpdir(), "vigil-binding-"));
  // This test process stands for the agent; a child of it (process.pid as `from`) looks it up.
  const me = { pid: process.pid, start: processStart(process.pid) as string };
  expect(boundSession(home, process.pid)).toBeNull();
  recordBinding(home, me, "gemini", "s-1");
  expect(boundSession(home, process.pid)).toEqual({ kind: "gemini", id: "s-1", pid: process.pid });
  recordBinding(home, me, "gemini", "s-2"); // a new session in the same process (/clear) replaces it
  expect(boundSession(home, process.pid)?.id).toBe("s-2");
});

test("a record whose start time is not the process's (a recycled pid) binds nothing", () => {
  const home = mkdtempSync(join(tmpdir(), "vigil-binding-"));
  recordBinding(home, { pid: process.pid, start: "1" }, "gemini", "s-old");
  expect(boundSession(home, process.pid)).toBeNull();
  writeFileSync(join(home, "agents", `${process.pid}.json`), "not json");
  expect(boundSession(home, process.pid)).toBeNull();
});

test("the agent is the nearest ancestor whose command line runs it", () => {
  expect(parentOf(process.pid)).toBe(process.ppid);
  const self = agentAncestor(() => true, process.pid);
  expect(self).toEqual({ pid: process.pid, start: processStart(process.pid) });
  expect(agentAncestor(() => false, process.pid)).toBeNull();
  expect(runs("gemini")(["/usr/bin/node", "--max-old-space-size=1", "/x/.bin/gemini", "-p"])).toBe(true);
  expect(runs("gemini")(["/usr/bin/node", "/x/bin/vigil.js", "hook", "gemini"])).toBe(false);
});
