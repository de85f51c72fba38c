/**
 * Needs-you notifications on PostgreSQL (issue #40): the SQL of store/notify.ts with `$n`
 * placeholders; rows mapped by the SQLite module's functions. Two hosts enqueueing one entry for
 * one channel insert one row (the primary key); one host at a time holds a channel's claim.
 * Design: docs/design.md §7, §9.1.
 */
import type { NotifyStore } from "../engine.js";
import {
  type AttemptResult,
  type ChannelRow,
  channelValues,
  type NewChannel,
  type OutboxRow,
  type RawChannel,
  type RawOutbox,
  toChannelRow,
  toOutboxRow,
} from "../notify.js";
import { all, one, type Queryable, run, statement } from "./statement.js";

const OUTBOX_COLUMNS = "channel, entry_key, item, attempts, created_at, next_attempt_at";

const ADD = statement(
  "notify_add",
  `INSERT INTO notify_channels (name, kind, config, sessions, causes, host_id, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING`,
);
const LIST = statement("notify_list", "SELECT * FROM notify_channels ORDER BY name");
const GET = statement("notify_get", "SELECT * FROM notify_channels WHERE name = $1");
const REMOVE_OUTBOX = statement("notify_remove_outbox", "DELETE FROM notify_outbox WHERE channel = $1");
const REMOVE = statement("notify_remove", "DELETE FROM notify_channels WHERE name = $1");
const PAUSE = statement("notify_pause", "UPDATE notify_channels SET paused = $1 WHERE name = $2");
const ENQUEUE = statement(
  "notify_enqueue",
  `INSERT INTO notify_outbox (channel, entry_key, item, created_at, next_attempt_at)
   VALUES ($1, $2, $3, $4, $5) ON CONFLICT (channel, entry_key) DO NOTHING`,
);
const PENDING = statement(
  "notify_pending",
  `SELECT ${OUTBOX_COLUMNS} FROM notify_outbox WHERE state = 'pending' ORDER BY created_at, channel, entry_key`,
);
const CLEAR = statement(
  "notify_clear",
  "UPDATE notify_outbox SET state = 'cleared' WHERE channel = $1 AND entry_key = $2 AND state = 'pending'",
);
const CLAIM = statement(
  "notify_claim",
  `UPDATE notify_channels SET claim_until = $1
   WHERE name = $2 AND paused = 0 AND (claim_until IS NULL OR claim_until < $3)
     AND (last_sent_at IS NULL OR last_sent_at <= $4) RETURNING name`,
);
const RELEASE = statement("notify_release", "UPDATE notify_channels SET claim_until = NULL WHERE name = $1");
const DUE = statement(
  "notify_due",
  `SELECT ${OUTBOX_COLUMNS} FROM notify_outbox
   WHERE channel = $1 AND state = 'pending' AND next_attempt_at <= $2 ORDER BY created_at, entry_key`,
);
const SENT_ROW = statement(
  "notify_sent_row",
  "UPDATE notify_outbox SET state = 'sent', sent_at = $1, attempts = attempts + 1, last_error = NULL WHERE channel = $2 AND entry_key = $3 AND state = 'pending'",
);
const SENT_CHANNEL = statement(
  "notify_sent_channel",
  "UPDATE notify_channels SET last_sent_at = $1, last_error = NULL, last_error_at = NULL, claim_until = NULL WHERE name = $2",
);
const FAILED_ROW = statement(
  "notify_failed_row",
  `UPDATE notify_outbox SET attempts = attempts + 1, last_error = $1, next_attempt_at = COALESCE($2::bigint, next_attempt_at),
     state = CASE WHEN $2::bigint IS NULL THEN 'failed' ELSE state END
   WHERE channel = $3 AND entry_key = $4 AND state = 'pending'`,
);
const FAILED_CHANNEL = statement(
  "notify_failed_channel",
  "UPDATE notify_channels SET last_error = $1, last_error_at = $2, claim_until = NULL WHERE name = $3",
);
const PURGE = statement("notify_purge", "DELETE FROM notify_outbox WHERE state <> 'pending' AND created_at < $1");
const COUNTS = statement(
  "notify_counts",
  "SELECT channel, COUNT(*)::int AS n FROM notify_outbox WHERE state = 'pending' GROUP BY channel",
);

export class PgNotify implements NotifyStore {
  constructor(private readonly db: Queryable) {}

  async add(row: NewChannel): Promise<boolean> {
    return (await run(this.db, ADD, channelValues(row))) === 1;
  }

  async list(): Promise<ChannelRow[]> {
    return (await all<RawChannel>(this.db, LIST)).map(toChannelRow);
  }

  async get(name: string): Promise<ChannelRow | undefined> {
    const raw = await one<RawChannel>(this.db, GET, [name]);
    return raw ? toChannelRow(raw) : undefined;
  }

  async remove(name: string): Promise<boolean> {
    await run(this.db, REMOVE_OUTBOX, [name]);
    return (await run(this.db, REMOVE, [name])) === 1;
  }

  async setPaused(name: string, paused: boolean): Promise<boolean> {
    return (await run(this.db, PAUSE, [paused ? 1 : 0, name])) === 1;
  }

  async enqueue(channel: string, key: string, item: unknown, now: number, dueAt: number): Promise<boolean> {
    return (await run(this.db, ENQUEUE, [channel, key, JSON.stringify(item), now, dueAt])) === 1;
  }

  async pending(): Promise<OutboxRow[]> {
    return (await all<RawOutbox>(this.db, PENDING)).map(toOutboxRow);
  }

  async clear(channel: string, key: string): Promise<void> {
    await run(this.db, CLEAR, [channel, key]);
  }

  async claim(name: string, now: number, until: number, sentBefore: number): Promise<boolean> {
    return (await one(this.db, CLAIM, [until, name, now, sentBefore])) !== undefined;
  }

  async release(name: string): Promise<void> {
    await run(this.db, RELEASE, [name]);
  }

  async due(channel: string, now: number): Promise<OutboxRow[]> {
    return (await all<RawOutbox>(this.db, DUE, [channel, now])).map(toOutboxRow);
  }

  async attempted(channel: string, keys: readonly string[], result: AttemptResult, now: number): Promise<void> {
    if (result.sent) {
      for (const key of keys) await run(this.db, SENT_ROW, [now, channel, key]);
      await run(this.db, SENT_CHANNEL, [now, channel]);
      return;
    }
    for (const key of keys) await run(this.db, FAILED_ROW, [result.error, result.retryAt, channel, key]);
    await run(this.db, FAILED_CHANNEL, [result.error, now, channel]);
  }

  async purge(before: number): Promise<number> {
    return run(this.db, PURGE, [before]);
  }

  async pendingCounts(): Promise<Map<string, number>> {
    const rows = await all<{ channel: string; n: number }>(this.db, COUNTS);
    return new Map(rows.map((row) => [row.channel, row.n]));
  }
}
