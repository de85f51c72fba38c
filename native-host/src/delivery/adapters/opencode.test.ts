import { describe, expect, test } from "vitest";
import { opencodeResume } from "./opencode.js";

describe("opencodeResume", () => {
  test("runs in the session's folder as OpenCode sees it: PWD is the session's folder, not the daemon's", () => {
    // OpenCode takes its project from PWD: a resume with the daemon's PWD never exits (test/agents/opencode-terminal.test.ts).
    const plan = opencodeResume({ kind: "opencode" }, "ses_1", "/work/project");
    expect(plan.argv).toEqual(["opencode", "run", "--session", "ses_1", "--format", "json"]);
    expect(plan.env).toEqual({ PWD: "/work/project" });
    expect(opencodeResume({ kind: "opencode", configDir: "/c" }, "ses_1", "/p").env).toEqual({
      PWD: "/p",
      OPENCODE_CONFIG_DIR: "/c",
    });
  });
});
