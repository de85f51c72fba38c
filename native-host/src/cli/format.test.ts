import { expect, test } from "vitest";
import type { DeliveryView } from "../../../shared/schemas.js";
import { deliveryText } from "./format.js";

const now = Date.parse("2026-12-01T12:00:00Z");
const base: DeliveryView = {
  wakeId: "wake-1",
  state: "ready",
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  deliveredVia: null,
};

test.each<[Partial<DeliveryView>, string]>([
  [{}, "wake ready"],
  [
    { attempts: 3, nextAttemptAt: "2026-12-01T12:00:08Z", lastError: "POST http://x answered 503" },
    "delivery retrying · 3 attempts · next in 8s (last error: POST http://x answered 503)",
  ],
  [{ state: "delivering", attempts: 2 }, "delivering (attempt 2)"],
  [{ state: "delivered", deliveredVia: "webhook" }, "delivered via webhook"],
  [
    { state: "needs_review", lastError: "delivery interrupted\nmore" },
    "delivery needs review (last error: delivery interrupted)",
  ],
])("%j → %s", (delivery, text) => {
  expect(deliveryText({ ...base, ...delivery }, now)).toBe(text);
});
