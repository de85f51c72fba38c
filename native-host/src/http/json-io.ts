/**
 * Reading JSON bodies with a size cap, and writing JSON answers.
 * Design: docs/design.md §7.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { VigilError } from "../base/errors.js";
import { tooDeep, tooDeepMessage } from "../base/json-depth.js";

/** A refusal that only the HTTP layer can make (a bad path, body or query): its status as is. */
export class HttpError extends VigilError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * The body as text, refused past `limitBytes`. Plain stream events rather than `for await`: the
 * async iterator allocates enough per request to show in the daemon's garbage collection under
 * load. Past the limit the rest is not kept; Node discards it once the 413 has been answered.
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limitBytes) {
    return Promise.reject(new HttpError(413, `Expected a body of at most ${limitBytes} bytes, got ${declared}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        stop();
        reject(new HttpError(413, `Expected a body of at most ${limitBytes} bytes, got more`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks).toString("utf8"));
    };
    // A client that goes away mid-body is the client's problem: a 400 (nobody reads it), no stack.
    const onError = () => {
      stop();
      reject(new HttpError(400, "Expected a complete body, but the request was aborted before it ended"));
    };
    const onClose = () => {
      stop();
      reject(new HttpError(400, "Expected a complete body, but the request was closed before it ended"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

export async function readJson(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const text = await readBody(req, limitBytes);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Expected a JSON body, got malformed JSON (${(error as Error).message})`);
  }
  if (tooDeep(value)) throw new HttpError(400, tooDeepMessage());
  return value;
}

/**
 * The body is encoded once: `Buffer.byteLength` and then writing the string would walk a large reply
 * (the side panel's pages: 300–600 KB) twice (bench/panel.js profile, issue #26).
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.from(body === undefined ? "" : JSON.stringify(body), "utf8");
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": bytes.length,
    "cache-control": "no-store",
  });
  res.end(bytes);
}
