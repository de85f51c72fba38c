import { expect, test } from "vitest";
import { checkGeminiResult, geminiResume } from "./gemini.js";

const SID = "a9475b9d-a662-4a35-96e9-497b072d47e6";

test("a resume counts only when Gemini's JSON result names the same session and no error", () => {
  expect(checkGeminiResult(`{\n  "session_id": "${SID}",\n  "response": "ok",\n  "stats": {}\n}\n`, SID)).toBeNull();
  // What Gemini prints before its JSON (warnings) does not hide it.
  expect(checkGeminiResult(`Warning: no 256 colours\n{"session_id": "${SID}"}`, SID)).toBeNull();
  expect(checkGeminiResult(`{"session_id": "other"}`, SID)).toBe(`gemini answered for session other, not ${SID}`);
  expect(checkGeminiResult(`{"session_id": "${SID}", "error": {"message": "quota"}}`, SID)).toBe(
    "gemini reported an error (quota)",
  );
  expect(checkGeminiResult("nothing", SID)).toBe("gemini printed no JSON result");
});

test("the resume runs gemini --resume <id> with JSON output, the user's extra arguments and config home", () => {
  const plan = geminiResume({ kind: "gemini", configDir: "/h", resumeArgs: ["--yolo"] }, SID);
  expect(plan.argv).toEqual(["gemini", "--resume", SID, "--output-format", "json", "--yolo"]);
  expect(plan.env).toEqual({ GEMINI_CLI_HOME: "/h" });
});
