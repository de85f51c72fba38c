// Types of ssh-device.js (plain JS so that bench/device-latency.js can import it too).
import type { ChildProcess } from "node:child_process";
import type { Result } from "execa";

export const SSHD: string;
export const INOTIFYWAIT: string;
export const DEVICE_USER: string;
export const PLAIN_USER: string;
export function homeOf(user: string): string;
export function spoolOf(user: string): string;
export function ensureDeviceUsers(): void;
export function freePort(): Promise<number>;
export function listening(port: number): Promise<boolean>;
export function descendants(pid: number): number[];
export function processesOf(user: string, comm: string): number[];

export class SshDevice {
  static create(): Promise<SshDevice>;
  readonly dir: string;
  readonly port: number;
  readonly clientKey: string;
  readonly binDir: string;
  readonly hangFlag: string;
  readonly config: string;
  readonly hostKey: string;
  child: ChildProcess | null;
  target(user: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  overSsh(user: string, line: string): Promise<Result>;
  onDevice(user: string, line: string): Promise<Result>;
  setHang(on: boolean): void;
  dispose(): Promise<void>;
}
