/**
 * Fuzz at the boundaries (fast-check): API bodies, signal bodies, spool file contents and the
 * browser's native-messaging frames. No crash,
 * no 5xx, nothing stored for refused input. Runs: VIGIL_FUZZ_RUNS (100 in `npm test`, 10,000 in
 * `npm run soak`).
 */
import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { encodeFrame } from "../../native-host/src/native/framing.js";
import { MAX_BROWSER_TO_HOST_BYTES } from "../../shared/schemas/native-messages.js";
import { TestDaemon, waitFor } from "../helpers/daemon.js";
import { NativePort } from "../helpers/native-port.js";

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
        const reply = await fetch(`${daemon.url}/webhook/signal`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
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

/** Each run is a round trip through a real process; 2,000 already takes a minute. */
const NATIVE_RUNS = Math.min(RUNS, 2000);

test(`${NATIVE_RUNS} random native-messaging streams: every frame answered, stdout stays framed, the bridge lives`, async () => {
  const port = NativePort.open(daemon.home);
  try {
    await port.waitForPush("daemon", (push) => push.connected === true);
    const request = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          id: fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.integer()),
          type: fc.constantFrom("ping", "status", "list", "control", "waitpoint", "observe", "nope"),
          sessionId: fc.string(),
          monitorId: fc.string(),
          action: fc.constantFrom("pause", "resume", "cancel", "explode"),
          offset: fc.integer(),
          limit: fc.integer(),
        },
        { requiredKeys: ["type"] },
      ),
    );
    // A piece is a whole frame of JSON, or a frame whose body is not JSON.
    const piece = fc.oneof(
      request.map((message) => ({ bytes: encodeFrame(message, MAX_BROWSER_TO_HOST_BYTES), answered: !hasOk(message) })),
      fc
        .uint8Array({ minLength: 1, maxLength: 200 })
        .filter((b) => !parsesAsJson(b))
        .map((body) => {
          const header = Buffer.alloc(4);
          header.writeUInt32LE(body.length, 0);
          return { bytes: Buffer.concat([header, Buffer.from(body)]), answered: true };
        }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (pieces, cuts) => {
          const before = port.frames.filter((f) => "ok" in f).length;
          const stream = Buffer.concat(pieces.map((p) => p.bytes));
          // Split the stream at random points: frames arrive in pieces or several per chunk.
          const points = [...new Set(cuts.map((c) => c % stream.length))].sort((a, b) => a - b);
          let start = 0;
          for (const point of [...points, stream.length]) {
            if (point > start) port.child.stdin.write(stream.subarray(start, point));
            start = point;
          }
          const marker = `ping-${++run}`;
          port.send({ id: marker, type: "ping" });
          await port.reply(marker);
          const answered = pieces.filter((p) => p.answered).length;
          await waitFor(() => port.frames.filter((f) => "ok" in f).length - before >= answered + 1, {
            what: `${answered} replies`,
          });
          expect(port.frames.filter((f) => "ok" in f).length - before).toBe(answered + 1);
          expect(port.frames.some((f) => "undecodable" in f)).toBe(false);
          expect(port.child.exitCode).toBeNull();
        },
      ),
      { numRuns: NATIVE_RUNS },
    );
  } finally {
    expect(await port.close()).toBe(0);
  }
  expect(port.decoder.pending).toBe(0);
});

function hasOk(message: unknown): boolean {
  return message !== null && typeof message === "object" && "ok" in message;
}

function parsesAsJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(Buffer.from(bytes).toString("utf8"));
    return true;
  } catch {
    return false;
  }
}
