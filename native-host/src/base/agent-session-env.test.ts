import { expect, test } from "vitest";
import { withoutAgentSession } from "./config.js";

test("a resume never carries the Gemini CLI or OpenCode session it was started from; their configuration stays", () => {
  const env = withoutAgentSession({
    GEMINI_CLI: "1",
    GEMINI_SESSION_ID: "s",
    GEMINI_CWD: "/w",
    GEMINI_PROJECT_DIR: "/w",
    GEMINI_PLANS_DIR: "/p",
    OPENCODE: "1",
    OPENCODE_SESSION_ID: "ses_1",
    GEMINI_CLI_HOME: "/h",
    GEMINI_API_KEY: "k",
    OPENCODE_CONFIG_DIR: "/c",
    PATH: "/bin",
  });
  expect(env).toEqual({ GEMINI_CLI_HOME: "/h", GEMINI_API_KEY: "k", OPENCODE_CONFIG_DIR: "/c", PATH: "/bin" });
});
