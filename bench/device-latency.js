// Device drop → wake (design.md §5, §10; issue #16): a job on another machine runs its waitpoint's
// exact how_to_signal.shell line over SSH, and we time from the file's rename on the device to the
// wake: recorded (its createdAt) and handed to an inbox long-poll claim (delivery start). 50 drops
// on a device with inotifywait, 50 on one without (the 1 s poll only), each against the seed's 30 s
// sweep. The device is a real sshd on 127.0.0.1 logged into as a separate user
// (test/devices/ssh-device.js, shared with the device tests): needs root, sshd and inotifywait.
import { existsSync, readdirSync } from "node:fs";
import {
  DEVICE_USER,
  ensureDeviceUsers,
  INOTIFYWAIT,
  PLAIN_USER,
  SSHD,
  SshDevice,
  spoolOf,
} from "../test/devices/ssh-device.js";
import { Daemon, fmt, quantile, summary, waitUntil } from "./lib.js";

const N = Number(process.env.BENCH_DEVICE_DROPS ?? 50);
const SWEEP_MS = 30_000; // the seed's sweep: a drop waits 15 s on average, 30 s at worst

const nowMs = () => performance.timeOrigin + performance.now();

async function addDevice(daemon, ssh, name, user, collection) {
  const added = await daemon.api("POST", "/api/devices", {
    name,
    ssh: ssh.target(user),
    port: ssh.port,
    identity: ssh.clientKey,
  });
  if (added.status !== 201) throw new Error(`adding ${name}: ${JSON.stringify(added.body)}`);
  await waitUntil(async () => {
    const list = (await daemon.api("GET", "/api/devices")).body;
    return list.find((d) => d.name === name && d.state === "connected" && d.collection === collection);
  });
}

/** N drops on `device` as `user`: drop → wake recorded, drop → claim answered (ms). */
async function drops(daemon, ssh, device, user) {
  const session = `bench-${device}`;
  await daemon.api("POST", "/api/sessions", { id: session });
  const recorded = [];
  const claimed = [];
  for (let i = 0; i < N; i++) {
    const w = (
      await daemon.api("POST", `/api/sessions/${session}/waitpoints`, { label: `drop ${i}`, intent: "bench", device })
    ).body;
    const claim = daemon
      .api("POST", `/api/sessions/${session}/wakes/claim?wait=60`)
      .then((reply) => ({ reply, at: nowMs() }));
    // A random pause (also: the claim is waiting): back-to-back drops would each land at the same
    // point of the 1 s poll and measure that point, not the poll.
    await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 1000));
    // The exact line, then the device's clock right after its rename (the same clock as ours).
    const run = await ssh.overSsh(user, `${w.how_to_signal.shell} && date +%s%N`);
    if (run.exitCode !== 0) throw new Error(`the shell line failed on the device: ${run.stderr}`);
    const droppedAt = Number(BigInt(run.stdout.trim()) / 1000n) / 1000;
    const { reply, at } = await claim;
    const wake = reply.body.wakes[0];
    if (reply.body.wakes.length !== 1 || !wake.monitors.includes(w.id)) throw new Error("expected this drop's wake");
    recorded.push(Date.parse(wake.createdAt) - droppedAt);
    claimed.push(at - droppedAt);
  }
  // A wake can come before its file is removed: let the last removal finish before the daemon stops.
  await waitUntil(async () => !readdirSync(spoolOf(user)).some((name) => name.endsWith(".json")));
  return { recorded, claimed };
}

function report(label, { recorded, claimed }) {
  const median = quantile(claimed, 0.5);
  console.log(`device drop → wake recorded, ${label}: ${summary(recorded)}`);
  console.log(
    `device drop → delivery start (inbox long-poll claim), ${label}: ${summary(claimed)} (the seed's ${SWEEP_MS / 1000} s sweep: ${fmt(SWEEP_MS / 2)} on average, ${fmt(SWEEP_MS)} at worst, ${(SWEEP_MS / 2 / median).toFixed(0)}× this median)`,
  );
}

export async function run() {
  for (const [name, path] of [
    ["sshd", SSHD],
    ["inotifywait", INOTIFYWAIT],
  ]) {
    if (!existsSync(path)) throw new Error(`needs ${name}: apt-get install openssh-server inotify-tools`);
  }
  ensureDeviceUsers();
  const ssh = await SshDevice.create();
  await ssh.start();
  const daemon = await new Daemon(undefined, { PATH: `${ssh.binDir}:${process.env.PATH}` }).start();
  try {
    await addDevice(daemon, ssh, "watched", DEVICE_USER, "inotify");
    await addDevice(daemon, ssh, "polled", PLAIN_USER, "poll");
    report("inotifywait on the device", await drops(daemon, ssh, "watched", DEVICE_USER));
    report("no inotifywait (1 s poll)", await drops(daemon, ssh, "polled", PLAIN_USER));
  } finally {
    await daemon.dispose();
    await ssh.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
