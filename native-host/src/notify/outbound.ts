/**
 * Every notification's HTTP request (ntfy, Slack, Discord, webhooks): https only (http to loopback
 * for a local server), a timeout, redirects not followed, and the answer read with a small cap.
 * 2xx is sent; timeouts, network errors, 408, 429 and 5xx are tried again; other answers are the
 * receiver's refusal. The URL is named only by its origin (its path may be a secret).
 * Design: docs/design.md §7, §8.
 */
import { describeFetchError } from "../base/fetch-error.js";
import { isLoopbackHost } from "../tools/private-address.js";
import { readCapped } from "../tools/read-capped.js";
import type { SendContext, SendOutcome } from "./channel.js";

/** The most of an answer kept for an error message. */
export const ANSWER_CAP = 2048;

/**
 * A URL's origin, and "(path hidden)" when it has a path: what may be shown of a URL whose path is
 * a secret. (Not "…": the shield masks what touches a cut, and the origin begins the secret.)
 */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.pathname === "/" && parsed.search === "" ? parsed.origin : `${parsed.origin} (path hidden)`;
  } catch {
    return "(not a URL)";
  }
}

/** Null when `url` may carry a notification; else why not ("Expected https://…, got …"). */
export function outboundRefusal(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "Expected a URL https://…, got text that is not a URL";
  }
  if (parsed.protocol === "https:" || (parsed.protocol === "http:" && isLoopbackHost(parsed.hostname))) return null;
  return `Expected https://… (http:// only to this machine), got ${parsed.protocol}//${parsed.host}: a notification is never sent in clear text`;
}

export async function postOutbound(
  url: string,
  init: { headers: Record<string, string>; body: string },
  context: SendContext,
): Promise<SendOutcome> {
  const refusal = outboundRefusal(url);
  if (refusal) return { ok: false, retry: false, error: refusal };
  const where = originOf(url);
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(context.timeoutMs)]);
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", redirect: "manual", signal, ...init });
  } catch (error) {
    return { ok: false, retry: true, error: `POST ${where} failed: ${describeFetchError(error, context.timeoutMs)}` };
  }
  let answer = "";
  try {
    const read = await readCapped(response.body, signal, ANSWER_CAP);
    answer = Buffer.from(read.bytes).toString("utf8").replace(/\s+/g, " ").trim();
  } catch {
    // The status says enough.
  }
  if (response.ok) return { ok: true };
  const retry = response.status >= 500 || response.status === 408 || response.status === 429;
  const said = answer ? `: ${answer.slice(0, 200)}` : "";
  return { ok: false, retry, error: `POST ${where} answered ${response.status}${said}` };
}
