/**
 * `vigil native-host`: what the browser launches through the installed manifest (SPEC §1). It
 * speaks the browser's framing on stdin/stdout — nothing else is ever written to stdout — and
 * relays each typed request to the daemon (started, detached, when none runs). Malformed,
 * oversized or unknown frames get an error reply; the bridge exits when the browser closes the port.
 */
import type { Readable, Writable } from "node:stream";
import {
  MAX_BROWSER_TO_HOST_BYTES,
  MAX_HOST_TO_BROWSER_BYTES,
  type NativeReply,
  type NativeRequest,
  NativeRequestSchema,
} from "../../../shared/native-messages.js";
import { formatZodError, type MonitorView } from "../../../shared/schemas.js";
import { ApiClient } from "../cli/client.js";
import { ensureDaemon } from "../daemon-launch.js";
import { encodeFrame, FrameDecoder, FrameTooLargeError } from "./framing.js";

type Handlers = { [T in NativeRequest["type"]]: (request: Extract<NativeRequest, { type: T }>) => Promise<unknown> };

function handlers(api: ApiClient): Handlers {
  const session = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;
  return {
    ping: async () => ({ pong: true }),
    status: () => api.request("GET", "/api/status"),
    /** Every monitor and waitpoint, grouped by session, a page at a time (replies stay under 1 MB). */
    list: async ({ offset, limit }) => {
      const sessions = await api.request<Array<{ id: string; label: string | null }>>("GET", "/api/sessions");
      const items: Array<{ session: { id: string; label: string | null }; monitor: MonitorView }> = [];
      for (const s of sessions) {
        for (const monitor of await api.request<MonitorView[]>("GET", `${session(s.id)}/monitors`))
          items.push({ session: s, monitor });
      }
      return { total: items.length, offset, items: items.slice(offset, offset + limit) };
    },
    control: ({ sessionId, monitorId, action }) =>
      api.request("POST", `${session(sessionId)}/monitors/${encodeURIComponent(monitorId)}/control`, { action }),
    waitpoint: ({ sessionId, waitpointId }) =>
      api.request("GET", `${session(sessionId)}/waitpoints/${encodeURIComponent(waitpointId)}`),
  };
}

export async function runNativeHost(options: { home: string; stdin?: Readable; stdout?: Writable }): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = (message: string) => process.stderr.write(`vigil native-host: ${message}\n`);
  await ensureDaemon(options.home);
  const table = handlers(new ApiClient(options.home));

  const send = (reply: NativeReply) => {
    try {
      stdout.write(encodeFrame(reply, MAX_HOST_TO_BROWSER_BYTES));
    } catch (error) {
      if (!(error instanceof FrameTooLargeError)) throw error;
      stdout.write(
        encodeFrame(
          { id: reply.id, ok: false, error: `Reply too large (${error.message}): ask for a smaller page` },
          MAX_HOST_TO_BROWSER_BYTES,
        ),
      );
    }
  };

  const handle = async (message: unknown) => {
    const id = (message as { id?: unknown })?.id;
    const replyId = typeof id === "string" || typeof id === "number" ? id : null;
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
  await Promise.all(inFlight);
  if (decoder.pending > 0) log(`the port closed in the middle of a message (${decoder.pending} bytes dropped)`);
}
