/**
 * A monitor whose checks fail at once (nothing listens on 127.0.0.1:1): a "checks failing" entry
 * of the Needs-you list, for the notification tests.
 */
import { expect } from "vitest";
import type { TestDaemon } from "./daemon.js";

export async function armFailingMonitor(daemon: TestDaemon, session: string, name: string): Promise<string> {
  const reply = await daemon.api("POST", `/api/sessions/${session}/monitors`, {
    name,
    source: {
      kind: "tool",
      name: "http__get",
      args: { url: "http://127.0.0.1:1/health" },
      condition: { any: [{ path: "status", operator: "equals", value: 200 }] },
    },
    intervalSeconds: 600,
    timeoutSeconds: 3600,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}
