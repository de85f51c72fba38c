/**
 * Needs-you notifications (issue #40): the channels and the outbox. An outbox row is one Needs-you
 * entry for one channel; its primary key makes a second insert a no-op, so an entry is sent at most
 * once per channel. A channel is claimed by the host that sends its messages (`claim_until`), and
 * only when its last message is older than the rate allows.
 * Design: docs/design.md §7.
 */
import type { Db } from "./db.js";

export type OutboxState = "pending" | "sent" | "failed" | "cleared";

export interface ChannelRow {
  name: string;
  kind: string;
  /** The kind's settings; secrets only as `${secret:KEY}`. */
  config: Record<string, unknown>;
  sessions: string[];
  causes: string[];
  paused: boolean;
  /** The host that added it; null: every host's sessions (team mode `--all-hosts`). */
  hostId: string | null;
  createdAt: number;
  lastSentAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
}

export type NewChannel = Pick<ChannelRow, "name" | "kind" | "config" | "sessions" | "causes" | "hostId" | "createdAt">;

export interface RawChannel {
  name: string;
  kind: string;
  config: string;
  sessions: string;
  causes: string;
  paused: number;
  host_id: string | null;
  created_at: number;
  last_sent_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
}

export const toChannelRow = (raw: RawChannel): ChannelRow => ({
  name: raw.name,
  kind: raw.kind,
  config: JSON.parse(raw.config) as Record<string, unknown>,
  sessions: JSON.parse(raw.sessions) as string[],
  causes: JSON.parse(raw.causes) as string[],
  paused: raw.paused !== 0,
  hostId: raw.host_id,
  createdAt: raw.created_at,
  lastSentAt: raw.last_sent_at,
  lastError: raw.last_error,
  lastErrorAt: raw.last_error_at,
});

export const channelValues = (row: NewChannel): unknown[] => [
  row.name,
  row.kind,
  JSON.stringify(row.config),
  JSON.stringify(row.sessions),
  JSON.stringify(row.causes),
  row.hostId,
  row.createdAt,
];

export interface OutboxRow {
  channel: string;
  key: string;
  /** The Needs-you entry as it was when first seen (shielded). */
  item: unknown;
  attempts: number;
  createdAt: number;
  nextAttemptAt: number;
}

export interface RawOutbox {
  channel: string;
  entry_key: string;
  item: string;
  attempts: number;
  created_at: number;
  next_attempt_at: number;
}

export const toOutboxRow = (raw: RawOutbox): OutboxRow => ({
  channel: raw.channel,
  key: raw.entry_key,
  item: JSON.parse(raw.item),
  attempts: raw.attempts,
  createdAt: raw.created_at,
  nextAttemptAt: raw.next_attempt_at,
});

/** What became of one attempt at a channel's message: sent, or a failure to try again at `retryAt` (null: given up). */
export type AttemptResult = { sent: true } | { sent: false; error: string; retryAt: number | null };

const OUTBOX_COLUMNS = "channel, entry_key, item, attempts, created_at, next_attempt_at";

export class NotifyTable {
  readonly #add;
  readonly #list;
  readonly #get;
  readonly #removeOutbox;
  readonly #remove;
  readonly #pause;
  readonly #enqueue;
  readonly #pending;
  readonly #clear;
  readonly #claim;
  readonly #due;
  readonly #release;
  readonly #sentRow;
  readonly #sentChannel;
  readonly #failedRow;
  readonly #failedChannel;
  readonly #counts;
  readonly #purge;

