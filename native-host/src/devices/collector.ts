/**
 * One device's collector (design.md §5): a held-open OpenSSH master connection (ControlMaster,
 * its socket in $VIGIL_HOME/tmp), reconnected with backoff when it drops, and over it collection
 * rounds (round.ts) that never overlap: a trigger during one runs another after it.
 *
 * When rounds run: where the device has `inotifywait`, a second session (watcher.ts) runs it on the
 * spool and each line it prints starts a round at once, with a sweep every few seconds as a safety
 * net (VIGIL_DEVICE_SWEEP_MS); elsewhere a poll every second. However often it is triggered, a
 * round starts at least ROUND_GAP_MS (200 ms) after the previous one ended (round-gap.ts). A round
 * that fails or hangs (each script has EXEC_TIMEOUT_MS) puts the device in `error` saying what went
 * wrong, until a round succeeds again.
 *
 * ssh always gets BatchMode=yes (never a prompt) and StrictHostKeyChecking=yes (an unknown or
 * changed host key is an error on the device, never accepted): the host must be in known_hosts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { envConfig } from "../base/config.js";
import { toError } from "../base/log.js";
import type { DeviceRow, DeviceState } from "../store/devices.js";
import { remoteCommand, WATCH_SCRIPT } from "./listing.js";
import { collectRound, type RoundDeps } from "./round.js";
import { roundDelay } from "./round-gap.js";
import { EXEC_TIMEOUT_MS, lastLine, runSsh, sshOptions, sshTarget } from "./ssh.js";
import { type SpoolWatch, watchSpool } from "./watcher.js";

export interface CollectorDeps extends Omit<RoundDeps, "device" | "deviceId" | "exec"> {
  /** Where the master's control socket lives ($VIGIL_HOME/tmp). */
  controlDir: string;
  /** The ssh program (default `ssh` on PATH: the user's own client, config and keys). */
  ssh?: string;
  /** The poll without inotifywait (default 1 s). */
  pollMs?: number;
  /** The safety-net sweep while inotifywait watches (default VIGIL_DEVICE_SWEEP_MS, else 5 s; 0: none). */
  sweepMs?: number;
  /** The devices' states or collections changed (the side panel refreshes). */
  changed?: () => void;
}

/** How new files are noticed on a connected device. */
export type Collection = "inotify" | "poll";

export const POLL_MS = 1000;
export const SWEEP_MS = 5000;
const READY_TIMEOUT_MS = 20_000;
const MAX_BACKOFF_MS = 15_000;
const MAX_WATCH_BACKOFF_MS = 60_000;

/** What ssh's stderr says is wrong that retrying will not fix alone (else the device is offline). */
const CONFIG_ERROR =
  /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|Permission denied|Could not resolve|Bad configuration|not accessible|No such file/i;

