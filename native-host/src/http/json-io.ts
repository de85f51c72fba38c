/** Reading JSON bodies with a size cap, and writing JSON answers. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { VigilError } from "../errors.js";

export class HttpError extends VigilError {
  constructor(
    override readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export async function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limitBytes)
    throw new HttpError(413, `Expected a body of at most ${limitBytes} bytes, got ${declared}`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new HttpError(413, `Expected a body of at most ${limitBytes} bytes, got more`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJson(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const text = await readBody(req, limitBytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Expected a JSON body, got malformed JSON (${(error as Error).message})`);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}
