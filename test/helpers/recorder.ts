/**
 * What `test/fixtures/adapter-recorder.sh` saw: how many times each wake was pushed (a command
 * adapter run lists the ids it carried). The fault tests' proof that no wake went out twice.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

export interface SettledWake {
  id: string;
  state: string;
  lastError: string | null;
}

/** Runs per wake id, from the recorder's `runs` file in `dir`. */
export function deliveriesPerWake(dir: string): Map<string, number> {
  const runs = existsSync(join(dir, "runs")) ? readFileSync(join(dir, "runs"), "utf8").trim().split("\n") : [];
  const perWake = new Map<string, number>();
  for (const line of runs) {
    for (const id of /wakes=(\S+)/.exec(line)?.[1]?.split(",") ?? []) perWake.set(id, (perWake.get(id) ?? 0) + 1);
  }
  return perWake;
}

/**
 * No wake ran twice; a delivered wake ran exactly once; one needing review was interrupted and ran
 * at most once (never repeated blindly).
 */
export function expectEachPushedOnce(wakes: SettledWake[], perWake: Map<string, number>): void {
  expect([...perWake].filter(([, count]) => count > 1)).toEqual([]);
  for (const wake of wakes.filter((w) => w.state === "needs_review")) {
    expect(wake.lastError).toMatch(/^delivery interrupted/);
    expect(perWake.get(wake.id) ?? 0).toBeLessThanOrEqual(1);
  }
  for (const wake of wakes.filter((w) => w.state === "delivered")) expect(perWake.get(wake.id)).toBe(1);
}
