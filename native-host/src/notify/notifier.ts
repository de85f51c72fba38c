/**
 * The notifier (issue #40): on its own timer and after changes, it reads the Needs-you list (the
 * panel's, one source of truth) and queues each new entry once for each channel whose filters it
 * matches; an entry that clears before it was sent is not sent. A channel's due entries go as one
 * message ("3 need you: …"): a new entry waits `groupMs` for others, and a channel gets at most one
 * message per `rateMs` (what comes meanwhile goes in the next, as one digest). A failed message is
 * retried with backoff (`delivery/backoff.ts`), then given up; its error shows in `vigil notify ls`
 * and `vigil status`, and is logged once when the channel starts failing and once when it works again.
 * It never holds up a wake: its own timer, a bounded number of sends at once, each with a timeout.
 * Design: docs/design.md §7.
 */
import { createHash } from "node:crypto";
import { DEFAULT_NOTIFY_CAUSES } from "../../../shared/schemas/notify.js";
import type { AttentionItem } from "../../../shared/schemas/views.js";
import { envConfig } from "../base/config.js";
import { inBackground, type Logger, toError } from "../base/log.js";
import { type RetryPolicy, retryDelayMs } from "../delivery/backoff.js";
import type { Shield } from "../secrets/shield.js";
import type { Engine as Store } from "../store/engine.js";
import type { ChannelRow } from "../store/notify.js";
import { SEND_TIMEOUT_MS, type SendOutcome } from "./channel.js";
import { channelFor } from "./channels/registry.js";
import { entryKey, messageOf } from "./message.js";
import { secretKeysOf } from "./secret-keys.js";

/** Rows sent, given up or cleared are kept this long (the hourly purge), so an entry is told of once a month at most. */
export const NOTIFY_OUTBOX_KEPT_MS = 30 * 24 * 3_600_000;

export interface NotifySettings {
  passMs: number;
  groupMs: number;
  rateMs: number;
  retry: RetryPolicy;
  /** Channels sent to at once. */
  concurrency: number;
}

export function notifySettingsFromEnv(): NotifySettings {
  const env = envConfig();
  return {
    passMs: env.VIGIL_NOTIFY_PASS_MS ?? 2000,
    groupMs: env.VIGIL_NOTIFY_GROUP_MS ?? 10_000,
    rateMs: env.VIGIL_NOTIFY_RATE_MS ?? 60_000,
    retry: { maxAttempts: 10, baseMs: env.VIGIL_NOTIFY_RETRY_BASE_MS ?? 5000, capMs: 10 * 60_000 },
    concurrency: 4,
  };
}

export interface NotifierDeps {
  store: Store;
  log: Logger;
  shield: Shield;
  now: () => number;
  hostId: string;
  /**
   * Several hosts share the database (PostgreSQL): a host's channel tells of its own sessions only.
   * On SQLite every session is this daemon's, whatever host id it was made under.
   */
  team: boolean;
  /** The Needs-you list now, as the panel shows it (engine/panel-page.ts `needsYou`). */
  attention: () => Promise<AttentionItem[]>;
  settings: NotifySettings;
}

/** Whether a channel of this host tells of `item` (its filters; its host's sessions unless all hosts). */
export function channelTakes(
  channel: ChannelRow,
  item: AttentionItem,
  hostOfSession: ReadonlyMap<string, string | null>,
): boolean {
  const causes = channel.causes.length > 0 ? channel.causes : DEFAULT_NOTIFY_CAUSES;
  if (!causes.includes(item.reason)) return false;
  if (channel.sessions.length > 0 && !(item.sessionId && channel.sessions.includes(item.sessionId))) return false;
  if (channel.hostId === null || item.sessionId === undefined) return true;
  return (hostOfSession.get(item.sessionId) ?? channel.hostId) === channel.hostId;
}

/** How soon after a change the notifier looks. */
const POKE_DELAY_MS = 500;

/** A message's id: the channel and the entries it tells of. */
const messageIdOf = (channel: string, keys: readonly string[]): string =>
  `ntf_${createHash("sha256")
    .update(`${channel}\n${keys.join("\n")}`)
    .digest("hex")
    .slice(0, 24)}`;

export class Notifier {
  readonly #deps: NotifierDeps;
  readonly #abort = new AbortController();
  /** channel + key pairs known to be queued (or sent before): not inserted again while they last. */
  readonly #known = new Set<string>();
  /** The error each failing channel was last logged with. */
  readonly #failing = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #soon: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #again = false;

  constructor(deps: NotifierDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#timer = setInterval(() => this.poke(), this.#deps.settings.passMs);
    this.#timer.unref();
    this.poke();
  }

  /**
   * Something changed: look soon. Changes come in bursts (a flood of signals): one pass for each
   * half second of them at most, so the list is not read again for every change.
   */
  poke(): void {
    if (this.#abort.signal.aborted || this.#soon) return;
    this.#soon = setTimeout(() => {
      this.#soon = null;
      inBackground(this.#deps.log, "the notifier's pass", this.pass());
    }, POKE_DELAY_MS);
    this.#soon.unref();
  }

