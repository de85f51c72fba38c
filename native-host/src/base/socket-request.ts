/**
 * One HTTP request over the daemon's Unix socket ($VIGIL_HOME/api.sock, 0600 in the 0700 home):
 * how every same-user client reaches the API (and, given an origin, `vigil signal --url`'s one
 * request to another machine's daemon). Only the owner can connect, and no other user can
 * bind the path, so nothing is sent to a squatter and no token travels (design.md §8).
 *
 * Every request ends: a ref'd timer keeps the process alive until the answer or the deadline (an
 * `AbortSignal.timeout` alone does not, and a fetch whose socket the server closed at once could
 * stay pending while the process exited with nothing said), and any failure is one Error naming
 * what happened.
 */
import { type IncomingHttpHeaders, request } from "node:http";
import { request as httpsRequest } from "node:https";

export interface SocketReply {
  status: number;
  text: string;
  headers: IncomingHttpHeaders;
}

export interface SocketRequest {
  /** The Unix socket to call; or */
  socketPath?: string;
  /** an http(s) origin (`vigil signal --url`: another machine's daemon). */
  origin?: string;
  method: string;
  path: string;
  body?: string;
  /** The whole exchange, connect to last byte. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Why a request never got an answer: the caller tells "not running" from "did not answer". */
export class SocketRequestError extends Error {
  override name = "SocketRequestError";
  constructor(
    message: string,
    /** ENOENT/ECONNREFUSED: nothing listens there (no daemon, or it died). */
    readonly notListening: boolean,
    options: { cause?: unknown; forbidden?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.forbidden = options.forbidden === true;
  }

  /** EPERM/EACCES: something here may not connect (another user's socket, a sandbox). */
  readonly forbidden: boolean;
}

export function socketRequest(options: SocketRequest): Promise<SocketReply> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, reply?: SocketReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(reply as SocketReply);
    };
    const target = options.origin === undefined ? null : new URL(options.origin);
    const send = target?.protocol === "https:" ? httpsRequest : request;
    const req = send(
      {
        ...(target === null
          ? { socketPath: options.socketPath }
          : { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ""), port: target.port }),
        method: options.method,
        path: options.path,
        headers: {
          host: target?.host ?? "localhost",
          ...(options.body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(options.body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          finish(null, {
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          }),
        );
        res.on("error", (error) => finish(failure(error)));
        res.on("aborted", () => finish(new SocketRequestError("the daemon closed the connection mid-answer", false)));
      },
    );
    // Ref'd on purpose: the process lives until this request has an outcome.
    const timer = setTimeout(
      () => finish(new SocketRequestError(`the daemon did not answer within ${options.timeoutMs / 1000} s`, false)),
      options.timeoutMs,
    );
    const onAbort = () => finish(toError(options.signal?.reason) ?? new Error("aborted"));
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (error) => finish(failure(error)));
    req.end(options.body);
  });
}

/** What each connection error means to the person reading it. */
const MEANING: Record<string, string> = {
  ENOENT: "no daemon socket",
  ECONNREFUSED: "nothing listens on the socket",
  EACCES: "permission denied: the socket belongs to another user",
  EPERM: "not permitted: a sandbox or security policy forbids connecting to it (EPERM)",
  ECONNRESET: "the daemon closed the connection without answering",
  EPIPE: "the daemon closed the connection without answering",
};

function failure(error: Error): SocketRequestError {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  const notListening = code === "ENOENT" || code === "ECONNREFUSED";
  const what =
    MEANING[code] ??
    (error.message === "socket hang up" ? "the daemon closed the connection without answering" : error.message);
  return new SocketRequestError(what, notListening, { cause: error, forbidden: code === "EPERM" || code === "EACCES" });
}

function toError(reason: unknown): Error | null {
  return reason instanceof Error ? reason : reason === undefined ? null : new Error(String(reason));
}
