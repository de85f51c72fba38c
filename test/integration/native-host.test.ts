/** The real `vigil native-host`, spoken to the way the browser does: framed JSON on stdin/stdout. */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import { encodeFrame, FrameDecoder } from "../../native-host/src/native/framing.js";
import { MAX_BROWSER_TO_HOST_BYTES } from "../../shared/native-messages.js";
import { BIN, TestDaemon, waitFor } from "../helpers/daemon.js";

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
  const child = spawn(
    process.execPath,
    [BIN, "--home", daemon.home, "native-host", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const replies: any[] = [];
  const decoder = new FrameDecoder(2 * 1024 * 1024);
  let raw = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    raw += chunk.length;
    for (const frame of decoder.push(chunk)) replies.push(frame.ok ? frame.message : { undecodable: frame.error });
  });
  const send = (message: unknown) => child.stdin.write(encodeFrame(message, MAX_BROWSER_TO_HOST_BYTES));
  const reply = (id: unknown) => waitFor(() => replies.find((r) => r.id === id), { what: `reply ${id}` });

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
  send({ id: 2, type: "ping" });
  expect((await reply(2)).ok).toBe(true);
  const errors = replies.filter((r) => r.id === null);
  expect(errors.map((r) => r.error)).toEqual([
    expect.stringMatching(/^Expected JSON, got malformed JSON/),
    `Expected a message of at most ${MAX_BROWSER_TO_HOST_BYTES} bytes, got ${MAX_BROWSER_TO_HOST_BYTES + 1}`,
  ]);

  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.stdin.end();
  expect(await exited).toBe(0);
  expect(decoder.pending).toBe(0); // stdout held frames and nothing else
  expect(raw).toBeGreaterThan(0);
});
