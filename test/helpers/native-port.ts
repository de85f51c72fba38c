/**
 * Speaks to the real `vigil native-host` the way the browser does: framed JSON on its stdin and
 * stdout. Tests use it as a stand-in browser where a real one would only add time.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { encodeFrame, FrameDecoder } from "../../native-host/src/native/framing.js";
import { MAX_BROWSER_TO_HOST_BYTES } from "../../shared/schemas/native-messages.js";
import { BIN, waitFor } from "./daemon.js";

export class NativePort {
  readonly frames: any[] = [];
  readonly decoder = new FrameDecoder(2 * 1024 * 1024);
  rawBytes = 0;
  stderr = "";
  /** Answers host requests (`observe`, `tabs`) when set; the returned object is sent as is. */
  answer: ((request: any) => unknown) | null = null;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on("data", (chunk: Buffer) => {
      this.rawBytes += chunk.length;
      for (const frame of this.decoder.push(chunk)) {
        const message = frame.ok ? frame.message : { undecodable: frame.error };
        this.frames.push(message);
        const request = message as { id?: unknown; type?: unknown };
        if (this.answer && typeof request.id === "string" && request.id.startsWith("h") && request.type) {
          this.send(this.answer(request));
        }
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
  }

  static open(home: string, env: Record<string, string> = {}): NativePort {
    const child = spawn(
      process.execPath,
      [BIN, "--home", home, "native-host", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"],
      { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } },
    );
    return new NativePort(child);
  }

  /**
   * A stand-in browser with one tab (id 7) on `page` whose observed element reads "Running", connected
   * once the daemon says so.
   */
  static async browserOn(
    daemon: { home: string; api(method: string, path: string): Promise<{ body: any }> },
    page: string,
  ) {
    const port = NativePort.open(daemon.home);
    port.answer = (request) =>
      request.type === "tabs"
        ? { id: request.id, ok: true, result: [{ tabId: 7, url: page, title: "CI", active: true, windowId: 1 }] }
        : { id: request.id, ok: true, result: { text: "Running", exists: true, url: page, title: "CI" } };
    await waitFor(async () => (await daemon.api("GET", "/api/status")).body.browserConnected, { what: "the bridge" });
    return port;
  }

  send(message: unknown): void {
    this.child.stdin.write(encodeFrame(message, MAX_BROWSER_TO_HOST_BYTES));
  }

  /** The reply to the browser's request `id`. */
  reply(id: unknown): Promise<any> {
    return waitFor(() => this.frames.find((frame) => frame.id === id && "ok" in frame), { what: `reply ${id}` });
  }

  /** The number of pushes of `type` so far, and a wait for the next one matching `match`. */
  pushes(type: string): any[] {
    return this.frames.filter((frame) => frame.type === type && frame.id === undefined);
  }

  waitForPush(type: string, match: (push: any) => boolean, after = 0): Promise<any> {
    return waitFor(() => this.pushes(type).slice(after).find(match), { what: `a ${type} push` });
  }

  async close(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    return exited;
  }
}
