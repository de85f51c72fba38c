/** The `wait --follow` progress line and its in-place drawing, with fixed clock values. */
import { describe, expect, test } from "vitest";
import type { CheckEntry, MonitorView } from "../../../shared/schemas/views.js";
import { monitorView } from "../../../test/helpers/views.js";
import { drawsProgress, fitWidth, LiveLine, progressLine } from "./follow.js";

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();

const view = (overrides: Partial<MonitorView> = {}) => monitorView(at, { id: "mon-3", ...overrides });

const check = (overrides: Partial<CheckEntry> = {}): CheckEntry => ({
  seq: 7,
  at: at(63_000),
  outcome: "not_met",
  durationMs: 120,
  excerpt: "curl: (7) Failed to connect\nsecond line",
  ...overrides,
});

describe("progressLine", () => {
  test("elapsed time, next check and the last result", () => {
    const line = progressLine(view({ nextCheckAt: at(69_000) }), check(), T0 + 65_000, 200);
    expect(line).toBe(
      "mon-3 waiting · 1m 5s elapsed · next check in 4s · last check 2s ago: not met · curl: (7) Failed to connect",
    );
  });

  test("before the first check", () => {
    expect(progressLine(view(), null, T0 + 1_000, 200)).toBe(
      "mon-3 waiting · 1s elapsed · next check in 4s · no check yet",
    );
  });

  test("a check that is due says so instead of a negative time", () => {
    expect(progressLine(view({ nextCheckAt: at(5_000) }), null, T0 + 6_000, 200)).toBe(
      "mon-3 waiting · 6s elapsed · checking now · no check yet",
    );
  });

  test("paused: no next check", () => {
    const line = progressLine(
      view({ state: "paused", nextCheckAt: null }),
      check({ excerpt: null }),
      T0 + 3_723_000,
      200,
    );
    expect(line).toBe("mon-3 paused · 1h 2m elapsed · last check 1h 1m ago: not met");
  });

  test("control characters in the output cannot move the cursor", () => {
    const line = progressLine(view(), check({ excerpt: "50%\r\u001b[2Kdone\ttoo \u202eevil" }), T0 + 64_000, 200);
    expect(line).toContain("not met · 50% \\x1b[2Kdone too \\u202eevil");
    expect(line).not.toMatch(/[\p{Cc}\u202e]/u);
  });

  test("cut to the terminal's width, never wrapping", () => {
    const line = progressLine(view(), check({ excerpt: "x".repeat(300) }), T0 + 64_000, 80);
    expect([...line]).toHaveLength(79);
    expect(line.endsWith("…")).toBe(true);
  });
});

test("fitWidth leaves a short line alone and cuts a long one to width - 1", () => {
  expect(fitWidth("short", 80)).toBe("short");
  expect(fitWidth("abcdefghijklmnop", 13)).toBe("abcdefghijk…");
});

describe("LiveLine", () => {
  test("redraws one line in place and clears it at the end", () => {
    const out: string[] = [];
    const live = new LiveLine((text) => out.push(text));
    live.draw("mon-1 waiting · 1s elapsed");
    live.draw("mon-1 waiting · 2s elapsed");
    live.clear();
    expect(out).toEqual(["\r\x1b[Kmon-1 waiting · 1s elapsed", "\r\x1b[Kmon-1 waiting · 2s elapsed", "\r\x1b[K"]);
    expect(out.join("")).not.toContain("\n");
  });

  test("clearing what was never drawn writes nothing", () => {
    const out: string[] = [];
    const live = new LiveLine((text) => out.push(text));
    live.clear();
    live.draw("x");
    live.clear();
    live.clear();
    expect(out).toEqual(["\r\x1b[Kx", "\r\x1b[K"]);
  });
});

test("progress is drawn only when stdout and stderr are terminals", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  expect(drawsProgress(tty, tty, {})).toBe(true);
  expect(drawsProgress(pipe, tty, {})).toBe(false);
  expect(drawsProgress(tty, pipe, {})).toBe(false);
  expect(drawsProgress(tty, tty, { TERM: "dumb" })).toBe(false);
});
