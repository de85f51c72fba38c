/**
 * Spool entries that are not regular files (design.md §5, §8): a FIFO, a symbolic link (to a FIFO or
 * to a file elsewhere), a directory, an oversize file. Each is parked under bad/ with a reason naming
 * its kind and quoting none of its content; the daemon keeps answering and keeps collecting.
 * The property runs VIGIL_FUZZ_RUNS × 0.3 times (30 in `npm test`).
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, expect, test } from "vitest";
import { SIGNAL_LIMITS } from "../../shared/schemas/inputs.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

const RUNS = Number(process.env.VIGIL_FUZZ_RUNS ?? 100);
const KIND_RUNS = Math.max(1, Math.min(Math.ceil(RUNS * 0.3), 1000));

/** One daemon per test: a daemon frozen by one entry must not fail the next test for it. */
let daemon: TestDaemon;
let outside: string;
let wp: { sid: string; id: string; secret: string };
const spool = () => join(daemon.home, "tmp", "signals");
const bad = (name: string) => join(spool(), "bad", name);

/** A daemon stuck in a blocking read never answers SIGTERM: kill it so the run ends. */
async function shutdown(d: TestDaemon): Promise<void> {
  const child = d.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    try {
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 5000, what: "exit" });
    } catch {
      await d.kill9();
    }
  }
  rmSync(d.home, { recursive: true, force: true });
}

/** /healthz answers 200 (a frozen daemon accepts the connection and never answers: bounded). */
async function healthy(d: TestDaemon = daemon): Promise<boolean> {
  const reply = await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(2000) });
  return reply.status === 200;
}

const waitHealthy = (d: TestDaemon = daemon) => waitFor(() => healthy(d), { timeoutMs: 10_000, what: "/healthz" });
async function signals(): Promise<number> {
  const reply = await daemon.api(`GET`, `/api/sessions/${wp.sid}/waitpoints/${wp.id}`, undefined, {}, 2000);
  return (reply.body as { signals: unknown[] }).signals.length;
}

/** Made as NAME.tmp and renamed in, as a writer does. */
function renameIn(name: string, make: (tmp: string) => void): void {
  const tmp = join(spool(), `${name}.tmp`);
  make(tmp);
  renameSync(tmp, join(spool(), `${name}.json`));
}

const mkfifo = (path: string) => execFileSync("mkfifo", [path]);

/** A file outside the spool that a link might point at, holding text that must never be echoed. */
function secretFile(name: string, marker: string): string {
  const path = join(outside, name);
  writeFileSync(path, `root:x:0:0:${marker}:/root:/bin/sh\n`);
  return path;
}

/** The reason once written whole (it ends with a newline). */
async function parkedReason(name: string): Promise<string> {
  const path = bad(`${name}.json.reason`);
  const reason = await waitFor(
    () => (existsSync(path) && readFileSync(path, "utf8").endsWith("\n") ? readFileSync(path, "utf8") : null),
    {
      what: `${name}.json parked`,
    },
  );
  expect(readdirSync(spool())).not.toContain(`${name}.json`);
  return reason.trimEnd();
}

