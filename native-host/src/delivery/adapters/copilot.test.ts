import { expect, test } from "vitest";
import { checkCopilotResult, copilotResume } from "./copilot.js";

const SID = "a15e2b36-e8fb-4355-ab08-174b3abdee9f";
const result = (fields: Record<string, unknown>) => JSON.stringify({ type: "result", timestamp: "t", ...fields });

test("a resume counts only when Copilot's closing result event names the same session with exit code 0", () => {
  const events = `{"type":"user.message","data":{"content":"wake"}}\n{"type":"assistant.message","data":{"content":"ok"}}\n`;
  expect(checkCopilotResult(`${events}${result({ sessionId: SID, exitCode: 0 })}\n`, SID)).toBeNull();
  expect(checkCopilotResult(result({ sessionId: "other", exitCode: 0 }), SID)).toBe(
    `copilot answered for session other, not ${SID}`,
  );
  expect(checkCopilotResult(result({ sessionId: SID, exitCode: 1 }), SID)).toBe(
    "copilot reported exit code 1 in its result",
  );
  expect(checkCopilotResult(events, SID)).toBe("copilot printed no result event");
  expect(checkCopilotResult("Error: no such session", SID)).toBe("copilot printed no result event");
});

test("the resume runs copilot --resume=<id> with JSON output, the user's extra arguments and config home", () => {
  const plan = copilotResume({ kind: "copilot", configDir: "/c", resumeArgs: ["--allow-all-tools"] }, SID);
  // The id attached with `=`: Copilot's --resume takes an optional value.
  expect(plan.argv).toEqual(["copilot", `--resume=${SID}`, "--output-format", "json", "--allow-all-tools"]);
  expect(plan.env).toEqual({ COPILOT_HOME: "/c" });
  expect(copilotResume({ kind: "copilot" }, SID).env).toEqual({});
});
