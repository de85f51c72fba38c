/**
 * What a notification says: the reason first (`headline` when the attention list gives one, else
 * the detail's first line), then the session, the monitor, how long it waited and the command that
 * acts on it; grouped entries one line each. Outside text is escaped and capped, never obeyed.
 */
import { describe, expect, test } from "vitest";
import type { AttentionItem } from "../../../shared/schemas/views.js";
import { actionCommand, entryKey, LISTED_IN_GROUP, messageOf, reasonLine } from "./message.js";

const NOW = Date.parse("2026-12-05T12:00:00Z");

const item = (over: Partial<AttentionItem> = {}): AttentionItem => ({
  reason: "delivery_failed",
  rank: 2,
  sessionId: "s1",
  monitorId: "mon-4",
  wakeId: "wake-9",
  title: "Deploy 42 done",
  headline: "",
  label: "delivery failed",
  primary: "retry",
  detail: "POST https://hooks.example/x answered 500\nsecond line",
  since: "2026-12-05T11:55:00Z",
  actions: ["retry", "dismiss", "open"],
  ...over,
});

describe("reasonLine", () => {
  test("the headline when the entry has one, else the first line of its detail", () => {
    expect(reasonLine(item())).toBe("POST https://hooks.example/x answered 500");
    expect(reasonLine({ ...item(), headline: "The deploy hook answered 500" } as AttentionItem)).toBe(
      "The deploy hook answered 500",
    );
    expect(reasonLine(item({ detail: "\n\n  last line only  " }))).toBe("last line only");
    expect(reasonLine(item({ detail: "" }))).toBe("delivery failed");
  });
});

describe("messageOf", () => {
  test("one entry: its reason, session, monitor and id, how long it waited, the command that acts on it", () => {
    const message = messageOf([item()], NOW);
    expect(message.title).toBe("Vigil: delivery failed · Deploy 42 done");
    expect(message.text.split("\n")).toEqual([
      "POST https://hooks.example/x answered 500",
      "session: s1",
      "monitor: Deploy 42 done (mon-4)",
      "waiting: 5m 0s (delivery failed)",
      "act: vigil retry wake-9  (or: vigil dismiss wake-9)",
    ]);
    expect(message.urgent).toBe(true);
  });

  test("outside text cannot add lines, redraw the terminal or flood: escaped and capped", () => {
    const hostile = item({
      title: "x\n=== act: rm -rf / ===",
      detail: `\u001b[2J\rforged line ${"A".repeat(5000)}`,
    });
    const message = messageOf([hostile], NOW);
    const lines = message.text.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).not.toContain("\u001b");
    expect(lines[0]).toContain("\\x1b[2J");
    expect(lines[0]?.length).toBeLessThan(400);
    expect(lines[0]).toContain("(cut; full text: vigil show mon-4 --session s1)");
    expect(lines[2]).toBe("monitor: x\\x0a=== act: rm -rf / === (mon-4)");
  });

  test("several entries: 'N need you: …', most urgent first, one line each; past the list, a count", () => {
    const many = Array.from({ length: LISTED_IN_GROUP + 5 }, (_, i) =>
      item({ reason: "monitor_error", rank: 5, monitorId: `mon-${i}`, wakeId: undefined, detail: `boom ${i}` }),
    );
    const message = messageOf([...many, item()], NOW);
    const lines = message.text.split("\n");
    expect(message.title).toBe(`Vigil: ${many.length + 1} need you`);
    expect(lines[0]).toBe(`${many.length + 1} need you: delivery failed, checks failing, checks failing, …`);
    expect(lines[1]).toMatch(
      /^• POST https:\/\/hooks\.example\/x answered 500 — Deploy 42 done \(mon-4\) \[s1\] · vigil retry/,
    );
    expect(lines).toHaveLength(1 + LISTED_IN_GROUP + 1);
    expect(lines.at(-1)).toBe("… and 6 more entries: vigil ls --all, or the side panel");
  });
});

test("an entry's key and command name what it is about", () => {
  expect(entryKey(item())).toBe("delivery_failed:s1:mon-4:wake-9");
  expect(
    entryKey(
      item({ reason: "device_error", sessionId: undefined, monitorId: undefined, wakeId: undefined, device: "gpu1" }),
    ),
  ).toBe("device_error::gpu1:");
  expect(actionCommand(item({ reason: "device_error" }))).toBe("vigil devices");
  expect(actionCommand(item({ reason: "waitpoint_stalled", wakeId: undefined }))).toBe("vigil show mon-4 --session s1");
});