  constructor(db: Db) {
    this.#add = db.prepare(
      `INSERT INTO notify_channels (name, kind, config, sessions, causes, host_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
    );
    this.#list = db.prepare<[], RawChannel>("SELECT * FROM notify_channels ORDER BY name");
    this.#get = db.prepare<[string], RawChannel>("SELECT * FROM notify_channels WHERE name = ?");
    this.#removeOutbox = db.prepare("DELETE FROM notify_outbox WHERE channel = ?");
    this.#remove = db.prepare("DELETE FROM notify_channels WHERE name = ?");
    this.#pause = db.prepare("UPDATE notify_channels SET paused = ? WHERE name = ?");
    this.#enqueue = db.prepare(
      `INSERT INTO notify_outbox (channel, entry_key, item, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, entry_key) DO NOTHING`,
    );
    this.#pending = db.prepare<[], RawOutbox>(
      `SELECT ${OUTBOX_COLUMNS} FROM notify_outbox WHERE state = 'pending' ORDER BY created_at, channel, entry_key`,
    );
    this.#clear = db.prepare(
      "UPDATE notify_outbox SET state = 'cleared' WHERE channel = ? AND entry_key = ? AND state = 'pending'",
    );
    this.#claim = db.prepare<[number, string, number, number], { name: string }>(
      `UPDATE notify_channels SET claim_until = ?
       WHERE name = ? AND paused = 0 AND (claim_until IS NULL OR claim_until < ?)
         AND (last_sent_at IS NULL OR last_sent_at <= ?) RETURNING name`,
    );
    this.#release = db.prepare("UPDATE notify_channels SET claim_until = NULL WHERE name = ?");
    this.#due = db.prepare<[string, number], RawOutbox>(
      `SELECT ${OUTBOX_COLUMNS} FROM notify_outbox
       WHERE channel = ? AND state = 'pending' AND next_attempt_at <= ? ORDER BY created_at, entry_key`,
    );
    this.#sentRow = db.prepare(
      "UPDATE notify_outbox SET state = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL WHERE channel = ? AND entry_key = ? AND state = 'pending'",
    );
    this.#sentChannel = db.prepare(
      "UPDATE notify_channels SET last_sent_at = ?, last_error = NULL, last_error_at = NULL, claim_until = NULL WHERE name = ?",
    );
    this.#failedRow = db.prepare(
      `UPDATE notify_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = COALESCE(?, next_attempt_at),
         state = CASE WHEN ? IS NULL THEN 'failed' ELSE state END
       WHERE channel = ? AND entry_key = ? AND state = 'pending'`,
    );
    this.#failedChannel = db.prepare(
      "UPDATE notify_channels SET last_error = ?, last_error_at = ?, claim_until = NULL WHERE name = ?",
    );
    this.#purge = db.prepare("DELETE FROM notify_outbox WHERE state <> 'pending' AND created_at < ?");
    this.#counts = db.prepare<[], { channel: string; n: number }>(
      "SELECT channel, COUNT(*) AS n FROM notify_outbox WHERE state = 'pending' GROUP BY channel",
    );
  }

  /** False when a channel of that name exists (nothing changed). */
  add(row: NewChannel): boolean {
    return this.#add.run(...channelValues(row)).changes === 1;
  }

  list(): ChannelRow[] {
    return this.#list.all().map(toChannelRow);
  }

  get(name: string): ChannelRow | undefined {
    const raw = this.#get.get(name);
    return raw ? toChannelRow(raw) : undefined;
  }

  /** The channel and its outbox; false when there was no such channel. */
  remove(name: string): boolean {
    this.#removeOutbox.run(name);
    return this.#remove.run(name).changes === 1;
  }

  setPaused(name: string, paused: boolean): boolean {
    return this.#pause.run(paused ? 1 : 0, name).changes === 1;
  }

  /** Queues an entry for a channel once: false when it was queued before (whatever became of it). */
  enqueue(channel: string, key: string, item: unknown, now: number, dueAt: number): boolean {
    return this.#enqueue.run(channel, key, JSON.stringify(item), now, dueAt).changes === 1;
  }

  /** Every entry not yet sent (nor given up, nor cleared), oldest first. */
  pending(): OutboxRow[] {
    return this.#pending.all().map(toOutboxRow);
  }

  /** The entry no longer needs the person: it is not sent. */
  clear(channel: string, key: string): void {
    this.#clear.run(channel, key);
  }

  /**
   * Takes the channel for sending until `until`: not paused, not held by another host, and its last
   * message sent at or before `sentBefore` (the rate). False when any of these says no.
   */
  claim(name: string, now: number, until: number, sentBefore: number): boolean {
    return this.#claim.get(until, name, now, sentBefore) !== undefined;
  }

  /** Lets the channel go with nothing sent. */
  release(name: string): void {
    this.#release.run(name);
  }

  /** The channel's pending entries whose attempt is due. */
  due(channel: string, now: number): OutboxRow[] {
    return this.#due.all(channel, now).map(toOutboxRow);
  }

  /** Records one message's attempt for its entries, and releases the channel. */
  attempted(channel: string, keys: readonly string[], result: AttemptResult, now: number): void {
    if (result.sent) {
      for (const key of keys) this.#sentRow.run(now, channel, key);
      this.#sentChannel.run(now, channel);
      return;
    }
    for (const key of keys) this.#failedRow.run(result.error, result.retryAt, result.retryAt, channel, key);
    this.#failedChannel.run(result.error, now, channel);
  }

  /**
   * Forgets rows sent, given up or cleared that were queued before `before`: an entry still
   * standing after that long may be told of once more (a reminder); nothing pending is touched.
   */
  purge(before: number): number {
    return this.#purge.run(before).changes;
  }

  /** Pending entries per channel. */
  pendingCounts(): Map<string, number> {
    return new Map(this.#counts.all().map((row) => [row.channel, row.n]));
  }
}
