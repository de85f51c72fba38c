/**
 * Discord webhooks: `{"content": …}`, at most 2,000 characters
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook); `allowed_mentions`
 * empty, so outside text cannot ping @everyone.
 * Design: docs/design.md §7.
 */
import { substituteValues } from "../../secrets/references.js";
import type { Channel } from "../channel.js";
import { originOf, postOutbound } from "../outbound.js";

export const DISCORD_CONTENT_MAX = 2000;

export const discordChannel: Channel = {
  kind: "discord",
  target: (config, secrets) => originOf(substituteValues(String(config.url), secrets)),
  send(config, message, context) {
    const whole = `**${message.title}**\n${message.text}`;
    const content = whole.length <= DISCORD_CONTENT_MAX ? whole : `${whole.slice(0, DISCORD_CONTENT_MAX - 1)}…`;
    const body = JSON.stringify({ content, allowed_mentions: { parse: [] } });
    const url = substituteValues(String(config.url), context.secrets);
    return postOutbound(url, { headers: { "content-type": "application/json" }, body }, context);
  },
};
