/**
 * Disk full: $VIGIL_HOME on a 4 MB tmpfs, filled up. Writes answer 503 with a clear message (not
 * 500), nothing half-written is stored, reads keep working, and writes succeed again once space
 * returns. Needs root (mount); skipped, saying why, where mounting is not allowed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";

const mountpoint = mkdtempSync(join(tmpdir(), "vigil-full-"));
let mounted = false;
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountpoint], { stdio: "ignore" });
  mounted = true;
} catch {
  process.stderr.write("disk-full fault test skipped: cannot mount a tmpfs here (needs root)\n");
}
const daemon = new TestDaemon(join(mountpoint, "home"), {});

afterAll(async () => {
  await daemon.stop();
  if (mounted) execFileSync("umount", [mountpoint]);
  rmSync(mountpoint, { recursive: true, force: true });
});

test.skipIf(!mounted)(
  "a full disk answers 503, stores nothing half-written, and recovers when space returns",
  async () => {
    await daemon.spawn();
    await daemon.api("POST", "/api/sessions", { id: "full" });
    const w = (
      await daemon.api("POST", "/api/sessions/full/waitpoints", { label: "m", intent: "fill", max_signals: 1000 })
    ).body;
    const junk = join(mountpoint, "junk");
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (let i = 0; i < 100; i++) writeFileSync(junk, chunk, { flag: "a" });
    } catch {
      // ENOSPC: the disk is full now.
    }
    const statuses: number[] = [];
    let refusal = "";
    for (let i = 0; i < 400 && !statuses.includes(503); i++) {
      const r = await fetch(`${daemon.url}/webhook/signal`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id: w.id,
          secret: w.secret,
          status: "progress",
          data: "x".repeat(12_000),
          key: `k${i}`,
        }),
      });
      statuses.push(r.status);
      if (r.status === 503) refusal = ((await r.json()) as { error: { message: string } }).error.message;
    }
    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s !== 202 && s !== 503)).toEqual([]);
    expect(refusal).toMatch(/^Storage unavailable \(SQLITE_FULL: .*\); nothing was stored/);
    const accepted = statuses.filter((s) => s === 202).length;
    const view = await daemon.api("GET", `/api/sessions/full/waitpoints/${w.id}`);
    expect(view.status).toBe(200);
    expect(view.body.signals).toHaveLength(accepted);

    unlinkSync(junk);
    const after = await fetch(`${daemon.url}/webhook/signal`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: w.id, secret: w.secret, status: "progress", message: "space is back" }),
    });
    expect(after.status).toBe(202);
    expect((await daemon.api("GET", `/api/sessions/full/waitpoints/${w.id}`)).body.signals).toHaveLength(accepted + 1);
  },
);
