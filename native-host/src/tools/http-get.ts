/**
 * `http__get`: GET a URL; returns status, headers and the body (parsed when it is JSON, capped).
 * Redirects are followed here, at most 5, and a hop to another origin drops the credentials (as
 * browsers and curl do); the body is read as a stream and cut at BODY_CAP bytes, never buffered
 * whole. The check's timeout and signal cover every hop and the body read.
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { secretKeysIn, substituteValues } from "../secrets/references.js";
import { BODY_CAP, type Tool, ToolError } from "./tool.js";

const Args = z.strictObject({
  url: z.string().refine((value) => /^https?:\/\//.test(value), "Expected an http(s) URL"),
  headers: z.record(z.string(), z.string()).optional(),
});

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Never sent to another origin; nor is any header whose value held a `${secret:KEY}`. */
const CREDENTIALS = new Set(["authorization", "cookie", "proxy-authorization"]);

export const httpGet: Tool<z.infer<typeof Args>> = {
  name: "http__get",
  readOnly: true,
  hostFree: true,
  description: "GET an http(s) URL: {status, ok, headers, body} (JSON bodies parsed; headers may hold ${secret:KEY})",
  args: Args,
  async run(args, context) {
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
    try {
      const { response, url, hops } = await follow(args, context.secrets, signal);
      const { bytes, truncated } = await readCapped(response.body, signal);
      // With `stream`, a character the cap cut in two is held back rather than decoded badly.
      // A cut is marked `…`, as every cut Vigil makes, so the shield can mask a secret it split.
      const text = new TextDecoder().decode(bytes, { stream: truncated }) + (truncated ? "…" : "");
      let body: unknown = text;
      if (!truncated && /json/i.test(response.headers.get("content-type") ?? "")) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      return {
        status: response.status,
        ok: response.ok,
        headers: Object.fromEntries(response.headers),
        body,
        ...(truncated ? { bodyTruncated: true } : {}),
        ...(hops > 0 ? { redirected: true, url } : {}),
      };
    } catch (error) {
      // The URL as written (references, not values); fetch's own messages may quote the resolved one.
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const why =
        error instanceof ToolError
          ? error.message
          : (error as Error).name === "TimeoutError"
            ? `no answer within ${context.timeoutMs / 1000}s`
            : hideSecrets((error as Error).message, context.secrets);
      throw new ToolError(`GET ${args.url} failed: ${why}${cause ? ` (${cause})` : ""}`);
    }
  },
};

/** GETs with `redirect: "manual"`, following up to MAX_REDIRECTS hops; errors name no URL. */
async function follow(
  args: z.infer<typeof Args>,
  secrets: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<{ response: Response; url: string; hops: number }> {
  let url = parseUrl(substituteValues(args.url, secrets), "not a valid URL");
  let headers = Object.entries(args.headers ?? {});
  for (let hops = 0; ; hops += 1) {
    const response = await fetch(url, {
      headers: headers.map(([name, value]) => [name, substituteValues(value, secrets)]),
      redirect: "manual",
      signal,
    });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { response, url: url.href, hops };
    await response.body?.cancel();
    if (hops === MAX_REDIRECTS) throw new ToolError(`more than ${MAX_REDIRECTS} redirects`);
    // 301/302/303 turn a request into a GET, and 307/308 keep its method: a GET either way.
    const next = parseUrl(location, "redirected to an invalid URL", url);
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new ToolError(`redirected to a non-http(s) URL (${next.protocol})`);
    if (next.origin !== url.origin) {
      // Decided on the value as configured, before its references were filled in.
      headers = headers.filter(([name, value]) => !CREDENTIALS.has(name.toLowerCase()) && !secretKeysIn(value).length);
    }
    url = next;
  }
}

function parseUrl(text: string, why: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new ToolError(why);
  }
}

/** Reads at most BODY_CAP + 1 bytes, then cancels the stream; an abort ends the read at once. */
async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  signal: AbortSignal,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (stream === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (size <= BODY_CAP) {
      signal.throwIfAborted();
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    if (size > BODY_CAP) await reader.cancel();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  const bytes = Buffer.concat(chunks, size);
  return size > BODY_CAP ? { bytes: bytes.subarray(0, BODY_CAP), truncated: true } : { bytes, truncated: false };
}

function hideSecrets(text: string, secrets: ReadonlyMap<string, string>): string {
  let hidden = text;
  for (const [key, value] of secrets) if (value) hidden = hidden.replaceAll(value, `[secret:${key}]`);
  return hidden;
}
