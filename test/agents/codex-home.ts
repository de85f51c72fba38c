// Test setup only: a CODEX_HOME whose config.toml points Codex at the fake model API and answers
// beforehand what Codex asks on first start (approvals; folder trust when `trusted` is given).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function fakeCodexHome(home: string, apiUrl: string, trusted?: string): string {
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      'model = "gpt-fake"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      "",
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "${apiUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_API_KEY"',
      "",
      ...(trusted === undefined ? [] : [`[projects.${JSON.stringify(trusted)}]`, 'trust_level = "trusted"', ""]),
    ].join("\n"),
  );
  return codexHome;
}
