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

test("a resume never carries the Copilot CLI session or process it was started from; the user's Copilot settings stay", () => {
  const env = withoutAgentSession({
    COPILOT_AGENT_SESSION_ID: "a15e2b36-e8fb-4355-ab08-174b3abdee9f",
    COPILOT_CLI: "1",
    COPILOT_HOOK_DIR: "/h/.copilot/hooks",
    COPILOT_PROJECT_DIR: "/w",
    COPILOT_CLI_BINARY_VERSION: "1.0.102",
    COPILOT_CLI_RESOLVED_DIST_DIR: "/h/.cache/copilot/pkg/linux-x64/1.0.102",
    COPILOT_HOME: "/c",
    COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:1/v1",
    COPILOT_MODEL: "m",
    PATH: "/bin",
  });
  expect(env).toEqual({
    COPILOT_HOME: "/c",
    COPILOT_PROVIDER_BASE_URL: "http://127.0.0.1:1/v1",
    COPILOT_MODEL: "m",
    PATH: "/bin",
  });
});
