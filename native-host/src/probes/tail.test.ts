import fc from "fast-check";
import { expect, test } from "vitest";
import { Tail } from "./run-shell.js";

/** What a tail of `max` must be for the whole text, however it arrived. */
const expected = (text: string, max: number) => {
  const stripped = text.replace(/\r?\n$/, "");
  return stripped.length > max ? `…${stripped.slice(stripped.length - max)}` : stripped;
};

test("property: the tail depends only on the text, never on how it was chunked", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("\n", "\r\n", "x\n")), { maxLength: 40 }),
      fc.integer({ min: 1, max: 20 }),
      (chunks, max) => {
        const tail = new Tail(max);
        for (const chunk of chunks) tail.push(chunk);
        expect(tail.toString()).toBe(expected(chunks.join(""), max));
      },
    ),
    { numRuns: 2000 },
  );
});
