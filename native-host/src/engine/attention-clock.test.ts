import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { Changes } from "../core/changes.js";
import { AttentionClock } from "./attention-clock.js";

describe("the attention clock (a time-based Needs-you cause reaches the panel)", () => {
  let changes: Changes;
  let clock: AttentionClock;
  let heard: string[];
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
    changes = new Changes();
    heard = [];
    changes.on((sid) => heard.push(sid));
    clock = new AttentionClock(changes, 10_000);
    clock.start();
  });
  afterEach(() => {
    clock.stop();
    vi.useRealTimers();
  });

  test("a change is followed, once the threshold has passed, by one more change in its session", () => {
    changes.emit("quiet");
    heard = [];
    vi.advanceTimersByTime(10_000);
    expect(heard).toEqual([]);
    vi.advanceTimersByTime(300);
    expect(heard).toEqual(["quiet"]);
    // The follow-up is not itself followed.
    vi.advanceTimersByTime(60_000);
    expect(heard).toEqual(["quiet"]);
    expect(clock.pending).toBe(0);
  });

  test("changes within a second make one follow-up; later ones their own; sessions apart", () => {
    changes.emit("a");
    vi.advanceTimersByTime(500);
    changes.emit("a");
    vi.advanceTimersByTime(2_000);
    changes.emit("a");
    changes.emit("b");
    expect(clock.pending).toBe(3);
    heard = [];
    vi.advanceTimersByTime(20_000);
    expect(heard).toEqual(["a", "a", "b"]);
  });

  test("progress reports alone are not followed up: they make no wake that could go untaken", () => {
    changes.emit("busy", "local", "progress");
    expect(clock.pending).toBe(0);
    changes.emit("busy", "local", "any");
    expect(clock.pending).toBe(1);
  });

  test("a change heard from another host is that host's to follow up", () => {
    changes.emit("remote-session", "remote");
    expect(clock.pending).toBe(0);
  });
});