  async stop(): Promise<void> {
    this.#abort.abort(new Error("the daemon is stopping"));
    if (this.#timer) clearInterval(this.#timer);
    if (this.#soon) clearTimeout(this.#soon);
    await this.#running?.catch(() => {});
  }

  /** One look: queue what is new, set aside what cleared, send what is due. One at a time. */
  pass(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = async () => {
      try {
        do {
          this.#again = false;
          await this.#passOnce();
        } while (this.#again && !this.#abort.signal.aborted);
      } finally {
        this.#running = null;
      }
    };
    this.#running = run();
    return this.#running;
  }

  async #passOnce(): Promise<void> {
    const { store, hostId, settings } = this.#deps;
    const channels = (await store.tables.notify.list()).filter(
      (channel) => channel.hostId === null || channel.hostId === hostId,
    );
    if (channels.length === 0) return;
    const now = this.#deps.now();
    const items = await this.#deps.attention();
    const byKey = new Map(items.map((item) => [entryKey(item), item]));
    const hostOfSession = new Map(
      this.#deps.team ? (await store.tables.sessions.list()).map((s) => [s.id, s.hostId]) : [],
    );
    const fresh: Array<{ channel: string; key: string; item: AttentionItem }> = [];
    const present = new Set<string>();
    for (const channel of channels) {
      if (channel.paused) continue;
      for (const [key, item] of byKey) {
        if (!channelTakes(channel, item, hostOfSession)) continue;
        const pair = `${channel.name}\n${key}`;
        present.add(pair);
        if (!this.#known.has(pair)) fresh.push({ channel: channel.name, key, item });
      }
    }
    for (const pair of this.#known) if (!present.has(pair)) this.#known.delete(pair);
    if (fresh.length > 0) {
      await store.tx(async (t) => {
        for (const { channel, key, item } of fresh)
          await t.notify.enqueue(channel, key, item, now, now + settings.groupMs);
      });
      for (const { channel, key } of fresh) this.#known.add(`${channel}\n${key}`);
    }
    const mine = new Set(channels.map((channel) => channel.name));
    const pending = (await store.tables.notify.pending()).filter((row) => mine.has(row.channel));
    const cleared = pending.filter((row) => !byKey.has(row.key));
    if (cleared.length > 0) {
      await store.tx(async (t) => {
        for (const row of cleared) await t.notify.clear(row.channel, row.key);
      });
    }
    const due = new Set(pending.filter((row) => byKey.has(row.key) && row.nextAttemptAt <= now).map((r) => r.channel));
    const sending = channels.filter((channel) => due.has(channel.name) && !channel.paused);
    await this.#inBatches(sending, (channel) => this.#sendTo(channel, byKey));
  }

  async #inBatches<T>(list: readonly T[], each: (value: T) => Promise<void>): Promise<void> {
    const queue = [...list];
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        if (this.#abort.signal.aborted) return;
        await each(next).catch((error) => this.#deps.log.warn(`notify: ${toError(error).message}`));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#deps.settings.concurrency, list.length) }, worker));
  }

  /** Claims the channel (one host, the rate), sends its due entries as one message, records what came of it. */
  async #sendTo(channel: ChannelRow, current: ReadonlyMap<string, AttentionItem>): Promise<void> {
    const { store, settings, shield } = this.#deps;
    const secrets = new Map(await store.tables.vault.entries());
    // A team's channel whose secret this host's vault lacks is left to a host that has it.
    if (channel.hostId === null && secretKeysOf(channel.config).some((key) => !secrets.has(key))) return;
    const now = this.#deps.now();
    if (!(await store.tables.notify.claim(channel.name, now, now + 2 * SEND_TIMEOUT_MS, now - settings.rateMs))) return;
    // Entries that would be due within the group window go along (they arose with these).
    const rows = (await store.tables.notify.due(channel.name, now + settings.groupMs)).filter((row) =>
      current.has(row.key),
    );
    const keys = rows.map((row) => row.key);
    const attempts = Math.max(0, ...rows.map((row) => row.attempts)) + 1;
    if (rows.length === 0) {
      await store.tables.notify.release(channel.name);
      return;
    }
    const items = rows.map((row) => current.get(row.key) ?? (row.item as AttentionItem));
    const outcome = await this.send(channel, messageOf(items, now), messageIdOf(channel.name, keys), secrets);
    const at = this.#deps.now();
    if (outcome.ok) {
      await store.tables.notify.attempted(channel.name, keys, { sent: true }, at);
      if (this.#failing.delete(channel.name)) this.#deps.log.info(`notify channel ${channel.name} works again`);
      return;
    }
    const error = shield.text(outcome.error);
    const retryAt =
      outcome.retry && attempts < settings.retry.maxAttempts ? at + retryDelayMs(attempts, settings.retry) : null;
    await store.tables.notify.attempted(channel.name, keys, { sent: false, error, retryAt }, at);
    if (this.#failing.get(channel.name) !== error) {
      this.#failing.set(channel.name, error);
      this.#deps.log.warn(
        `notify channel ${channel.name} failing: ${error} (${retryAt === null ? "given up" : "retried with backoff"}; see vigil notify ls)`,
      );
    }
  }

  /** One message to one channel now, within the send timeout; never throws. */
  async send(
    channel: Pick<ChannelRow, "kind" | "config">,
    message: ReturnType<typeof messageOf>,
    messageId: string,
    secrets: ReadonlyMap<string, string>,
  ): Promise<SendOutcome> {
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]);
    try {
      return await channelFor(channel.kind).send(channel.config, message, {
        signal,
        secrets,
        messageId,
        timeoutMs: SEND_TIMEOUT_MS,
      });
    } catch (error) {
      return { ok: false, retry: true, error: toError(error).message };
    }
  }
}
