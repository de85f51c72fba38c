/**
 * Wake delivery (design.md §6): the per-session turn queue, push adapters (command, webhook), pulls
 * (inbox and MCP claims), leases, retries with backoff and needs_review.
 *
 * At most one turn is in flight per session: a session with a wake `delivering`, or a turn the
 * platform declared busy, holds its other wakes; when the turn ends, every wake ready by then
 * goes out together as the next turn. A turn's wakes are claimed in one immediate transaction, so
 * two claimers can never take the same wake, and a delivered wake is final in the schema.
 */

import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type { Adapter } from "../../../shared/schemas/inputs.js";
import type { WakeView } from "../../../shared/schemas/views.js";
import { envConfig } from "../base/config.js";
import { ConflictError, NotFoundError, ValidationError } from "../base/errors.js";
import { inBackground, type Logger, toError } from "../base/log.js";
import type { Changes } from "../core/changes.js";
import { sessionOrThrow } from "../core/lookup.js";
import { INTERRUPTED, UNSEALED_ADAPTER } from "../core/review-causes.js";
import { Scheduler } from "../engine/scheduler.js";
import type { Sealer } from "../engine/seals.js";
import { secretKeysIn } from "../secrets/references.js";
import type { Shield } from "../secrets/shield.js";
import type { Engine } from "../store/engine.js";
import type { SessionRow } from "../store/sessions.js";
import { CommitUnknownError, unreachableText } from "../store/unreachable.js";
import { parseWakeId, type RawWake, toWakeView } from "../store/wakes.js";
import type { DeliveryOutcome, PushAdapter, Turn } from "./adapters/adapter.js";
import { type RetryPolicy, retryPolicyFromEnv } from "./backoff.js";
import { HANDOVER_RECHECK_MS, HANDOVER_UNSEEN, Handovers, handoverConfirmMs, transcriptOf } from "./handovers.js";
import { PUSH_ADAPTERS, PUSH_KINDS, withPidStart } from "./push-adapters.js";
import { newWebhookSecret } from "./signature.js";
import { markOf } from "./transcript-scan.js";
import { moveMonitors, recordTurnOutcome } from "./turn-records.js";

export { INTERRUPTED };

/** Calls to the result until `schedule` runs its callback cost one `act`. */
function coalesce(schedule: (run: () => void) => unknown, act: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    schedule(() => {
      queued = false;
      act();
    });
  };
}

/** Team mode: the longest a push waits after another host's change reached this one. */
const REMOTE_POKE_MS = 20;
/** How often a session whose wakes are held (a live agent) is looked at again. */
const HELD_RECHECK_MS = 2000;

/**
 * Time a lease allows beyond the adapter's own timeout before the delivery counts as interrupted
 * (`VIGIL_DELIVERY_LEASE_GRACE_MS`, default 30 s; tests shorten it).
 */
/** The longest wait between two tries to write a turn's outcome while the database is away. */
const RECORD_RETRY_CAP_MS = 1000;
const leaseGraceMs = () => envConfig().VIGIL_DELIVERY_LEASE_GRACE_MS ?? 30_000;
/** How long a pull whose claim's commit went unanswered waits for the database to say (then 503). */
const UNSURE_PULL_MS = 30_000;
const UNSURE_PULL_RETRY_MS = 250;
const UNSURE_RECHECK_MS = 1000;
/** Longest single long-poll. */
export const MAX_CLAIM_WAIT_SECONDS = 300;
export const DEFAULT_BUSY_SECONDS = 3600;

export interface DeliveryOptions {
  store: Engine;
  log: Logger;
  shield: Shield;
  changes: Changes;
  now?: () => number;
  policy?: RetryPolicy;
  /** This daemon's host (team mode). */
  hostId: string;
  /** Seals the adapters this host sets and verifies them before one runs (engine/seals.ts). */
  sealer: Sealer;
}

