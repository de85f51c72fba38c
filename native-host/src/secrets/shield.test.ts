import { describe, expect, test } from "vitest";
import { rewriteForShell, secretKeysIn, substituteValues } from "./references.js";
import { Shield } from "./shield.js";

describe("the exposure shield", () => {
  test("replaces every value in text and nested JSON, keys included", () => {
    const shield = new Shield([["TOKEN", "tok-123456"]]);
    expect(shield.text("Bearer tok-123456 and tok-123456")).toBe("Bearer [secret:TOKEN] and [secret:TOKEN]");
    expect(shield.json({ a: ["x tok-123456"], "tok-123456": 1, n: 5 })).toEqual({
      a: ["x [secret:TOKEN]"],
      "[secret:TOKEN]": 1,
      n: 5,
    });
  });

  test("masks the longer of two overlapping values whole", () => {
    const shield = new Shield([
      ["SHORT", "abcd"],
      ["LONG", "abcd-efgh"],
    ]);
    expect(shield.text("abcd-efgh abcd")).toBe("[secret:LONG] [secret:SHORT]");
  });

  test("set and delete change what is masked", () => {
    const shield = new Shield();
    shield.set("K", "value-1");
    expect(shield.text("value-1")).toBe("[secret:K]");
    shield.set("K", "value-2");
    expect(shield.text("value-1 value-2")).toBe("value-1 [secret:K]");
    shield.delete("K");
    expect(shield.text("value-2")).toBe("value-2");
  });
});

describe("secret references", () => {
  test("finds keys, rewrites for the shell, substitutes values", () => {
    const command = 'curl -H "Authorization: ${secret:API_TOKEN}" ${secret:API_TOKEN} ${secret:OTHER}';
    expect(secretKeysIn(command)).toEqual(["API_TOKEN", "OTHER"]);
    expect(rewriteForShell("echo ${secret:A_B}")).toBe('echo "$VIGIL_SECRET_A_B"');
    expect(substituteValues("x ${secret:A} ${secret:B}", new Map([["A", "1"]]))).toBe("x 1 ${secret:B}");
  });
});
