import { expect, test } from "vitest";
import { z } from "zod";
import { formatZodError } from "./zod-error.js";

test("a union's refusal names what each alternative expected and what came", () => {
  const schema = z.object({ quorum: z.union([z.number().int().min(1), z.literal("all")]) });
  const input = { quorum: "most" };
  const parsed = schema.safeParse(input);
  expect(parsed.success).toBe(false);
  if (parsed.success) return;
  expect(formatZodError(parsed.error, input)).toBe('quorum: Expected a number or "all", got "most"');
  expect(formatZodError(parsed.error)).toBe('quorum: Expected a number or "all"');
});
