/**
 * Needs-you notifications (issue #40): what `vigil notify add` and `POST /api/notify` take, and
 * what `vigil notify ls` shows. A channel's secrets (a token, a password, a URL that is its own
 * password) are kept only as vault references `${secret:KEY}`.
 * Design: docs/design.md §7.
 */
import { z } from "zod";
import { SessionIdSchema } from "./ids.js";
import { ATTENTION_REASONS, type AttentionReason } from "./views.js";

export const NOTIFY_KINDS = ["ntfy", "slack", "discord", "webhook", "desktop", "email"] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

export const ChannelNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Expected a channel name of letters, digits, '.', '_' or '-'");

const SecretKey = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
    "Expected a vault key of letters, digits and '_' (not starting with a digit)",
  );

/** A URL as given, or a whole `${secret:KEY}` reference to one kept in the vault. */
const UrlOrReference = z
  .string()
  .min(1)
  .max(2048)
  .refine(
    (text) => /^\$\{secret:[A-Za-z_][A-Za-z0-9_]{0,63}\}$/.test(text) || URL.canParse(text),
    "Expected a URL (https://…) or ${secret:KEY}",
  );

const Address = z
  .string()
  .min(3)
  .max(320)
  .regex(/^[^\s@<>]+@[^\s@<>]+$/, "Expected an e-mail address name@host");

/** Causes that notify unless `--cause` names others: a retried delivery is still being tried. */
export const DEFAULT_NOTIFY_CAUSES: readonly AttentionReason[] = ATTENTION_REASONS.filter(
  (reason) => reason !== "delivery_retrying",
);

const Filters = {
  name: ChannelNameSchema.optional(),
  sessions: z.array(SessionIdSchema).max(100).default([]),
  causes: z.array(z.enum(ATTENTION_REASONS)).max(ATTENTION_REASONS.length).default([]),
  /** Team mode: notify for every host's sessions (one host sends each entry once). */
  allHosts: z.boolean().default(false),
};

export const NotifyAddSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("ntfy"), url: UrlOrReference, tokenSecret: SecretKey.optional(), ...Filters }),
  z.strictObject({ kind: z.literal("slack"), url: UrlOrReference, ...Filters }),
  z.strictObject({ kind: z.literal("discord"), url: UrlOrReference, ...Filters }),
  z.strictObject({
    kind: z.literal("webhook"),
    url: UrlOrReference,
    /** The vault key of a `whsec_…` signing secret; without it one is made and shown once. */
    signingSecret: SecretKey.optional(),
    ...Filters,
  }),
  z.strictObject({ kind: z.literal("desktop"), ...Filters }),
  z.strictObject({
    kind: z.literal("email"),
    smtp: z
      .string()
      .max(2048)
      .regex(/^smtps?:\/\/[^/\s]+:\d{1,5}\/?$/, "Expected smtp://HOST:PORT"),
    from: Address,
    to: Address,
    user: z.string().min(1).max(320).optional(),
    passwordSecret: SecretKey.optional(),
    security: z.enum(["starttls", "tls", "none"]).default("starttls"),
    ...Filters,
  }),
]);
export type NotifyAdd = z.infer<typeof NotifyAddSchema>;

export const NotifyPatchSchema = z.strictObject({ paused: z.boolean() });

/** `vigil notify test [NAME]`: one channel, or each. */
export const NotifyTestSchema = z.strictObject({ name: ChannelNameSchema.optional() });

/** One channel as `vigil notify ls` and the API show it: no secret value, the URL only by its origin. */
export interface ChannelView {
  name: string;
  kind: NotifyKind;
  /** Where it sends ("https://ntfy.sh/…", "smtp://mail:587 → a@b", "this machine's desktop"). */
  target: string;
  sessions: string[];
  /** The causes it notifies of (the defaults when none were named). */
  causes: AttentionReason[];
  paused: boolean;
  /** The host that added it (team mode), or null when it notifies for every host. */
  host: string | null;
  createdAt: string;
  lastSentAt: string | null;
  /** The last failure (shielded), null once a message went through. */
  lastError: string | null;
  lastErrorAt: string | null;
  /** Messages waiting (new, or being retried). */
  pending: number;
}

/** A channel just added: the signing secret of a webhook channel is shown this once. */
export interface ChannelAdded extends ChannelView {
  signingSecret?: string;
}

/** `vigil notify test`: each channel tried, and what it answered. */
export interface NotifyTestResult {
  name: string;
  ok: boolean;
  error: string | null;
}
