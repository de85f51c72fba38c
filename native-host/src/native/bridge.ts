/**
 * `vigil native-host`: what the browser launches through the installed manifest (design.md §1). It
 * speaks the browser's framing on stdin/stdout — nothing else is ever written to stdout — and
 *  - relays each typed side-panel request to the daemon's API (started, detached, when none runs);
 *  - holds a link to the daemon's user-only socket, forwarding the daemon's requests (`observe`,
 *    `tabs`) and "changed" pushes to the browser and the browser's replies back;
 *  - tells the browser when the daemon goes away or comes back, reconnecting on its own.
 * Malformed, oversized or unknown frames get an error reply; the bridge exits when the browser
 * closes the port.
 */
import { connect, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import {
  type HostPush,
  HostReplySchema,
  MAX_BROWSER_TO_HOST_BYTES,
  MAX_HOST_TO_BROWSER_BYTES,
  type NativeReply,
  type NativeRequest,
  NativeRequestSchema,
} from "../../../shared/schemas/native-messages.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { ApiClient } from "../api/client.js";
import { LineSplitter } from "../base/line-splitter.js";
import { homePaths } from "../base/paths.js";
import { ensureDaemon } from "../daemon-launch.js";
import { encodeFrame, FrameDecoder, FrameTooLargeError } from "./framing.js";

type Handlers = { [T in NativeRequest["type"]]: (request: Extract<NativeRequest, { type: T }>) => Promise<unknown> };

function handlers(home: string): Handlers {
  // A fresh client per request: a restarted daemon may listen on another port.
  const api = () => new ApiClient(home);
  return {
    ping: async () => ({ pong: true }),
    status: () => api().call("status"),
    /** Every monitor and waitpoint, grouped by session, a page at a time (replies stay under 1 MB). */
    list: ({ offset, limit, filter, session, kind, device, host, q }) =>
      api().call("panel", { query: { offset, limit, filter, session, kind, device, host, q } }),
    retry: ({ sessionId, wakeId }) => api().call("retryWake", { params: { sid: sessionId, wid: wakeId } }),
    dismiss: ({ sessionId, wakeId }) => api().call("dismissWake", { params: { sid: sessionId, wid: wakeId } }),
    clearEnded: ({ sessionId }) => api().call("clearEnded", { params: { sid: sessionId } }),
    control: ({ sessionId, monitorId, action }) =>
      api().call("controlMonitor", { params: { sid: sessionId, mid: monitorId }, body: { action } }),
    checks: ({ sessionId, monitorId }) => api().call("monitorChecks", { params: { sid: sessionId, mid: monitorId } }),
    waitpoint: ({ sessionId, waitpointId }) =>
      api().call("getWaitpoint", { params: { sid: sessionId, wid: waitpointId } }),
    notifyChannels: () => api().call("listNotify"),
    notifyTest: ({ name }) => api().call("testNotify", { body: { name } }),
    notifyPause: ({ name, paused }) => api().call("updateNotify", { params: { name }, body: { paused } }),
  };
}

/** Keeps one connection to the daemon's browser socket, reconnecting with backoff while the bridge lives. */
class DaemonLink {
  #socket: Socket | null = null;
  #stopped = false;
  #delayMs = 250;
  #timer: NodeJS.Timeout | null = null;
  #connected = false;

  constructor(
    private readonly path: string,
    private readonly origin: string,
    private readonly toBrowser: (message: unknown) => void,
  ) {}

  start(): void {
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#socket?.destroy();
  }

  /** A reply from the browser to one of the daemon's requests. */
  send(message: unknown): void {
    this.#socket?.write(`${JSON.stringify(message)}\n`);
  }

  #connect(): void {
    const socket = connect(this.path);
    this.#socket = socket;
    socket.setEncoding("utf8");
    const lines = new LineSplitter((line) => this.#fromDaemon(line), 2 * 1024 * 1024);
    socket.on("connect", () => {
      this.#delayMs = 250;
      this.#connected = true;
      socket.write(`${JSON.stringify({ type: "hello", origin: this.origin })}\n`);
      this.#push({ type: "daemon", connected: true });
    });
    socket.on("data", (chunk: string) => lines.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      if (this.#socket === socket) this.#socket = null;
      if (this.#connected) {
        this.#connected = false;
        this.#push({
          type: "daemon",
          connected: false,
          error: "The Vigil daemon stopped. Start it again with: vigil serve",
        });
      }
      if (this.#stopped) return;
      this.#timer = setTimeout(() => this.#connect(), this.#delayMs);
      this.#delayMs = Math.min(this.#delayMs * 2, 2000);
    });
  }

  #fromDaemon(line: string): void {
    if (line === "") return;
    try {
      this.toBrowser(JSON.parse(line));
    } catch {
      // Cut or garbled: the daemon never sends such lines; nothing to forward.
    }
  }

  #push(push: HostPush): void {
    this.toBrowser(push);
  }
}

export async function runNativeHost(options: {
  home: string;
  origin?: string;
  stdin?: Readable;
  stdout?: Writable;
}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = (message: string) => process.stderr.write(`vigil native-host: ${message}\n`);
  const table = handlers(options.home);

  const write = (message: unknown, id: string | number | null) => {
    try {
      stdout.write(encodeFrame(message, MAX_HOST_TO_BROWSER_BYTES));
    } catch (error) {
      if (!(error instanceof FrameTooLargeError)) throw error;
      stdout.write(
        encodeFrame(
          { id, ok: false, error: `Reply too large (${error.message}): ask for a smaller page` },
          MAX_HOST_TO_BROWSER_BYTES,
        ),
      );
    }
  };
  const send = (reply: NativeReply) => write(reply, reply.id);

  const link = new DaemonLink(homePaths(options.home).browserSocket, options.origin ?? "", (message) =>
    write(message, null),
  );
  try {
    await ensureDaemon(options.home);
  } catch (error) {
    log((error as Error).message);
  }
  link.start();

  const handle = async (message: unknown) => {
    const id = (message as { id?: unknown })?.id;
    const replyId = typeof id === "string" || typeof id === "number" ? id : null;
    // The browser answering one of the daemon's requests.
    if (message !== null && typeof message === "object" && "ok" in message) {
      const reply = HostReplySchema.safeParse(message);
      if (reply.success) link.send(reply.data);
      else log(`a reply to the daemon was dropped: ${formatZodError(reply.error)}`);
      return;
    }
    const parsed = NativeRequestSchema.safeParse(message);
    if (!parsed.success) return send({ id: replyId, ok: false, error: formatZodError(parsed.error) });
    const request = parsed.data;
    try {
      const handler = table[request.type] as (r: NativeRequest) => Promise<unknown>;
      send({ id: request.id, ok: true, result: await handler(request) });
    } catch (error) {
      send({ id: request.id, ok: false, error: (error as Error).message });
    }
  };

  const decoder = new FrameDecoder(MAX_BROWSER_TO_HOST_BYTES);
  const inFlight = new Set<Promise<void>>();
  await new Promise<void>((resolve) => {
    stdin.on("data", (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        const done: Promise<void> = frame.ok
          ? handle(frame.message)
          : Promise.resolve(send({ id: null, ok: false, error: frame.error }));
        inFlight.add(done);
        void done.finally(() => inFlight.delete(done));
      }
    });
    stdin.on("end", () => resolve());
  });
  link.stop();
  await Promise.all(inFlight);
  if (decoder.pending > 0) log(`the port closed in the middle of a message (${decoder.pending} bytes dropped)`);
}
