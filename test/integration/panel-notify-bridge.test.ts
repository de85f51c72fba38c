/**
 * The panel's notification-channel requests (issue #40) through the real `vigil native-host` to the
 * real daemon: list (shielded as `vigil notify ls` shows it), test one, pause and resume one; bad
 * input and an unknown channel come back as error frames saying what was expected. Channels are
 * added with the real CLI and send to a local receiver; the panel itself is tested in test/e2e.
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { TestDaemon } from "../helpers/daemon.js";
import { NativePort } from "../helpers/native-port.js";

const TOKEN = "tk_bridge-5e4d3c2b1a";
const TOPIC = "/ntfy/bridge-topic-secret-4242";

let daemon: TestDaemon;
let receiver: Server;
let base = "";
let port: NativePort;
const hits: string[] = [];
let seq = 0;

async function ask(request: Record<string, unknown>): Promise<any> {
  const id = `r${++seq}`;
  port.send({ id, ...request });
  return port.reply(id);
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hits.push(req.url ?? "");
      const down = req.url === "/down";
      res.writeHead(down ? 500 : 200).end(down ? "upstream is down" : "{}");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  daemon = await TestDaemon.start();
  const vault = await daemon.cli(["vault", "set", "BRIDGE_TOKEN"], { input: `${TOKEN}\n` });
  expect(vault.exitCode, String(vault.stderr)).toBe(0);
  for (const args of [
    ["ntfy", `${base}${TOPIC}`, "--token-secret", "BRIDGE_TOKEN", "--name", "phone"],
    ["webhook", `${base}/down`, "--name", "broken"],
  ]) {
    const added = await daemon.cli(["notify", "add", ...args]);
    expect(added.exitCode, String(added.stderr)).toBe(0);
  }
  port = NativePort.open(daemon.home);
}, 60_000);

afterAll(async () => {
  await port?.close();
  await daemon?.dispose();
  receiver?.close();
});

test("notifyChannels lists each channel as vigil notify ls shows it, with no secret value", async () => {
  const reply = await ask({ type: "notifyChannels" });
  expect(reply.ok, reply.error).toBe(true);
  const byName = new Map(reply.result.map((channel: any) => [channel.name, channel]));
  expect([...byName.keys()].sort()).toEqual(["broken", "phone"]);
  expect(byName.get("phone")).toMatchObject({ kind: "ntfy", target: `${base} (path hidden)`, paused: false });
  const text = JSON.stringify(reply);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain("bridge-topic-secret");
});

test("notifyTest sends to the channel now and answers sent, or the channel's error", async () => {
  const sent = await ask({ type: "notifyTest", name: "phone" });
  expect(sent).toMatchObject({ ok: true, result: [{ name: "phone", ok: true, error: null }] });
  expect(hits).toContain(TOPIC);
  const failed = await ask({ type: "notifyTest", name: "broken" });
  expect(failed.ok).toBe(true);
  expect(failed.result).toEqual([{ name: "broken", ok: false, error: expect.stringContaining("500") }]);
});

test("notifyPause pauses and resumes the daemon's channel", async () => {
  const paused = await ask({ type: "notifyPause", name: "phone", paused: true });
  expect(paused).toMatchObject({ ok: true, result: { name: "phone", paused: true } });
  const ls = await daemon.cli(["notify", "ls", "--json"]);
  expect(JSON.parse(String(ls.stdout)).find((c: any) => c.name === "phone").paused).toBe(true);
  const resumed = await ask({ type: "notifyPause", name: "phone", paused: false });
  expect(resumed).toMatchObject({ ok: true, result: { name: "phone", paused: false } });
  expect((await daemon.api("GET", "/api/notify")).body.find((c: any) => c.name === "phone").paused).toBe(false);
});

test("bad input and an unknown channel are error frames that say what was expected; nothing changes", async () => {
  const badName = await ask({ type: "notifyTest", name: "../phone" });
  expect(badName).toMatchObject({ ok: false, error: expect.stringContaining("Expected a channel name") });
  const noFlag = await ask({ type: "notifyPause", name: "phone" });
  expect(noFlag.ok).toBe(false);
  expect(noFlag.error).toMatch(/^paused: /);
  const extra = await ask({ type: "notifyChannels", url: "http://x" });
  expect(extra.ok).toBe(false);
  const unknown = await ask({ type: "notifyPause", name: "nope", paused: true });
  expect(unknown).toMatchObject({
    ok: false,
    error: expect.stringContaining("Expected the name of a notification channel, got nope"),
  });
  const channels = (await daemon.api("GET", "/api/notify")).body;
  expect(channels.map((c: any) => [c.name, c.paused])).toEqual(
    expect.arrayContaining([
      ["phone", false],
      ["broken", false],
    ]),
  );
});
