/** The real `vigil native-host`, spoken to the way the browser does: framed JSON on stdin/stdout. */
import { afterAll, beforeAll, expect, test } from "vitest";
import { MAX_BROWSER_TO_HOST_BYTES } from "../../shared/schemas/native-messages.js";
import { TestDaemon } from "../helpers/daemon.js";
import { NativePort } from "../helpers/native-port.js";

let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await TestDaemon.start();
  await daemon.api("POST", "/api/sessions", { id: "panel" });
  await daemon.api("POST", "/api/sessions/panel/monitors", {
    name: "CI run",
    source: { kind: "command", command: "false" },
    intervalSeconds: 5,
  });
});
afterAll(() => daemon.dispose());

test("answers typed requests, refuses bad frames with error replies, and exits when the port closes", async () => {
  const port = NativePort.open(daemon.home);
  const replies = port.frames;
  const send = (message: unknown) => port.send(message);
  const reply = (id: unknown) => port.reply(id);
  const child = port.child;

  send({ id: 1, type: "ping" });
  expect(await reply(1)).toEqual({ id: 1, ok: true, result: { pong: true } });

  send({ id: "l", type: "list" });
  const list = await reply("l");
  expect(list.result.total).toBe(1);
  expect(list.result.items[0]).toMatchObject({
    session: { id: "panel" },
    monitor: { id: "mon-1", name: "CI run", state: "waiting" },
  });

  send({ id: "p", type: "control", sessionId: "panel", monitorId: "mon-1", action: "pause" });
  expect((await reply("p")).result.state).toBe("paused");
  expect((await daemon.monitor("panel", "mon-1")).state).toBe("paused");

  send({ id: "x", type: "explode" });
  expect((await reply("x")).ok).toBe(false);
  send({ id: "m", type: "control", sessionId: "panel", monitorId: "mon-9", action: "pause" });
  expect(await reply("m")).toEqual({ id: "m", ok: false, error: "Unknown monitor mon-9 in session panel" });

  // Garbage inside a well-formed frame, then an oversized frame: both get error replies, and the
  // bridge keeps going.
  const garbage = Buffer.from("{not json");
  const header = Buffer.alloc(4);
  header.writeUInt32LE(garbage.length, 0);
  child.stdin.write(Buffer.concat([header, garbage]));
  const huge = Buffer.alloc(4);
  huge.writeUInt32LE(MAX_BROWSER_TO_HOST_BYTES + 1, 0);
  child.stdin.write(huge);
  child.stdin.write(Buffer.alloc(MAX_BROWSER_TO_HOST_BYTES + 1, 0x20));
  // A reply and a request nested 5,000 deep: refused before anything recursive touches them.
  for (const text of [
    `{"id":"d1","ok":true,"result":${"[".repeat(5000)}${"]".repeat(5000)}}`,
    `{"id":"d2","type":"ping","x":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`,
  ]) {
    const body = Buffer.from(text);
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length, 0);
    child.stdin.write(Buffer.concat([length, body]));
  }
  send({ id: 2, type: "ping" });
  expect((await reply(2)).ok).toBe(true);
  const errors = replies.filter((r) => r.id === null);
  expect(errors.map((r) => r.error)).toEqual([
    expect.stringMatching(/^Expected JSON, got malformed JSON/),
    `Expected a message of at most ${MAX_BROWSER_TO_HOST_BYTES} bytes, got ${MAX_BROWSER_TO_HOST_BYTES + 1}`,
    "Expected JSON nested at most 64 levels deep, got deeper",
    "Expected JSON nested at most 64 levels deep, got deeper",
  ]);

  expect(await port.close()).toBe(0);
  expect(port.decoder.pending).toBe(0); // stdout held frames and nothing else
  expect(port.rawBytes).toBeGreaterThan(0);
});
