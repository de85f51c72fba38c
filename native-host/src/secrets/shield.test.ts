import fc from "fast-check";
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

describe("the shield where plain matching misses a value", () => {
  const shield = new Shield([["TOKEN", "tok-1234567890"]]);

  test("JSON-escaped forms inside a JSON string are masked; other strings stay byte for byte", () => {
    expect(shield.text('{"t":"tok-\\u0031234567890","u":"a\\/b"}')).toBe('{"t":"[secret:TOKEN]","u":"a\\/b"}');
    expect(shield.text('{"t":"\\u0074\\u006f\\u006b-1234567890 x"}')).toBe('{"t":"[secret:TOKEN] x"}');
    expect(new Shield([["URL", "https://x.test/k9"]]).text('["https:\\/\\/x.test\\/k9"]')).toBe('["[secret:URL]"]');
    expect(shield.text('{"bad":"\\x"} tok-1234567890')).toBe('{"bad":"\\x"} [secret:TOKEN]');
  });

  test("a value cut at a marked cut is masked on either side, down to 4 characters", () => {
    expect(shield.text("…567890 rest")).toBe("…[secret:TOKEN] rest");
    expect(shield.text("head tok-1234 …[line cut at 2000 characters]")).toBe(
      "head [secret:TOKEN] …[line cut at 2000 characters]",
    );
    expect(shield.text("head tok-…")).toBe("head [secret:TOKEN]…");
    expect(shield.text("…890 three characters stay")).toBe("…890 three characters stay");
    // Away from a cut, a piece is just text.
    expect(shield.text("tok-1234 and 567890")).toBe("tok-1234 and 567890");
  });

  test("property: wherever a cut splits a value, no 4 characters of it survive beside the mark", () => {
    const value = "s3cr3t-VALUE-9f8e7d-0123456789";
    const cutter = new Shield([["K", value]]);
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(value.length), (before, after, at) => {
        const whole = `${before}${value}${after}`;
        const cut = at + before.length;
        for (const text of [`…${whole.slice(cut)}`, `${whole.slice(0, cut)}…`]) {
          const shown = cutter.text(text);
          for (let i = 0; i + 4 <= value.length; i++) {
            const piece = value.slice(i, i + 4);
            if (!`${before}${after}`.includes(piece)) expect(shown).not.toContain(piece);
          }
        }
      }),
    );
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
