/**
 * `webhook` adapter: POSTs the turn's wakes as JSON, signed the Standard Webhooks way: one message id
 * always carries the same bytes (retries resend them; a manual `vigil retry` is a new message). 2xx = delivered;
 * timeouts, network errors, 408, 429 and 5xx are retried; other 4xx mean the receiver refused.
 * Design: docs/design.md §6.
 */
import { createHash } from "node:crypto";
import { describeFetchError } from "../../base/fetch-error.js";
import { substituteValues } from "../../secrets/references.js";
import { signWebhook } from "../signature.js";
import { type PushAdapter, type Turn, tail } from "./adapter.js";

type WebhookAdapter = { kind: "webhook"; url: string; headers?: Record<string, string>; timeoutSeconds?: number };

export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;

export const webhookAdapter: PushAdapter<WebhookAdapter> = {
  kind: "webhook",
  timeoutMs: (adapter) => (adapter.timeoutSeconds ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS) * 1000,

  async deliver(adapter, turn, context) {
    if (!context.webhookSecret)
      return { ok: false, retry: false, error: "the session has no webhook secret", output: null };
    const id = messageId(turn);
    const body = webhookJson(turn, id);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(adapter.headers ?? {}))
      headers[name] = substituteValues(value, context.secrets);
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(this.timeoutMs(adapter))]);
    let response: Response;
    try {
      response = await fetch(adapter.url, {
        method: "POST",
        signal,
        headers: {
          ...headers,
          "content-type": "application/json",
          "user-agent": "vigil-webhook/1",
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signWebhook(context.webhookSecret, id, timestamp, body),
        },
        body,
      });
    } catch (error) {
      const reason = describeFetchError(error, this.timeoutMs(adapter));
      return { ok: false, retry: true, error: `POST ${adapter.url} failed: ${reason}`, output: null };
    }
    const text = await response.text().catch(() => "");
    const output = text ? tail(text, 500) : null;
    if (response.ok) return { ok: true, output, via: "webhook" };
    const retry = response.status >= 500 || response.status === 408 || response.status === 429;
    return { ok: false, retry, error: `POST ${adapter.url} answered ${response.status}`, output };
  },
};

/**
 * One message per set of wakes (and per manual resend of them): automatic retries keep the id, so
 * a receiver can deduplicate (Standard Webhooks).
 */
function messageId(turn: Turn): string {
  const wakes = turn.wakes.map((w) => (w.resends === 0 ? w.id : `${w.id}@${w.resends}`)).join(",");
  return `msg_${createHash("sha256").update(`${turn.sessionId}:${wakes}`).digest("hex").slice(0, 24)}`;
}

/**
 * The body: byte-identical for one id. So it carries the message id and not the turn number
 * (which counts attempts and would change between retries of the same message).
 */
function webhookJson(turn: Turn, id: string): string {
  return JSON.stringify({
    type: "vigil.wakes",
    id,
    sessionId: turn.sessionId,
    wakes: turn.wakes.map((wake) => ({ ...wake.payload, id: wake.id, text: wake.text })),
  });
}
