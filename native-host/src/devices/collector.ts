/**
 * One device's collector (design.md §5): a held-open OpenSSH master connection (ControlMaster,
 * its socket in $VIGIL_HOME/tmp), reconnected with backoff when it drops, and over it a poll every
 * second that runs the fixed LIST script, stores each signal durably (remembering the file's name
 * in the same transaction), then runs ACT to delete it (or park it under bad/ with a reason).
 * A name already remembered is deleted without being applied again: a crash between storing and
 * deleting never applies a file twice. ssh always gets BatchMode=yes (never a prompt) and
 * StrictHostKeyChecking=yes (an unknown or changed host key is an error on the device, never
 * accepted): the host must be in the user's known_hosts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { SignalBody } from "../../../shared/schemas/inputs.js";
import { type Logger, toError } from "../base/log.js";
import type { SignalOrigin, SignalOutcome } from "../core/waitpoints.js";
import { isTaken, parseSignalFile } from "../intake/spool.js";
import type { DeviceRow, DeviceState } from "../store/devices.js";
import type { Store } from "../store/store.js";
import type { SignalVia } from "../store/waitpoints.js";
import { ACT_SCRIPT, type Action, encodeActions, LIST_SCRIPT, parseListing, remoteCommand } from "./listing.js";

export interface CollectorDeps {
  store: Store;
  log: Logger;
  now: () => number;
  signal: (body: SignalBody, via: SignalVia, origin: SignalOrigin) => SignalOutcome;
  /** Where the master's control socket lives ($VIGIL_HOME/tmp). */
  controlDir: string;
  /** The ssh program (default `ssh` on PATH: the user's own client, config and keys). */
  ssh?: string;
  pollMs?: number;
  /** The devices' states or collections changed (the side panel refreshes). */
  changed?: () => void;
}

const EXEC_TIMEOUT_MS = 20_000;
const READY_TIMEOUT_MS = 20_000;
const MAX_BACKOFF_MS = 15_000;
const MAX_OUTPUT = 8 * 1024 * 1024;

/** What ssh's stderr says is wrong that retrying will not fix alone (else the device is offline). */
const CONFIG_ERROR =
  /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|Permission denied|Could not resolve|Bad configuration|not accessible|No such file/i;

export class Collector {
  readonly #name: string;
  readonly #control: string;
  #master: ChildProcess | null = null;
  #children = new Set<ChildProcess>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;
  #failures = 0;

  constructor(
    private readonly deps: CollectorDeps,
    private readonly device: DeviceRow,
  ) {
    this.#name = device.name;
    const tag = createHash("sha256").update(device.name).digest("hex").slice(0, 16);
    this.#control = join(deps.controlDir, `ssh-${tag}`);
  }