beforeEach(async () => {
  daemon = await TestDaemon.start();
  outside = mkdtempSync(join(tmpdir(), "vigil-outside-"));
  const sid = "kinds";
  await daemon.api("POST", "/api/sessions", { id: sid });
  const reply = await daemon.api("POST", `/api/sessions/${sid}/waitpoints`, {
    label: "kinds",
    intent: "spool file kinds",
    max_signals: 1000,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  wp = { sid, id: reply.body.id, secret: reply.body.secret };
});
afterEach(async () => {
  await shutdown(daemon);
  rmSync(outside, { recursive: true, force: true });
});

test("a FIFO named *.json is parked as a FIFO; the daemon keeps answering and collects the next file", async () => {
  mkfifo(join(spool(), "x.json"));
  expect(await parkedReason("x")).toContain("Expected a regular file, got a FIFO");
  expect(lstatSync(bad("x.json")).isFIFO()).toBe(true);
  await waitHealthy();
  const before = await signals();
  renameIn("after-fifo", (tmp) => writeFileSync(tmp, JSON.stringify({ id: wp.id, secret: wp.secret, message: "hi" })));
  await waitFor(async () => (await signals()) === before + 1, { what: "the next file accepted" });
  await waitFor(() => !existsSync(join(spool(), "after-fifo.json")), { what: "the next file removed" });
  expect(existsSync(bad("after-fifo.json.reason"))).toBe(false);
});

test("a symlink to a file elsewhere is parked as a link (moved, not followed); the reason quotes none of it", async () => {
  const target = secretFile("passwd", "MARKER-link");
  symlinkSync(target, join(spool(), "y.json"));
  const reason = await parkedReason("y");
  expect(reason).toContain("Expected a regular file, got a symbolic link");
  expect(reason).not.toContain("MARKER");
  expect(reason).not.toContain("root");
  expect(lstatSync(bad("y.json")).isSymbolicLink()).toBe(true);
  expect(readFileSync(target, "utf8")).toContain("MARKER-link");
  await waitHealthy();
});

test("a symlink to a FIFO is parked as a link without opening the FIFO", async () => {
  const fifo = join(outside, "fifo");
  mkfifo(fifo);
  symlinkSync(fifo, join(spool(), "to-fifo.json"));
  expect(await parkedReason("to-fifo")).toContain("Expected a regular file, got a symbolic link");
  expect(lstatSync(bad("to-fifo.json")).isSymbolicLink()).toBe(true);
  await waitHealthy();
});

test("a directory named *.json is parked as a directory", async () => {
  mkdirSync(join(spool(), "z.json"));
  expect(await parkedReason("z")).toContain("Expected a regular file, got a directory");
  expect(lstatSync(bad("z.json")).isDirectory()).toBe(true);
  await waitHealthy();
});

test("a second name for a file elsewhere (a hard link) is parked, even when it holds a valid signal", async () => {
  const elsewhere = join(outside, "valid.json");
  writeFileSync(elsewhere, JSON.stringify({ id: wp.id, secret: wp.secret, status: "progress" }));
  linkSync(elsewhere, join(spool(), "h.json"));
  expect(await parkedReason("h")).toBe("Expected a file with one name, got one with 2 hard links");
  expect(await signals()).toBe(0);
});

test("an oversize regular file is parked by its size, quoting none of it", async () => {
  renameIn("huge", (tmp) => writeFileSync(tmp, `root:x:0:0:MARKER-huge${"x".repeat(SIGNAL_LIMITS.bodyBytes)}`));
  const reason = await parkedReason("huge");
  expect(reason).toContain(`at most ${SIGNAL_LIMITS.bodyBytes} bytes`);
  expect(reason).not.toContain("MARKER");
  await waitHealthy();
});

test("a file that is not JSON is parked with a reason that quotes none of its text", async () => {
  renameIn("text", (tmp) => writeFileSync(tmp, "root:x:0:0:MARKER-text:/root:/bin/sh\n"));
  const reason = await parkedReason("text");
  expect(reason).toContain("Expected a JSON signal");
  expect(reason).not.toContain("MARKER");
  expect(reason).not.toContain("root");
});

test("a link left at a reason's name in bad/ is replaced, never written through", async () => {
  const target = secretFile("victim", "MARKER-victim");
  symlinkSync(target, bad("w.json.reason"));
  renameIn("w", (tmp) => writeFileSync(tmp, "{{{"));
  await waitFor(() => lstatSync(bad("w.json.reason")).isFile(), { what: "w.json parked" });
  expect(readFileSync(bad("w.json.reason"), "utf8")).toContain("Expected a JSON signal");
  expect(readFileSync(target, "utf8")).toBe("root:x:0:0:MARKER-victim:/root:/bin/sh\n");
});

test("a daemon restarted with a FIFO and a link to one already in the spool starts, answers and parks them", async () => {
  await daemon.stop();
  mkfifo(join(spool(), "early.json"));
  mkfifo(join(outside, "early-target"));
  symlinkSync(join(outside, "early-target"), join(spool(), "early-link.json"));
  await daemon.spawn();
  await waitHealthy();
  expect(await parkedReason("early")).toContain("Expected a regular file, got a FIFO");
  expect(await parkedReason("early-link")).toContain("Expected a regular file, got a symbolic link");
  await waitHealthy();
});

type Kind = "valid" | "garbage" | "fifo" | "link-to-fifo" | "link-to-file" | "directory" | "oversize";
const KINDS: Kind[] = ["valid", "garbage", "fifo", "link-to-fifo", "link-to-file", "directory", "oversize"];

test(`${KIND_RUNS} random spool entries of every kind: each leaves the spool root, no reason quotes content, the daemon answers`, async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...KINDS), fc.uint8Array({ maxLength: 300 }), async (kind, bytes) => {
      const name = `kind-${n++}`;
      const marker = `MARKER-${name}`;
      const before = await signals();
      renameIn(name, (tmp) => {
        switch (kind) {
          case "valid":
            return writeFileSync(tmp, JSON.stringify({ id: wp.id, secret: wp.secret, message: marker }));
          case "garbage":
            return writeFileSync(tmp, Buffer.concat([Buffer.from(`root:x:0:0:${marker}`), bytes]));
          case "fifo":
            return mkfifo(tmp);
          case "link-to-fifo": {
            const fifo = join(outside, `${name}.fifo`);
            mkfifo(fifo);
            return symlinkSync(fifo, tmp);
          }
          case "link-to-file":
            // Even a valid signal is refused through a link.
            return symlinkSync(
              bytes.length % 2 === 0
                ? secretFile(name, marker)
                : writeJson(join(outside, name), { id: wp.id, secret: wp.secret, message: marker }),
              tmp,
            );
          case "directory":
            return mkdirSync(tmp);
          case "oversize":
            return writeFileSync(tmp, `root:x:0:0:${marker}${"x".repeat(SIGNAL_LIMITS.bodyBytes + bytes.length)}`);
        }
      });
      await waitFor(() => !readdirSync(spool()).includes(`${name}.json`), { what: `${name} (${kind}) collected` });
      expect(await healthy()).toBe(true);
      if (kind === "valid") {
        expect(await signals()).toBe(before + 1);
        expect(existsSync(bad(`${name}.json`))).toBe(false);
      } else {
        const reason = await parkedReason(name);
        expect(reason).not.toContain("MARKER");
        expect(reason).not.toContain("root");
        expect(await signals()).toBe(before);
      }
    }),
    // No shrinking: a failed run may have frozen the daemon every later run would talk to.
    { numRuns: KIND_RUNS, endOnFailure: true },
  );
});

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value));
  return path;
}
