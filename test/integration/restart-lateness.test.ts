/**
 * Daemon stop and restart (issue #38 item 9): checks that fell due while the daemon was down are
 * not lateness — no "Checks are running late" entry, no late names in /api/status — and a watch
 * the restart lost says why in its view (the row shows `ending.detail`).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

test("checks due during the downtime run at once after a restart without counting as late", async () => {
  const sid = await daemon.newSession("late");
  const made = await daemon.api("POST", `/api/sessions/${sid}/monitors`, {
    source: { kind: "command", command: "exit 1" },
    intervalSeconds: 1,
    timeoutSeconds: 600,
  });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  await daemon.api("POST", `/api/sessions/${sid}/monitors`, { source: { kind: "watch", command: "sleep 300" } });
  await waitFor(async () => (await daemon.monitor(sid, id)).polls >= 1, { what: "a first check" });
  expect(await daemon.stop()).toBe(0);
  // Down until the next check is well overdue (over LATE_MS past its due time).
  const due = Date.now();
  await waitFor(() => Date.now() - due > 3000 || null, { what: "the downtime", everyMs: 100 });
  await daemon.spawn();
  await waitFor(async () => (await daemon.monitor(sid, id)).polls >= 3, { what: "checks after the restart" });

  const status = (await daemon.api("GET", "/api/status")).body;
  expect(status.checks.late).toEqual([]);
  expect(status.checks.overloaded).toBe(false);
  const panel = (await daemon.api("GET", `/api/panel?session=${sid}`)).body;
  expect(panel.attention.map((a: { reason: string }) => a.reason)).not.toContain("overload");

  const watch = await daemon.monitor(sid, "mon-2");
  expect(watch.ending.reason).toBe("lost");
  expect(watch.ending.detail).toBe("the Vigil daemon restarted; the watched process ended with it");
});