export class Collector {
  readonly #name: string;
  readonly #control: string;
  readonly #program: string;
  readonly #pollMs: number;
  readonly #sweepMs: number;
  #master: ChildProcess | null = null;
  #connected = false;
  #children = new Set<ChildProcess>();
  #connectTimer: NodeJS.Timeout | null = null;
  #roundTimer: NodeJS.Timeout | null = null;
  #watchTimer: NodeJS.Timeout | null = null;
  #watch: SpoolWatch | null = null;
  #watching = false;
  #noInotify = false;
  #busy = false;
  #again = false;
  #lastRoundEnd: number | null = null;
  #stopped = false;
  #failures = 0;
  #watchFailures = 0;
  #state: DeviceState | null = null;
  /** The state writes, one after another in the order they were asked for. */
  #stateWrites: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: CollectorDeps,
    private readonly device: DeviceRow,
  ) {
    this.#name = device.name;
    const tag = createHash("sha256").update(device.name).digest("hex").slice(0, 16);
    this.#control = join(deps.controlDir, `ssh-${tag}`);
    this.#program = deps.ssh ?? "ssh";
    this.#pollMs = deps.pollMs ?? POLL_MS;
    this.#sweepMs = deps.sweepMs ?? envConfig().VIGIL_DEVICE_SWEEP_MS ?? SWEEP_MS;
  }

  /** The device's id (a device removed and added again under its name has a new one). */
  get deviceId(): string {
    return this.device.id;
  }

  /** How new files are noticed now: null while not connected. */
  get collection(): Collection | null {
    if (!this.#connected) return null;
    return this.#watching ? "inotify" : "poll";
  }

  start(): void {
    // A master left by a daemon that was killed holds the socket: end it, then connect anew.
    void this.#ssh(["-O", "exit", "--", sshTarget(this.device)], "", 5000)
      .catch(() => undefined)
      .then(() => this.#connect());
  }

  /** Closes the connection now (device removed, daemon stopping). */
  stop(): void {
    this.#stopped = true;
    for (const timer of [this.#connectTimer, this.#roundTimer, this.#watchTimer]) if (timer) clearTimeout(timer);
    this.#watch?.stop();
    this.#master?.kill("SIGTERM");
    for (const child of this.#children) child.kill("SIGTERM");
    rmSync(this.#control, { force: true });
  }

  #ssh(args: string[], input: string, timeoutMs = EXEC_TIMEOUT_MS) {
    return runSsh(
      this.#program,
      [...sshOptions(this.device, this.#control), ...args],
      input,
      timeoutMs,
      this.#children,
    );
  }

  /**
   * Records the state (and an error, kept as history once connected again); tells the panel on a
   * change. Writes run in the order asked for, each after the last; a failed one is logged, never thrown.
   */
  #setState(state: DeviceState, lastError: string | null): Promise<void> {
    this.#stateWrites = this.#stateWrites
      .then(() => this.#writeState(state, lastError))
      .catch((error: unknown) =>
        this.deps.log.warn(`device ${this.#name}: recording its state failed: ${toError(error).message}`),
      );
    return this.#stateWrites;
  }

  async #writeState(state: DeviceState, lastError: string | null): Promise<void> {
    if (this.#stopped || (state === this.#state && lastError === null)) return;
    const { devices } = this.deps.store.tables;
    const current = await devices.byName(this.#name);
    if (current?.id !== this.device.id) return; // removed (and perhaps added again: another device)
    const error = lastError ?? current.lastError;
    await devices.setState(this.device.id, state, error);
    this.#state = state;
    if (current.state !== state || current.lastError !== error) this.deps.changed?.();
  }

  #connect(): void {
    if (this.#stopped) return;
    rmSync(this.#control, { force: true });
    const args = [
      ...sshOptions(this.device, this.#control),
      ...["-o", "ControlMaster=yes", "-o", "ControlPersist=no", "-o", "ServerAliveInterval=5"],
      ...["-o", "ServerAliveCountMax=2", "-o", "ConnectTimeout=10", "-N", "--", sshTarget(this.device)],
    ];
    const master = spawn(this.#program, args, { stdio: ["ignore", "ignore", "pipe"] });
    this.#master = master;
    let stderr = "";
    master.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-4096);
    });
    let exited = false;
    const onGone = (why: string) => {
      if (exited) return;
      exited = true;
      if (this.#master !== master) return;
      this.#master = null;
      this.#connected = false;
      this.#endWatch();
      if (this.#stopped) return;
      const message = lastLine(stderr) ?? why;
      const changed = /REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr) ? "host key changed: " : "";
      void this.#setState(CONFIG_ERROR.test(stderr) ? "error" : "offline", `${changed}${message}`);
      this.deps.log.warn(`device ${this.#name}: connection closed: ${changed}${message}`);
      this.#retry();
    };
    master.on("error", (error) => onGone(`ssh: ${error.message}`));
    master.on("exit", (code, signal) => onGone(`ssh exited ${code ?? signal}`));
    void this.#whenReady(master).then((ready) => {
      if (this.#stopped || exited) return;
      if (!ready) {
        master.kill("SIGTERM"); // never answered: its exit reconnects
        return;
      }
      this.#failures = 0;
      this.#connected = true;
      this.#noInotify = false;
      void this.#setState("connected", null);
      this.deps.log.info(`device ${this.#name}: connected to ${sshTarget(this.device)}`);
      this.#startWatch(master);
      this.#kick();
    });
  }

  /** Waits until the master answers `-O check`, or exits. */
  async #whenReady(master: ChildProcess): Promise<boolean> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!this.#stopped && master.exitCode === null && master.signalCode === null && Date.now() < deadline) {
      const check = await this.#ssh(["-O", "check", "--", sshTarget(this.device)], "", 5000).catch(() => null);
      if (check?.code === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  }

  #retry(): void {
    if (this.#stopped) return;
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.#failures);
    this.#failures += 1;
    if (this.#roundTimer) clearTimeout(this.#roundTimer);
    if (this.#connectTimer) clearTimeout(this.#connectTimer);
    this.#connectTimer = setTimeout(() => this.#connect(), delay);
  }

  /** Runs inotifywait on the device when it has one; its lines start rounds. */
  #startWatch(master: ChildProcess): void {
    if (this.#stopped || this.#master !== master || this.#noInotify || this.#watch) return;
    const args = [
      ...sshOptions(this.device, this.#control),
      ...["-o", "ControlMaster=no", "--", sshTarget(this.device), remoteCommand(WATCH_SCRIPT)],
    ];
    const watch = watchSpool(this.#program, args, {
      line: () => {
        if (!this.#watching && this.#watch === watch) {
          this.#watching = true;
          this.#watchFailures = 0;
          this.deps.log.info(`device ${this.#name}: watching its spool with inotifywait`);
          this.deps.changed?.();
        }
        this.#kick();
      },
      end: (noInotify, why) => {
        if (this.#watch !== watch) return;
        const was = this.#watching;
        this.#watch = null;
        this.#watching = false;
        if (this.#stopped || this.#master !== master) return;
        if (noInotify) {
          this.#noInotify = true;
          this.deps.log.info(`device ${this.#name}: no inotifywait there, polling every ${this.#pollMs} ms`);
        } else {
          const delay = Math.min(MAX_WATCH_BACKOFF_MS, 2000 * 2 ** this.#watchFailures);
          this.#watchFailures += 1;
          this.deps.log.warn(
            `device ${this.#name}: the inotify watch ended (${why}); polling, watching again in ${delay} ms`,
          );
          this.#watchTimer = setTimeout(() => this.#startWatch(master), delay);
        }
        if (was) this.deps.changed?.();
        this.#kick(); // polling from now on: anything the watch missed is collected
      },
    });
    this.#watch = watch;
  }

  #endWatch(): void {
    if (this.#watchTimer) clearTimeout(this.#watchTimer);
    this.#watchTimer = null;
    const had = this.#watching;
    this.#watch?.stop();
    this.#watch = null;
    this.#watching = false;
    if (had && !this.#stopped) this.deps.changed?.();
  }

  /** A round now, or once the gap after the last one (round-gap.ts) has passed, or after the one running. */
  #kick(): void {
    if (this.#stopped || !this.#connected) return;
    if (this.#busy) this.#again = true;
    else this.#schedule(0);
  }

  /** The next round in `wantedInMs`, never sooner than ROUND_GAP_MS after the last one ended. */
  #schedule(wantedInMs: number): void {
    if (this.#roundTimer) clearTimeout(this.#roundTimer);
    const delayMs = roundDelay(this.#lastRoundEnd, performance.now(), wantedInMs);
    this.#roundTimer = setTimeout(() => {
      this.#roundTimer = null;
      void this.#round();
    }, delayMs);
  }

  async #round(): Promise<void> {
    const master = this.#master;
    if (this.#stopped || !master || !this.#connected || this.#busy) return;
    this.#busy = true;
    this.#again = false;
    try {
      await this.collect();
      if (this.#master === master) await this.#setState("connected", null);
    } catch (error) {
      if (this.#master === master && !this.#stopped) {
        const message = `collection failed: ${toError(error).message}`;
        this.deps.log.warn(`device ${this.#name}: ${message}`);
        await this.#setState("error", message);
      }
    } finally {
      this.#busy = false;
      this.#lastRoundEnd = performance.now();
    }
    // A dropped master reconnects by itself (its exit handler); a live one goes on.
    if (this.#stopped || this.#master !== master || !this.#connected) return;
    if (this.#again) return this.#schedule(0);
    const every = this.#watching ? this.#sweepMs : this.#pollMs;
    if (every > 0) this.#schedule(every);
  }

  /** One round now (see round.ts); the actions it took on the device. */
  async collect(): Promise<number> {
    const acted = await collectRound({
      ...this.deps,
      device: this.#name,
      deviceId: this.device.id,
      exec: (doing, script, input) => this.#exec(doing, script, input),
    });
    if (acted > 0) this.deps.changed?.(); // files collected: the panel's counts moved
    return acted;
  }

  /** Runs a fixed script over the master connection; its stdout, or an error naming what failed. */
  async #exec(doing: string, script: string, input: string): Promise<Buffer> {
    const result = await this.#ssh(
      ["-o", "ControlMaster=no", "--", sshTarget(this.device), remoteCommand(script)],
      input,
    );
    if (result.killed === "timeout")
      throw new Error(`the device did not finish ${doing} within ${EXEC_TIMEOUT_MS / 1000} s`);
    if (result.killed === "output") throw new Error(`the device printed more than expected while ${doing}`);
    if (result.code !== 0) throw new Error(lastLine(result.stderr) ?? `ssh exited ${result.code}`);
    return result.stdout;
  }
}
