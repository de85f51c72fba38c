import { expect, test } from "vitest";
import { PAYLOAD_LIMIT, packNotices, parseNotice } from "./notifications.js";

test("ids are packed into as few payloads as fit under PostgreSQL's 8,000-byte limit, none lost", () => {
  const ids = Array.from({ length: 3000 }, (_, i) => `wp_${i.toString(16).padStart(12, "0")}`);
  const payloads = packNotices("signal", ids);
  expect(payloads.length).toBeGreaterThan(1);
  for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(PAYLOAD_LIMIT);
  expect(payloads.flatMap((p) => parseNotice(p)?.ids ?? [])).toEqual(ids);
  // Full payloads: each but the last would overflow with one more id.
  for (const payload of payloads.slice(0, -1)) expect(Buffer.byteLength(payload) + 18).toBeGreaterThan(PAYLOAD_LIMIT);
  expect(packNotices("wake", [1, 2, 3])).toEqual(['{"kind":"wake","ids":[1,2,3]}']);
  expect(packNotices("wake", [])).toEqual([]);
});

test("a notice kind is a plain word, and a payload that is not one of ours is ignored", () => {
  expect(() => packNotices("wake'; DROP", [1])).toThrow(/Expected a notice kind like "wake"/);
  expect(parseNotice("hello")).toBeNull();
  expect(parseNotice('{"kind":"wake"}')).toBeNull();
  expect(parseNotice(undefined)).toBeNull();
  expect(parseNotice('{"kind":"wake","ids":[1,"a",{"x":1}]}')).toEqual({ kind: "wake", ids: [1, "a"] });
});