export class Delivery {
  readonly #store: Engine;
  readonly #log: Logger;
  readonly #shield: Shield;
  readonly #changes: Changes;
  readonly #now: () => number;
  readonly #policy: RetryPolicy;
  readonly #scheduler: Scheduler;
  /** Pushes go out from the session's host (its agent runs there); webhooks from any host. */
  readonly #hostId: string;
  readonly #sealer: Sealer;
  /** Turns running in this process, by session. */
  readonly #inFlight = new Map<string, AbortController>();
  /** Wakes an agent's hook took, waiting for the session's transcript to show them. */
  readonly #handovers = new Handovers();
  /** A look at the transcripts is under way (they are read off the event loop, one look at a time). */
  #settling = false;
  /** When the last look at the transcripts began (the next is HANDOVER_RECHECK_MS after it). */
  #lastLook = Number.NEGATIVE_INFINITY;
  /** Aborted at stop: a look at the transcripts under way ends early. */
  readonly #stopping = new AbortController();
  /** Sessions whose wakes another path takes for now (a live agent), and when to look again. */
  readonly #held = new Map<string, { until: number; why: string }>();
  /**
   * Push claims whose commit's answer was lost (the database cut off meanwhile), by token: never
   * pushed, so once the database is back and the claim no longer runs, what it took (its token's
   * wakes) is made ready again (#releaseUnsure).
   */
  readonly #unsure = new Map<string, { sessionId: string; ended: () => Promise<void> }>();
  /** When #releaseUnsure last asked about them (the next ask is UNSURE_RECHECK_MS after). */
  #lastUnsureLook = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: DeliveryOptions) {
    this.#store = options.store;
    this.#log = options.log;
    this.#shield = options.shield;
    this.#changes = options.changes;
    this.#now = options.now ?? Date.now;
    this.#policy = options.policy ?? retryPolicyFromEnv();
    this.#hostId = options.hostId;
    this.#sealer = options.sealer;
    this.#scheduler = new Scheduler({
      now: this.#now,
      nextAt: () => this.#nextAt(),
      tick: (now) => this.#tick(now),
      onError: (error) =>
        this.#log.error(`the delivery scheduler failed (it tries again in 1 s): ${toError(error).message}`),
    });
    // Progress reports alone make no wake: nothing to deliver.
    this.#changes.on((_sessionId, origin, kind) => {
      if (kind === "progress") return;
      if (origin === "remote") this.#pokeLater();
      else this.#pokeSoon();
    });
  }

  start(): void {
    this.#scheduler.poke();
  }

  stop(): void {
    this.#stopped = true;
    this.#stopping.abort();
    this.#scheduler.stop();
    for (const controller of this.#inFlight.values()) controller.abort();
  }

  poke(): void {
    this.#scheduler.poke();
  }

  /** Many changes in one tick (a burst of signals) cost one look at the turn queue. */
  readonly #pokeSoon = coalesce(
    (poke) => setImmediate(poke),
    () => this.#scheduler.poke(),
  );
  /**
   * Changes another host made (team mode) look at the turn queue at most every REMOTE_POKE_MS: a
   * stream of signals on the other hosts must not cost this one a look per notice.
   */
  readonly #pokeLater = coalesce(
    (poke) => setTimeout(poke, REMOTE_POKE_MS),
    () => this.#scheduler.poke(),
  );

  /** The session is being deleted: its turn in flight is abandoned (nothing old may resume it). */
  abandonSession(sessionId: string): void {
    this.#inFlight.get(sessionId)?.abort();
    this.#inFlight.delete(sessionId);
  }

  // ------------------------------------------------------------------ configuration

  /** Sets a session's adapter; a webhook gets a fresh signing secret, returned only here. */
  async setAdapter(sessionId: string, adapter: Adapter): Promise<{ webhookSecret?: string }> {
    const session = await this.#session(sessionId);
    if (adapter.kind === "webhook") {
      const text = Object.values(adapter.headers ?? {}).join("\n");
      const known = new Set((await this.#store.tables.vault.entries()).map(([key]) => key));
      const missing = secretKeysIn(text).find((key) => !known.has(key));
      if (missing)
        throw new ValidationError(`adapter.headers: Vault key ${missing} is not set (vigil vault set ${missing})`);
    }
    const webhookSecret = adapter.kind === "webhook" ? newWebhookSecret() : null;
    // Sealed with the rest of the row (its sandbox too) under its lock: engine/seals.ts.
    await this.#store.tx(async (t) => {
      await t.sessions.lockForUpdate(session.id);
      const current = (await t.sessions.get(session.id)) ?? session;
      const stored = { ...current, adapter: withPidStart(adapter), webhookSecret };
      await t.sessions.setAdapter(session.id, stored.adapter, webhookSecret, this.#sealer.sealSession(stored));
    });
    this.#changes.emit(session.id);
    return webhookSecret ? { webhookSecret } : {};
  }

  /** A turn the platform runs itself: wakes wait while it is busy (for at most the lease). */
  async setTurn(sessionId: string, state: "busy" | "idle", leaseSeconds = DEFAULT_BUSY_SECONDS): Promise<SessionRow> {
    const session = await this.#session(sessionId);
    await this.#store.tables.sessions.setBusy(session.id, state === "busy" ? this.#now() + leaseSeconds * 1000 : null);
    this.#changes.emit(session.id);
    return this.#session(sessionId);
  }

  #session(sessionId: string): Promise<SessionRow> {
    return sessionOrThrow(this.#store.tables, sessionId);
  }

  #isBusy(session: SessionRow, now: number): boolean {
    return session.busyUntil !== null && session.busyUntil > now;
  }

  // ------------------------------------------------------------------ pulls (inbox, MCP)

  /**
   * Takes every ready wake of the session as one turn, marking them delivered. Waits up to
   * `waitMs` for one to arrive (and for a busy turn or a push in flight to end).
   */
  async claim(
    sessionId: string,
    options: { waitMs: number; via: string; signal?: AbortSignal; handover?: boolean },
  ): Promise<WakeView[]> {
    const deadline = this.#now() + options.waitMs;
    for (;;) {
      const session = await this.#session(sessionId);
      const now = this.#now();
      const transcript = options.handover ? transcriptOf(session) : null;
      // Where the transcript ends before the claim: only what it gains after can show the wakes.
      const mark =
        transcript && (await this.#store.tables.wakes.readyCount(sessionId)) > 0 ? await markOf(transcript) : null;
      const tags = new Map<number, string>();
      // No await between this check and queuing the claim: a push marks #inFlight before queuing its own.
      if (!this.#isBusy(session, now) && !this.#inFlight.has(sessionId)) {
        const until = now + handoverConfirmMs();
        const token = randomUUID(); // marks what this claim takes (its body may run again after a deadlock)
        let rows: RawWake[];
        try {
          rows = await this.#store.tx(
            async (t) => {
              // nextTurn and the claim as one step per session (a no-op on SQLite; FOR UPDATE on PostgreSQL).
              await t.sessions.lockForUpdate(sessionId);
              if ((await t.wakes.readyCount(sessionId)) === 0) return [];
              const turn = await t.sessions.nextTurn(sessionId);
              if (transcript) {
                // An agent's hook takes them: delivered once the session's transcript shows their tags.
                // The lease outlasts the deadline: the last look at the transcript decides, not the lease
                // (which decides only after a restart, when the handover is no longer watched).
                const leased = await t.wakes.claim(sessionId, turn, until + leaseGraceMs(), token);
                await moveMonitors(t, leased, "deliver");
                return leased;
              }
              const claimed = await t.wakes.claimDelivered(sessionId, turn, now, options.via, token);
              await moveMonitors(t, claimed, "delivered");
              return claimed;
            },
            { checkable: true },
          );
        } catch (error) {
          if (!(error instanceof CommitUnknownError)) throw error;
          rows = await this.#unsurePull(sessionId, token, error, options.signal);
          if (rows.length === 0) continue; // it took nothing: the wakes are still ready, claim again
        }
        // Watched once committed (the transaction's body may run twice on PostgreSQL).
        if (transcript) {
          for (const row of rows) {
            tags.set(row.id, this.#handovers.add(row.id, { sessionId, via: options.via, transcript, until, mark }));
          }
        }
        if (rows.length > 0) {
          this.#changes.emit(sessionId);
          return rows.map((row) => {
            const handoverTag = tags.get(row.id);
            return handoverTag ? { ...toWakeView(row), handoverTag } : toWakeView(row);
          });
        }
      }
      const remaining = deadline - this.#now();
      if (remaining <= 0 || options.signal?.aborted) return [];
      await this.#changes.next(sessionId, remaining, options.signal);
    }
  }

  /**
   * A pull's claim whose commit's answer was lost: the wakes it took, found by its token once the
   * database is back and the claim no longer runs (they are delivered, or leased to a handover, and
   * only this answer can carry them); none if it did not commit. Waits up to UNSURE_PULL_MS, or
   * until the caller goes away; then the claim stays as it may be, and the log says so.
   */
  async #unsurePull(
    sessionId: string,
    token: string,
    error: CommitUnknownError,
    signal: AbortSignal | undefined,
  ): Promise<RawWake[]> {
    const giveUpAt = this.#now() + UNSURE_PULL_MS;
    for (;;) {
      try {
        await error.ended();
        return await this.#store.tables.wakes.claimedBy(sessionId, token);
      } catch (asking) {
        const away = unreachableText(asking) !== null;
        if (!away || this.#stopped || signal?.aborted || this.#now() >= giveUpAt) {
          this.#log.error(
            `session ${sessionId}: a pull's claim may have committed while the database was cut off, and its answer ` +
              `could not be given (${toError(asking).message}); if it did, its wakes show as delivered (the session's wakes list them)`,
          );
          throw away ? error : asking;
        }
        await sleep(UNSURE_PULL_RETRY_MS, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
      }
    }
  }

  /**
   * How many wakes are ready for the session, waiting up to `waitMs` for one to be: a live agent's
   * background hook uses it to wake an idle session without taking anything (its Stop hook takes
   * the wakes, so a hook that dies meanwhile loses nothing).
   */
  async waitReady(sessionId: string, options: { waitMs: number; signal?: AbortSignal }): Promise<number> {
    const deadline = this.#now() + options.waitMs;
    for (;;) {
      await this.#session(sessionId);
      const ready = await this.#store.tables.wakes.readyCount(sessionId);
      const remaining = deadline - this.#now();
      if (ready > 0 || remaining <= 0 || options.signal?.aborted) return ready;
      await this.#changes.next(sessionId, remaining, options.signal);
    }
  }

  /** Sends a needs_review wake again, on purpose. */
  async retry(sessionId: string, wakeId: string): Promise<WakeView> {
    await this.#session(sessionId);
    const number = parseWakeId(wakeId);
    const row = number === null ? undefined : await this.#store.tables.wakes.get(sessionId, number);
    if (!row || number === null) throw new NotFoundError(`Unknown wake ${wakeId} in session ${sessionId}`);
    const retried = await this.#store.tx(async (t) => {
      if (!(await t.wakes.retry(number))) return false;
      await moveMonitors(t, [row], "retry");
      return true;
    });
    if (!retried)
      throw new ConflictError(
        `Only a wake that needs review can be retried; ${wakeId} is ${row.state.replace("_", " ")}`,
      );
    this.#log.info(`wake ${sessionId}/${wakeId} sent again on request`);
    this.#changes.emit(sessionId);
    return toWakeView((await this.#store.tables.wakes.get(sessionId, number)) as RawWake);
  }

  // ------------------------------------------------------------------ pushes (command, webhook)

  async #nextAt(): Promise<number | null> {
    const { wakes } = this.#store.tables;
    const turns = await wakes.pendingTurns(PUSH_KINDS, this.#now(), this.#hostId);
    const lease = await wakes.nextLeaseExpiry();
    const pending = turns
      .filter((turn) => !this.#inFlight.has(turn.sessionId))
      .map((turn) => Math.max(turn.dueAt, this.#held.get(turn.sessionId)?.until ?? 0));
    const times = lease === null ? pending : [...pending, lease];
    // A second after the last look began (not after now: every recorded check pokes this scheduler,
    // and "now + 1 s" would move away with each poke while checks come faster than once a second).
    // None while a look runs: it pokes when done.
    if (this.#handovers.size > 0 && !this.#settling) times.push(this.#lastLook + HANDOVER_RECHECK_MS);
    // A claim whose commit's answer was lost is asked about again a second after the last ask (not
    // after now, which every poke would move away).
    if (this.#unsure.size > 0) times.push(this.#lastUnsureLook + UNSURE_RECHECK_MS);
    return times.length === 0 ? null : Math.min(...times);
  }

  async #tick(now: number): Promise<void> {
    if (this.#stopped) return;
    this.#confirmHandovers(now);
    await this.#releaseUnsure();
    await this.#expireLeases(now);
    for (const pending of await this.#store.tables.wakes.pendingTurns(PUSH_KINDS, now, this.#hostId)) {
      if (this.#stopped) return;
      if (pending.dueAt > now || this.#inFlight.has(pending.sessionId)) continue;
      if ((this.#held.get(pending.sessionId)?.until ?? 0) > now) continue;
      await this.#startTurn(pending.sessionId, now);
    }
  }

  /**
   * Wakes an agent's hook took become delivered when the session's transcript shows their tag;
   * never shown by the deadline, they need review (the agent may have dropped them). The
   * transcripts are read off the event loop; one look runs at a time.
   */
  #confirmHandovers(now: number): void {
    if (this.#settling || this.#handovers.size === 0) return;
    this.#settling = true;
    this.#lastLook = now;
    this.#handovers
      .settle(now, this.#stopping.signal)
      .then((settled) => this.#recordHandovers(settled))
      .catch((error: unknown) => this.#log.warn(`reading transcripts failed: ${toError(error).message}`))
      .finally(() => {
        this.#settling = false;
        this.#scheduler.poke();
      });
  }

  async #recordHandovers(settled: Awaited<ReturnType<Handovers["settle"]>>): Promise<void> {
    const now = this.#now();
    for (const { wake, sessionId, via, shown, problem } of settled) {
      if (this.#stopped) return;
      const row = (await this.#store.tables.wakes.byIds([wake]))[0];
      if (row?.state !== "delivering") continue;
      const why = problem ? `${HANDOVER_UNSEEN}; the transcript was not read: ${problem}` : HANDOVER_UNSEEN;
      await this.#store.tx(async (t) => {
        if (shown) {
          if (await t.wakes.markDelivered(wake, now, via, null)) await moveMonitors(t, [row], "delivered");
        } else if (await t.wakes.markReview(wake, why, null)) await moveMonitors(t, [row], "review");
      });
      if (!shown) this.#log.warn(`wake ${sessionId}/wake-${wake} needs review: ${why}`);
      this.#changes.emit(sessionId);
    }
  }

  /**
   * Claims this daemon never pushed because it did not hear that their commit took: once the
   * database is back and such a claim no longer runs, the wakes it took (by its token) are ready
   * again, also if their lease ran out meanwhile (which called them interrupted), so they go out
   * once, in a turn of their own. While the database is away a claim is asked about at each look;
   * one that cannot be asked for another reason is left to its lease (needs review, never a repeat).
   */
  async #releaseUnsure(): Promise<void> {
    if (this.#unsure.size > 0) this.#lastUnsureLook = this.#now();
    for (const [token, { sessionId, ended }] of this.#unsure) {
      if (this.#stopped) return;
      let released: RawWake[];
      try {
        await ended();
        released = await this.#store.tx(async (t) => {
          const rows = await t.wakes.release(sessionId, token, INTERRUPTED);
          // Back to ready from continuing (the claim) or from needs_review (its lease ran out).
          await moveMonitors(t, rows, "requeue");
          await moveMonitors(t, rows, "retry");
          return rows;
        });
      } catch (error) {
        if (unreachableText(error) !== null) continue;
        this.#log.error(
          `session ${sessionId}: whether a claim took could not be known (${toError(error).message}); ` +
            "if it did, its lease will call its wakes interrupted",
        );
        this.#unsure.delete(token);
        continue;
      }
      this.#unsure.delete(token);
      if (released.length > 0) {
        this.#log.warn(
          `session ${sessionId}: a turn was claimed though the database's answer was lost; ` +
            `it was not pushed, so its ${released.length} wake(s) are ready again`,
        );
        this.#changes.emit(sessionId);
      }
    }
  }

  /** A delivery whose lease ran out was interrupted by a crash: it is not repeated blindly. */
  async #expireLeases(now: number): Promise<void> {
    const expired = await this.#store.tx(async (t) => {
      const ids = await t.wakes.expireLeases(now, INTERRUPTED);
      const rows = await t.wakes.byIds(ids);
      await moveMonitors(t, rows, "review");
      return rows;
    });
    for (const row of expired) {
      this.#log.warn(`wake ${row.session_id}/wake-${row.id} needs review: ${INTERRUPTED}`);
      this.#changes.emit(row.session_id);
    }
  }

  readonly #preparing = new Map<PushAdapter, boolean>();

  /**
   * True once the adapter has loaded what it needs. The first time, it starts loading and says no:
   * the turn is claimed (and its lease starts) only after, so a crash while loading leaves the
   * wakes ready to deliver rather than interrupted.
   */
  #prepared(push: PushAdapter): boolean {
    if (!push.prepare) return true;
    const state = this.#preparing.get(push);
    if (state !== undefined) return state;
    this.#preparing.set(push, false);
    const done = () => {
      this.#preparing.set(push, true);
      this.poke();
    };
    push.prepare().then(done, done); // a failed load shows up as the delivery's own error
    return false;
  }

  async #startTurn(sessionId: string, now: number): Promise<void> {
    const session = await this.#store.tables.sessions.get(sessionId);
    const push = session && PUSH_ADAPTERS[session.adapter.kind];
    if (!session || !push || !this.#prepared(push)) return;
    const why = push.heldBy?.(session.adapter, sessionId) ?? null;
    if (why !== null) {
      if (this.#held.get(sessionId)?.why !== why) this.#log.info(`wakes of session ${sessionId} held: ${why}`);
      this.#held.set(sessionId, { until: now + HELD_RECHECK_MS, why });
      return;
    }
    this.#held.delete(sessionId);
    const timeoutMs = push.timeoutMs(session.adapter);
    const secrets = new Map(await this.#store.tables.vault.entries());
    // In flight from before the claim (only a tick marks a turn, and ticks never overlap): a pull
    // meanwhile waits for this turn instead of claiming beside it. A stop aborts what is marked.
    if (this.#stopped) return;
    const controller = new AbortController();
    this.#inFlight.set(sessionId, controller);
    let claimed: { turn: number; rows: RawWake[] };
    const token = randomUUID(); // marks what this claim takes (its body may run again after a deadlock)
    try {
      claimed = await this.#store.tx(
        async (t) => {
          // nextTurn and the claim as one step per session (a no-op on SQLite; FOR UPDATE on PostgreSQL).
          await t.sessions.lockForUpdate(sessionId);
          // Stopped or its session deleted since it was marked: nothing is claimed. Nor while another
          // turn is in flight: another host's, for a webhook session any host may push (team mode).
          if (controller.signal.aborted || (await t.wakes.turnInFlight(sessionId))) return { turn: 0, rows: [] };
          const turn = await t.sessions.nextTurn(sessionId);
          const rows = await t.wakes.claim(sessionId, turn, now + timeoutMs + leaseGraceMs(), token);
          await moveMonitors(t, rows, "deliver");
          return { turn, rows };
        },
        { checkable: true },
      );
    } catch (error) {
      this.#land(sessionId, controller);
      if (error instanceof CommitUnknownError) this.#unsure.set(token, { sessionId, ended: error.ended });
      throw error;
    }
    if (claimed.rows.length === 0) return this.#land(sessionId, controller);
    this.#changes.emit(sessionId);
    const turn: Turn = {
      sessionId,
      turn: claimed.turn,
      wakes: claimed.rows.map((row) => {
        const view = toWakeView(row);
        return { id: view.id, text: view.text, payload: view.payload, resends: row.resends };
      }),
    };
    this.#log.info(`delivering turn ${claimed.turn} of session ${sessionId} via ${session.adapter.kind}`, {
      wakes: turn.wakes.map((w) => w.id),
    });
    // An adapter this host did not set (a peer's write to the shared database) never runs: the
    // turn's wakes wait for review instead (engine/seals.ts).
    const verified = this.#sealer.adapterVerifies(session);
    if (!verified) this.#log.warn(`session ${sessionId}: adapter ${UNSEALED_ADAPTER}`);
    const delivering: Promise<DeliveryOutcome> = verified
      ? push.deliver(session.adapter, turn, {
          signal: controller.signal,
          webhookSecret: session.webhookSecret,
          secrets,
          cwd: session.root ?? homedir(),
        })
      : Promise.resolve({ ok: false, retry: false, error: UNSEALED_ADAPTER, output: null });
    const finished = delivering
      .catch(
        (error: unknown): DeliveryOutcome => ({ ok: false, retry: true, error: toError(error).message, output: null }),
      )
      .then((outcome) => this.#finishTurn(sessionId, controller, claimed.rows, outcome));
    inBackground(this.#log, `recording turn ${claimed.turn} of session ${sessionId}`, finished);
  }

  async #finishTurn(
    sessionId: string,
    controller: AbortController,
    rows: RawWake[],
    outcome: DeliveryOutcome,
  ): Promise<void> {
    try {
      // The database away (team mode, a restart): the outcome is known only here, so it is written
      // once the database is back, within the lease; else the lease would call the wake interrupted.
      for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, RECORD_RETRY_CAP_MS)) {
        try {
          // Stopping the daemon aborts a turn: its lease decides after the restart, never a blind repeat.
          if (this.#stopped || !(await this.#store.tables.sessions.get(sessionId))) return;
          const now = this.#now();
          await this.#store.tx((t) =>
            recordTurnOutcome(t, rows, outcome, { now, policy: this.#policy, shield: this.#shield }),
          );
          break;
        } catch (error) {
          if (this.#stopped || unreachableText(error) === null) throw error;
          await sleep(waitMs, undefined, { signal: this.#stopping.signal });
        }
      }
    } finally {
      // Out of flight once its wakes are recorded: a pull in between would take a turn beside it.
      this.#land(sessionId, controller);
    }
    const level = outcome.ok ? "info" : "warn";
    this.#log[level](`turn of session ${sessionId}: ${outcome.ok ? "delivered" : outcome.error}`);
    this.#changes.emit(sessionId);
  }

  /** The session's turn is over (or never began): its next one may start. */
  #land(sessionId: string, controller: AbortController): void {
    if (this.#inFlight.get(sessionId) === controller) this.#inFlight.delete(sessionId);
  }
}
