import { expect, test } from "vitest";
import { z } from "zod";
import { parseHookJson } from "./hook-input.js";

test("input without the agent's own session field is refused naming that field (Copilot CLI's is sessionId)", () => {
  const schema = z.looseObject({ sessionId: z.string().min(1) });
  expect(parseHookJson('{"sessionId":"s1","cwd":"/w"}', schema, "sessionId")).toMatchObject({ sessionId: "s1" });
  expect(() => parseHookJson('{"session_id":"s1"}', schema, "sessionId")).toThrow(
    `Expected a sessionId in the hook's JSON, got {"session_id":"s1"}`,
  );
  expect(() => parseHookJson("", schema, "sessionId")).toThrow("Expected the hook's JSON on stdin, got nothing");
});
