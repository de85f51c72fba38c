/**
 * Slack incoming webhooks (and Mattermost, Rocket.Chat, which take the same body): `{"text": …,
 * "blocks": [...]}` (https://api.slack.com/messaging/webhooks). `&`, `<` and `>` are escaped as
 * Slack asks, so outside text cannot make a link or a mention.
 * Design: docs/design.md §7.
 */
import { substituteValues } from "../../secrets/references.js";
import type { Channel } from "../channel.js";
import { originOf, postOutbound } from "../outbound.js";

/** Slack's escaping of its control characters in message text. */
export const slackEscape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A section block holds at most 3,000 characters; a header 150. */
const cut = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export const slackChannel: Channel = {
  kind: "slack",
  target: (config, secrets) => originOf(substituteValues(String(config.url), secrets)),
  send(config, message, context) {
    const text = slackEscape(message.text);
    const body = JSON.stringify({
      text: cut(`${slackEscape(message.title)}\n${text}`, 3000),
      blocks: [
        { type: "header", text: { type: "plain_text", text: cut(message.title, 150) } },
        { type: "section", text: { type: "mrkdwn", text: cut(text, 3000) } },
      ],
    });
    const url = substituteValues(String(config.url), context.secrets);
    return postOutbound(url, { headers: { "content-type": "application/json" }, body }, context);
  },
};
