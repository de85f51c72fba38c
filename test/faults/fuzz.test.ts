/**
 * Fuzz at the boundaries (fast-check): API bodies, signal bodies, spool file contents and the
 * browser's native-messaging frames. No crash,
 * no 5xx, nothing stored for refused input. Runs: VIGIL_FUZZ_RUNS (100 in `npm test`, 10,000 in
 * `npm run soak`).
 */
import { readdirSync, renameSync, writeFileSync } from "node:fs";
import { request } from "node:http";
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
    // Past 60 misses a minute misses answer 429 (per id); a correct secret is still accepted.
    { numRuns: RUNS },
  );
});

test(`${RUNS} random request heads: never a 5xx; a foreign Host is 421 and any Origin 403 before anything else`, async () => {
  const port = Number(new URL(daemon.url).port);
  const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/);
  const value = fc.oneof(
    fc.stringMatching(/^[\t\x20-\x7e]{0,60}$/),
    fc.constantFrom("application/json", "text/plain", "Bearer x", "bearer x", `127.0.0.1:${port}`, "localhost"),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.record(
        {
          method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"),
          path: fc.constantFrom("/healthz", "/webhook/signal", "/api/sessions", "/api/sessions/fuzz/monitors", "/nope"),
          host: fc.option(value, { nil: undefined }),
          origin: fc.option(value, { nil: undefined }),
          headers: fc.dictionary(token, value, { maxKeys: 6 }),
          body: fc.option(fc.string(), { nil: undefined }),
        },
        { requiredKeys: ["method", "path", "headers"] },
      ),
      async ({ method, path, host, origin, headers, body }) => {
        const sent = Object.fromEntries(
          Object.entries(headers).filter(
            ([name]) => !/^(host|origin|content-length|transfer-encoding|connection)$/i.test(name),
          ),
        );
        const sendsBody = body !== undefined && method !== "GET" && method !== "HEAD";
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(
            {
              host: "127.0.0.1",
              port,
              method,
              path,
              headers: {
                ...sent,
                host: host ?? `127.0.0.1:${port}`,
                ...(origin === undefined ? {} : { origin }),
                // A body always with its length: without one the rest would be read as the next request.
                ...(sendsBody ? { "content-length": Buffer.byteLength(body) } : {}),
              },
            },
            (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            },
          );
          req.on("error", reject);
          req.end(sendsBody ? body : undefined);
        });
        expect(status).toBeLessThan(500);
        // As the server sees it: Node's client sends its own Host for an empty one; values are trimmed.
        const seen = (host || `127.0.0.1:${port}`).trim().toLowerCase();
        const hostOk = [`127.0.0.1:${port}`, `localhost:${port}`].includes(seen);
        if (!hostOk) expect(status).toBe(421);
        else if (origin !== undefined) expect(status).toBe(403);
      },
    ),
    { numRuns: RUNS },
  );
  expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200);
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
