/**
 * `http__get`: GET a URL; returns status, headers and the body (parsed when it is JSON, capped).
 * Redirects are followed here, at most 5, and a hop to another origin drops the credentials (as
 * browsers and curl do); the body is read as a stream and cut at BODY_CAP bytes, never buffered
 * whole. The check's timeout and signal cover every hop and the body read.
 * Design: docs/design.md §4.1.
 */
import { z } from "zod";
import { secretKeysIn, substituteValues } from "../secrets/references.js";
import { getFollowingRedirects, parseUrl } from "./follow-redirects.js";
import { privateHostKind, privateResolution } from "./private-address.js";
import { readCapped } from "./read-capped.js";
import { BODY_CAP, type Tool, ToolError } from "./tool.js";

const Args = z.strictObject({
  url: z.string().refine((value) => /^https?:\/\//.test(value), "Expected an http(s) URL"),
  headers: z.record(z.string(), z.string()).optional(),
});

/** Never sent to another origin; nor is any header whose value held a `${secret:KEY}`. */
const CREDENTIALS = new Set(["authorization", "cookie", "proxy-authorization"]);

export const httpGet: Tool<z.infer<typeof Args>> = {
  name: "http__get",
  readOnly: true,
  whyNotOnAnyHost(args) {
    const url = URL.parse(args.url);
    const kind = url && privateHostKind(url.hostname);
    return kind
      ? `Expected a public URL for a check any host may run, got ${args.url}: ${url.hostname} is ${kind}, which each host reads as its own (arm it without anyHost: the session's host reads it)`
      : null;
  },
  description: "GET an http(s) URL: {status, ok, headers, body} (JSON bodies parsed; headers may hold ${secret:KEY})",
  args: Args,
  async run(args, context) {
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
    try {
      const { response, url, hops } = await getFollowingRedirects(
        parseUrl(substituteValues(args.url, context.secrets), "not a valid URL"),
        {
          headers: Object.entries(args.headers ?? {}),
          resolve: (value) => substituteValues(value, context.secrets),
          // Decided on the value as configured, before its references were filled in.
          isCredential: (name, value) => CREDENTIALS.has(name.toLowerCase()) || secretKeysIn(value).length > 0,
          ...(context.anyHost ? { checkHop: refusePrivate } : {}),
          signal,
        },
      );
      const { bytes, truncated } = await readCapped(response.body, signal, BODY_CAP);
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
        ...(hops > 0 ? { redirected: true, url: url.href } : {}),
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

/**
 * A check any host may run reads only public addresses: a name is resolved here, on the host that
 * runs it (what it resolves to on the session's host does not matter), at every hop.
 */
async function refusePrivate(url: URL): Promise<void> {
  const found = await privateResolution(url.hostname);
  if (found)
    throw new ToolError(
      `${url.host} is ${found} on this host: a check any host may run (anyHost) never reads a loopback, link-local or private address`,
    );
}

function hideSecrets(text: string, secrets: ReadonlyMap<string, string>): string {
  let hidden = text;
  for (const [key, value] of secrets) if (value) hidden = hidden.replaceAll(value, `[secret:${key}]`);
  return hidden;
}
