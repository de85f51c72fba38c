import { describe, expect, test } from "vitest";
import type { DeliveryView } from "../../shared/schemas/views";
import { type Resend, resendPhase, resendText } from "./panel-send";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const resend: Resend = {
  sessionId: "s",
  monitorId: "mon-1",
  wakeId: "wake-2",
  title: "CI run",
  accepted: true,
  error: null,
  settledAt: null,
};
const delivery = (over: Partial<DeliveryView>): DeliveryView => ({
  wakeId: "wake-2",
  state: "ready",
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  deliveredVia: null,
  ...over,
});

describe("Send again's feedback", () => {
  test("sending until the daemon took it and while the wake is ready", () => {
    expect(resendPhase({ ...resend, accepted: false }, delivery({ state: "needs_review" }), NOW)).toEqual({
      phase: "sending",
    });
    expect(resendPhase(resend, delivery({}), NOW)).toEqual({ phase: "sending" });
    expect(resendText(resend, { phase: "sending" }, NOW)).toBe("Sending wake-2 of CI run…");
  });

  test("behind a backoff: until when", () => {
    const until = new Date(NOW + 20_000).toISOString();
    const phase = resendPhase(resend, delivery({ attempts: 1, nextAttemptAt: until }), NOW);
    expect(phase).toEqual({ phase: "backoff", until });
    expect(resendText(resend, phase, NOW)).toBe("wake-2 of CI run waits behind a backoff: next attempt in 20s");
  });

  test("delivered, or failed again with why", () => {
    expect(
      resendText(resend, resendPhase(resend, delivery({ state: "delivered", deliveredVia: "webhook" }), NOW), NOW),
    ).toBe("wake-2 of CI run delivered (webhook)");
    const failed = resendPhase(
      resend,
      delivery({ state: "needs_review", lastError: "POST /hook answered 400\nmore" }),
      NOW,
    );
    expect(resendText(resend, failed, NOW)).toBe("wake-2 of CI run failed again: POST /hook answered 400");
    expect(resendPhase({ ...resend, error: "Unknown wake" }, null, NOW)).toEqual({
      phase: "failed",
      error: "Unknown wake",
    });
  });

  test("another wake of the monitor is not this one's outcome", () => {
    expect(resendPhase(resend, delivery({ wakeId: "wake-3", state: "delivered" }), NOW)).toEqual({ phase: "sending" });
  });
});
