/**
 * Every channel file is registered under its kind, every kind has a file, and each is documented
 * in docs/notifications.md (adding a channel is adding a file, a line in the registry, a section).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { NOTIFY_KINDS } from "../../../../shared/schemas/notify.js";
import { CHANNELS } from "./registry.js";

const here = import.meta.dirname;
const files = readdirSync(here)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && file !== "registry.ts")
  .map((file) => file.replace(/\.ts$/, ""))
  .sort();

test("each channel file is registered under its own kind, and each kind has a file", () => {
  expect(files).toEqual([...NOTIFY_KINDS].sort());
  for (const kind of NOTIFY_KINDS) expect(CHANNELS[kind].kind).toBe(kind);
});

test("each kind is documented in docs/notifications.md", () => {
  const guide = readFileSync(join(here, "..", "..", "..", "..", "docs", "notifications.md"), "utf8");
  for (const kind of NOTIFY_KINDS) expect(guide).toContain(`vigil notify add ${kind}`);
});
