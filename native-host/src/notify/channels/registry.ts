/**
 * Every notification channel, by kind: adding a kind is adding a file beside this one and a line
 * here (`registry.test.ts` walks the folder and checks each is registered).
 * Design: docs/design.md §7.
 */
import type { NotifyKind } from "../../../../shared/schemas/notify.js";
import type { Channel } from "../channel.js";
import { desktopChannel } from "./desktop.js";
import { discordChannel } from "./discord.js";
import { emailChannel } from "./email.js";
import { ntfyChannel } from "./ntfy.js";
import { slackChannel } from "./slack.js";
import { webhookChannel } from "./webhook.js";

export const CHANNELS: Record<NotifyKind, Channel> = {
  ntfy: ntfyChannel,
  slack: slackChannel,
  discord: discordChannel,
  webhook: webhookChannel,
  desktop: desktopChannel,
  email: emailChannel,
};

export function channelFor(kind: string): Channel {
  const channel = CHANNELS[kind as NotifyKind];
  if (!channel) throw new Error(`Expected a notification kind (${Object.keys(CHANNELS).join(", ")}), got ${kind}`);
  return channel;
}
