// Test setup only: a HOME whose ~/.gemini answers beforehand what Gemini CLI asks on first start
// (the API-key auth choice, the project folder's trust), and the environment that points it at the
// fake Gemini API.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function fakeGeminiHome(home: string, work: string, apiUrl: string): Record<string, string> {
  const config = join(home, ".gemini");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "settings.json"),
    `${JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } })}\n`,
  );
  writeFileSync(join(config, "trustedFolders.json"), JSON.stringify({ [work]: "TRUST_FOLDER" }));
  return { GOOGLE_GEMINI_BASE_URL: apiUrl, GEMINI_API_KEY: "fake-gemini-key" };
}
