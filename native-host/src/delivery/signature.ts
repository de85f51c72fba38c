/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256(id.timestamp.body)>`
 * keyed by the base64 part of a `whsec_…` secret. `verifyWebhook` is what a receiver runs.
 * Design: docs/design.md §6, §8.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith("whsec_")) throw new Error("Expected a secret starting with whsec_");
  return Buffer.from(secret.slice("whsec_".length), "base64");
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** True when one of the space-separated signatures matches and the timestamp is within tolerance. */
export function verifyWebhook(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  { nowSeconds = Math.floor(Date.now() / 1000), toleranceSeconds = 300 } = {},
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  return headers.signature.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
