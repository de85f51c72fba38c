/**
 * The daemon's side of the browser connection (design.md §1): `vigil native-host` connects to a
 * user-only unix socket in $VIGIL_HOME and the two exchange newline-delimited JSON. The daemon sends
 * host requests (`observe`, `tabs`) and "changed" pushes; the bridge forwards them as native frames
 * and sends the extension's replies back. The most recent bridge to say hello is "the browser".
 */
import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import {
  type HostPush,
  type HostReply,
  HostReplySchema,
  type HostRequest,
  type ObserveErrorCode,
  type WithoutId,
} from "../../../shared/schemas/native-messages.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { LineSplitter } from "../base/line-splitter.js";
import type { Logger } from "../base/log.js";

export class BrowserError extends Error {
  override name = "BrowserError";
  constructor(
    message: string,
    readonly code: ObserveErrorCode | "not_connected" | "timeout",
  ) {
    super(message);
  }
}

export const NOT_CONNECTED =
  "browser not connected: open the browser with the Vigil extension, and run `vigil install` once so it can reach this daemon";

type HostRequestBody = WithoutId<HostRequest>;

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** What probes and routes need: ask the connected browser something, or learn there is none. */
export interface BrowserRequester {
  readonly connected: boolean;
  request(body: HostRequestBody, options: { timeoutMs: number; signal?: AbortSignal }): Promise<unknown>;
}

export class BrowserLink implements BrowserRequester {
  #server: Server | null = null;
  #current: Socket | null = null;
  readonly #sockets = new Set<Socket>();
  readonly #pending = new Map<string, Pending>();
  #seq = 0;
  readonly #log: Logger | undefined;
  #changed = new Set<string | null>();
  #flush: NodeJS.Timeout | null = null;

  constructor(options: { log?: Logger } = {}) {
    this.#log = options.log;
  }

  get connected(): boolean {
    return this.#current !== null;
  }

  /** Listens on `path` (mode 0600), replacing a socket file a killed daemon left behind. */
  async listen(path: string): Promise<void> {
    rmSync(path, { force: true });
    const server = createServer((socket) => this.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    chmodSync(path, 0o600);
    this.#server = server;
  }

  close(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#server?.close();
    this.#server = null;
    if (this.#flush) clearTimeout(this.#flush);
  }

  request(body: HostRequestBody, options: { timeoutMs: number; signal?: AbortSignal }): Promise<unknown> {
    const socket = this.#current;
    if (!socket) return Promise.reject(new BrowserError(NOT_CONNECTED, "not_connected"));
    const id = `h${++this.#seq}`;
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(pending.timer);
        this.#pending.delete(id);
        options.signal?.removeEventListener("abort", aborted);
      };
      const aborted = () => {
        finish();
        reject(new BrowserError("the check was stopped", "timeout"));
      };
      const pending: Pending = {
        resolve: (result) => {
          finish();
          resolve(result);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
        timer: setTimeout(
          () =>
            pending.reject(new BrowserError(`the browser did not answer within ${options.timeoutMs} ms`, "timeout")),
          options.timeoutMs,
        ),
      };
      this.#pending.set(id, pending);
      options.signal?.addEventListener("abort", aborted, { once: true });
      socket.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  /**
   * Tells every connected browser a session changed — or, with null, the devices did (coalesced:
   * one push per session per 50 ms).
   */
  changed(sessionId: string | null): void {
    if (this.#sockets.size === 0) return;
    this.#changed.add(sessionId);
    this.#flush ??= setTimeout(() => {
      this.#flush = null;
      for (const sid of this.#changed)
        this.#broadcast(sid === null ? { type: "changed" } : { type: "changed", sessionId: sid });
      this.#changed.clear();
    }, 50);
  }

  #broadcast(push: HostPush): void {
    const line = `${JSON.stringify(push)}\n`;
    for (const socket of this.#sockets) socket.write(line);
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    // A line longer than any real reply is cut, fails to parse and is ignored.
    const lines = new LineSplitter((line) => this.#onLine(socket, line), 2 * 1024 * 1024);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => lines.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.#sockets.delete(socket);
      if (this.#current !== socket) return;
      this.#current = [...this.#sockets].at(-1) ?? null;
      this.#log?.info(this.#current ? "a browser disconnected; another is still connected" : "browser disconnected");
      // Requests sent through a closed bridge are never answered: fail them now.
      if (!this.#current) {
        for (const pending of this.#pending.values())
          pending.reject(new BrowserError("the browser disconnected before answering", "not_connected"));
      }
    });
  }

  #onLine(socket: Socket, line: string): void {
    if (line === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.#log?.warn("browser link: a line that is not JSON was ignored");
      return;
    }
    if ((message as { type?: unknown })?.type === "hello") {
      this.#current = socket;
      this.#log?.info("browser connected");
      return;
    }
    const reply = HostReplySchema.safeParse(message);
    if (!reply.success) {
      this.#log?.warn(`browser link: an unexpected message was ignored (${formatZodError(reply.error)})`);
      return;
    }
    this.#settle(reply.data);
  }

  #settle(reply: HostReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return; // answered after its timeout
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new BrowserError(reply.error, reply.code ?? "failed"));
  }
}
