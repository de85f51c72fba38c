/**
 * Fuzz at the boundaries (fast-check): API bodies, signal bodies and spool file contents. No crash,
 * no 5xx, nothing stored for refused input. Runs: VIGIL_FUZZ_RUNS (100 in `npm test`, 10,000 in
 * `npm run soak`).
 */
import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

const RUNS = Number(process.env.VIGIL_FUZZ_RUNS ?? 100);
let daemon: TestDaemon;
let wp: { id: string; secret: string };

beforeAll(async () => {
  daemon = await TestDaemon.start();
  await daemon.api("POST", "/api/sessions", { id: "fuzz" });
  wp = (await daemon.api("POST", "/api/sessions/fuzz/waitpoints", { label: "f", intent: "fuzz", members: ["a"] })).body;
});
afterAll(() => daemon.dispose());

const monitorCount = async () => ((await daemon.api("GET", "/api/sessions/fuzz/monitors")).body as unknown[]).length;

const sourceish = fc.record(
  {
    kind: fc.constantFrom("command", "watch", "tool", "event", "time", "signal", "browser", "nope"),
    // Never a random shell command: an accepted body runs it.
    command: fc.constantFrom("true", "", " ", "echo fuzz"),
    name: fc.string(),
    type: fc.string(),
    at: fc.oneof(
      fc.string(),
      fc.date().map((d) => (Number.isNaN(d.getTime()) ? "x" : d.toISOString())),
    ),
    args: fc.dictionary(fc.string(), fc.jsonValue()),
    condition: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

test(`${RUNS} random monitor bodies: never a 5xx, and a refused body stores nothing`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.jsonValue(),
        fc.record(
          { name: fc.string(), source: sourceish, intervalSeconds: fc.double(), timeoutSeconds: fc.double() },
          { requiredKeys: [] },
        ),
      ),
      async (body) => {
        const before = await monitorCount();
        const reply = await daemon.api("POST", "/api/sessions/fuzz/monitors", JSON.stringify(body));
        expect(reply.status).toBeLessThan(500);
        if (reply.status === 201) {
          await daemon.api("POST", `/api/sessions/fuzz/monitors/${reply.body.id}/control`, { action: "cancel" });
        } else {
          expect(await monitorCount()).toBe(before);
        }
      },
    ),
    { numRuns: RUNS },
  );
});

test(`${RUNS} random signal bodies: never a 5xx, nothing recorded unless accepted`, async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record(
        {
          id: fc.oneof(fc.constant(wp.id), fc.string()),
          secret: fc.oneof(fc.constant(wp.secret), fc.string()),
          status: fc.oneof(fc.constant("progress"), fc.string()),
          member: fc.oneof(fc.constant("a"), fc.string()),
          data: fc.jsonValue(),
          message: fc.string(),
        },
        { requiredKeys: [] },
      ),
      async (body) => {
        const before = (await daemon.api("GET", `/api/sessions/fuzz/waitpoints/${wp.id}`)).body.signals.length;
        const reply = await fetch(`${daemon.url}/webhook/signal`, { method: "POST", body: JSON.stringify(body) });
        expect(reply.status).toBeLessThan(500);
        const after = (await daemon.api("GET", `/api/sessions/fuzz/waitpoints/${wp.id}`)).body.signals.length;
        expect(after - before).toBe(reply.status === 202 ? 1 : 0);
      },
    ),
    { numRuns: Math.min(RUNS, 55) }, // beyond 60 misses a minute the route answers 429, by design
  );
});

test(`${RUNS} random spool files: each collected or parked under bad/, the daemon keeps answering`, async () => {
  const spool = join(daemon.home, "tmp", "signals");
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.uint8Array().map((b) => Buffer.from(b).toString("latin1")),
      ),
      async (content) => {
        const name = `fuzz-${n++}`;
        writeFileSync(join(spool, `${name}.tmp`), content);
        renameSync(join(spool, `${name}.tmp`), join(spool, `${name}.json`));
        await waitFor(() => !readdirSync(spool).includes(`${name}.json`), { what: `${name} collected` });
        expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
      },
    ),
    { numRuns: RUNS },
  );
  // None of them can name a real waitpoint and its secret, so every one was refused and parked.
  const parked = readdirSync(join(spool, "bad")).filter((f) => f.startsWith("fuzz-") && f.endsWith(".json"));
  expect(parked).toHaveLength(n);
});
