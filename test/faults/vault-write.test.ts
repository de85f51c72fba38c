/**
 * A vault write that fails (disk full, something in the way of vault.json) changes nothing: the
 * answer is 503, the old value stays the one commands get, and a value that was never stored is
 * never resolved — so no raw secret can reach an event, a wake or the database unshielded.
 * The failure is made with a directory where the vault writes its temporary file.
 */
import { mkdirSync, readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

const OLD = "old-VALUE-5a1c";
const REPLACEMENT = "replaced-VALUE-77b2";
const NEVER_STORED = "never-STORED-93e0";
let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  await daemon.api("POST", "/api/sessions", { id: "v" });
});
afterAll(() => daemon.dispose());

test("a failed vault write answers 503 and leaves the vault, the shield and every command as they were", async () => {
  expect((await daemon.api("PUT", "/api/vault/KEY", { value: OLD })).status).toBe(200);
  const blocker = join(daemon.home, "vault.json.tmp");
  mkdirSync(blocker);

  const replaced = await daemon.api("PUT", "/api/vault/KEY", { value: REPLACEMENT });
  expect(replaced.status).toBe(503);
  expect(replaced.body.error.message).toMatch(/^Storage unavailable \(EISDIR: .*\); the vault was not changed$/);
  const added = await daemon.api("PUT", "/api/vault/NEW", { value: NEVER_STORED });
  expect(added.status).toBe(503);

  // The key that never got stored cannot be used ...
  const refused = await daemon.api("POST", "/api/sessions/v/monitors", {
    source: { kind: "command", command: "echo ${secret:NEW}" },
    intervalSeconds: 5,
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain("Vault key NEW is not set");
  // ... and the one whose update failed still resolves to its stored (shielded) value.
  await daemon.api("POST", "/api/sessions/v/monitors", {
    source: { kind: "command", command: 'echo "got=${secret:KEY}"' },
    intervalSeconds: 5,
  });
  const done = await daemon.waitForState("v", "mon-1", ["ready"]);
  expect(done.lastEvent).toBe("got=[secret:KEY]");

  const everything = JSON.stringify([
    (await daemon.api("GET", "/api/sessions/v/monitors/mon-1/events")).body,
    (await daemon.api("GET", "/api/sessions/v/wakes")).body,
    (await daemon.api("GET", "/api/vault")).body,
    readFileSync(join(daemon.home, "vigil.log"), "utf8"),
  ]);
  for (const value of [OLD, REPLACEMENT, NEVER_STORED]) expect(everything).not.toContain(value);
  expect(readFileSync(join(daemon.home, "vault.json"), "utf8")).toContain(OLD);
  expect(readFileSync(join(daemon.home, "vault.json"), "utf8")).not.toContain(REPLACEMENT);

  // Space back: the same request succeeds.
  rmdirSync(blocker);
  expect((await daemon.api("PUT", "/api/vault/KEY", { value: REPLACEMENT })).status).toBe(200);
  expect(readFileSync(join(daemon.home, "vault.json"), "utf8")).toContain(REPLACEMENT);
});