  start(): void {
    // A master left by a daemon that was killed holds the socket: end it, then connect anew.
    void this.#run(["-O", "exit", "--", this.#target()], "", 5000)
      .catch(() => undefined)
      .then(() => this.#connect());
  }

  /** Closes the connection now (device removed, daemon stopping). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#master?.kill("SIGTERM");
    for (const child of this.#children) child.kill("SIGTERM");
    rmSync(this.#control, { force: true });
  }

  #base(): string[] {
    const d = this.device;
    return [
      "-o",
      "BatchMode=yes",
      "-o",
      "StrictHostKeyChecking=yes",
      "-o",
      `ControlPath=${this.#control}`,
      ...(d.port !== null ? ["-p", String(d.port)] : []),
      ...(d.identity !== null ? ["-i", d.identity] : []),
    ];
  }

  #target(): string {
    return this.device.user ? `${this.device.user}@${this.device.host}` : this.device.host;
  }

  #setState(state: DeviceState, lastError: string | null): void {
    const current = this.deps.store.devices.byName(this.#name);
    if (!current || this.#stopped) return;
    const error = lastError ?? current.lastError;
    this.deps.store.devices.setState(this.#name, state, error);
    if (current.state !== state || current.lastError !== error) this.deps.changed?.();
  }

  #connect(): void {
    if (this.#stopped) return;
    rmSync(this.#control, { force: true });
    const args = [
      ...this.#base(),
      "-o",
      "ControlMaster=yes",
      "-o",
      "ControlPersist=no",
      "-o",
      "ServerAliveInterval=5",
      "-o",
      "ServerAliveCountMax=2",
      "-o",
      "ConnectTimeout=10",
      "-N",
      "--",
      this.#target(),
    ];
    const master = spawn(this.deps.ssh ?? "ssh", args, { stdio: ["ignore", "ignore", "pipe"] });
    this.#master = master;
    let stderr = "";
    master.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-4096);
    });
    let exited = false;
    const onGone = (why: string) => {
      if (exited) return;
      exited = true;
      if (this.#master === master) this.#master = null;
      if (this.#stopped) return;
      const message = lastLine(stderr) ?? why;
      const changed = /REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr) ? "host key changed: " : "";
      this.#setState(CONFIG_ERROR.test(stderr) ? "error" : "offline", `${changed}${message}`);
      this.deps.log.warn(`device ${this.#name}: connection closed: ${changed}${message}`);
      this.#retry();
    };
    master.on("error", (error) => onGone(`ssh: ${error.message}`));
    master.on("exit", (code, signal) => onGone(`ssh exited ${code ?? signal}`));
    void this.#whenReady(master).then((ready) => {
      if (!ready || this.#stopped || exited) return;
      this.#failures = 0;
      this.#setState("connected", null);
      this.deps.log.info(`device ${this.#name}: connected to ${this.#target()}`);
      this.#schedule(0);
    });
  }

  /** Waits until the master answers `-O check`, or exits. */
  async #whenReady(master: ChildProcess): Promise<boolean> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!this.#stopped && master.exitCode === null && master.signalCode === null && Date.now() < deadline) {
      const check = await this.#run(["-O", "check", "--", this.#target()], "", 5000).catch(() => null);
      if (check?.code === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  #retry(): void {
    if (this.#stopped) return;
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.#failures);
    this.#failures += 1;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#connect(), delay);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#round(), delayMs);
  }

  async #round(): Promise<void> {
    const master = this.#master;
    if (this.#stopped || !master) return;
    try {
      await this.collect();
    } catch (error) {
      if (this.#master === master && !this.#stopped) {
        const message = toError(error).message;
        this.deps.log.warn(`device ${this.#name}: collection failed: ${message}`);
        this.#setState("connected", message);
      }
    }
    // A dropped master reconnects by itself (its exit handler); a live one polls on.
    if (this.#master === master) this.#schedule(this.deps.pollMs ?? 1000);
  }

  /** One round: list, store, then delete or park on the device. Returns the files collected. */
  async collect(): Promise<number> {
    const listed = await this.#exec(LIST_SCRIPT, "");
    const { entries, unsafe } = parseListing(listed);
    if (unsafe > 0) this.deps.log.warn(`device ${this.#name}: left ${unsafe} file(s) with unusual names alone`);
    const actions: Action[] = [];
    let collected = 0;
    for (const entry of entries) {
      if (entry.kind === "refused") {
        actions.push({ op: "bad", name: entry.name, reason: entry.reason });
        continue;
      }
      const action = this.#take(entry.name, entry.bytes);
      if (action.op === "rm") collected += 1;
      actions.push(action);
    }
    if (actions.length > 0) {
      const done = await this.#exec(ACT_SCRIPT, encodeActions(actions));
      if (done.toString("utf8") !== "DONE\n") throw new Error("The device did not finish removing collected files");
    }
    this.deps.store.devices.setCollectedAt(this.#name, this.deps.now());
    if (actions.length > 0) this.deps.changed?.();
    return collected;
  }

  /** Stores one file's signal (or finds it already stored): what to do with the file on the device. */
  #take(name: string, bytes: Buffer): Action {
    const { store, now } = this.deps;
    if (store.devices.isCollected(this.#name, name)) return { op: "rm", name };
    const parsed = parseSignalFile(bytes.toString("utf8"));
    if ("refused" in parsed) return { op: "bad", name, reason: parsed.refused };
    const outcome = this.deps.signal({ ...parsed.body, key: `device:${this.#name}:${name}` }, "device", {
      device: this.#name,
      inTx: (result) => {
        if (isTaken(result)) store.devices.markCollected(this.#name, name, now());
      },
    });
    if (isTaken(outcome)) {
      this.deps.log.info(`device ${this.#name}: collected ${name} (${outcome.verdict})`);
      return { op: "rm", name };
    }
    return { op: "bad", name, reason: `${outcome.verdict}: ${String(outcome.body.error)}` };
  }

  /** Runs a fixed script over the master connection; its stdout, or an error naming what failed. */
  async #exec(script: string, input: string): Promise<Buffer> {
    const result = await this.#run(["-o", "ControlMaster=no", "--", this.#target(), remoteCommand(script)], input);
    if (result.code !== 0) throw new Error(lastLine(result.stderr) ?? `ssh exited ${result.code}`);
    return result.stdout;
  }

  #run(args: string[], input: string, timeoutMs = EXEC_TIMEOUT_MS) {
    return new Promise<{ code: number | null; stdout: Buffer; stderr: string }>((resolve, reject) => {
      const child = spawn(this.deps.ssh ?? "ssh", [...this.#base(), ...args], { stdio: ["pipe", "pipe", "pipe"] });
      this.#children.add(child);
      const out: Buffer[] = [];
      let size = 0;
      let stderr = "";
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      child.stdout.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_OUTPUT) child.kill("SIGKILL");
        else out.push(chunk);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-4096);
      });
      child.stdin.on("error", () => undefined);
      child.stdin.end(input);
      child.on("error", (error) => {
        clearTimeout(timer);
        this.#children.delete(child);
        reject(error);
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        this.#children.delete(child);
        resolve({ code, stdout: Buffer.concat(out), stderr });
      });
    });
  }
}

function lastLine(text: string): string | undefined {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("Warning: Permanently added"))
    .at(-1);
}
