/**
 * The one shape every notification channel has (issue #40): one file per kind under `channels/`,
 * registered in `channels/registry.ts`. A channel sends one message and says whether it went
 * through; it never throws for a failure the receiver caused, and gives up when `signal` aborts.
 * Design: docs/design.md §7.
 */
import type { NotifyKind } from "../../../shared/schemas/notify.js";
import type { NotifyMessage } from "./message.js";

/** A message went through, or why not and whether trying again may help. */
export type SendOutcome = { ok: true } | { ok: false; retry: boolean; error: string };

export interface SendContext {
  /** Aborted on shutdown and after the channel's timeout. */
  signal: AbortSignal;
  /** The vault's values by key, for the config's `${secret:KEY}` references. */
  secrets: ReadonlyMap<string, string>;
  /** Each message's id (the outbox entries' keys hashed): a webhook receiver deduplicates by it. */
  messageId: string;
  timeoutMs: number;
}

export interface Channel {
  kind: NotifyKind;
  /** Where it sends, without any secret: "https://ntfy.sh/…", "smtp://mail:587 → me@example.org". */
  target(config: Record<string, unknown>, secrets: ReadonlyMap<string, string>): string;
  send(config: Record<string, unknown>, message: NotifyMessage, context: SendContext): Promise<SendOutcome>;
}

/** How long one message may take, whatever the channel. */
export const SEND_TIMEOUT_MS = 15_000;
