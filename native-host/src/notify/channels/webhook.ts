/**
 * Any receiver: the message as JSON, `type: "vigil.attention"`, signed the Standard Webhooks way
 * as the wake webhook adapter signs (`delivery/signature.ts`) with the channel's `whsec_…` secret
 * from the vault. The id names the entries it tells of: a retry of the same entries has the same id.
 * Design: docs/design.md §6, §7.
 */
import { signWebhook } from "../../delivery/signature.js";
import { substituteValues } from "../../secrets/references.js";
import type { Channel } from "../channel.js";
import { originOf, postOutbound } from "../outbound.js";

export const webhookChannel: Channel = {
  kind: "webhook",
  target: (config, secrets) => originOf(substituteValues(String(config.url), secrets)),
  send(config, message, context) {
    const secret = context.secrets.get(String(config.signingSecret));
    if (secret === undefined)
      return Promise.resolve({
        ok: false,
        retry: false,
        error: `the vault has no ${String(config.signingSecret)} (the webhook's signing secret)`,
      });
    const body = JSON.stringify({
      type: "vigil.attention",
      id: context.messageId,
      title: message.title,
      text: message.text,
      entries: message.items,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "vigil-notify/1",
      "webhook-id": context.messageId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook(secret, context.messageId, timestamp, body),
    };
    return postOutbound(substituteValues(String(config.url), context.secrets), { headers, body }, context);
  },
};
