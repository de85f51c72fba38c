import { createHash } from "node:crypto";
import { expect, test } from "vitest";
import { EXTENSION_ID, EXTENSION_KEY } from "./extension-identity.js";

test("the pinned extension id is the one Chromium derives from the manifest key", () => {
  const hex = createHash("sha256").update(Buffer.from(EXTENSION_KEY, "base64")).digest("hex").slice(0, 32);
  const derived = [...hex].map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 16))).join("");
  expect(derived).toBe(EXTENSION_ID);
});
