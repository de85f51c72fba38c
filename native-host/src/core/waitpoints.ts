/**
 * Waitpoints (design.md §5): an id + one-time secret that an outside job signals when it is done.
 * A waitpoint is a monitor of kind `signal`: same work record, states, wakes and views. Its
 * trigger's next_due_at is when a pending wake goes out (3 s barrier settle, or the hourly cap).
 */
import { hash as digest, randomBytes, timingSafeEqual } from "node:crypto";
import type { SignalBody, WaitCreate } from "../../../shared/schemas/inputs.js";
import type { SignalSource } from "../../../shared/schemas/sources.js";
import type { WaitpointView } from "../../../shared/schemas/views.js";

export type { WaitpointView };

import type { ResolvedSettings } from "../base/config.js";
import { ValidationError } from "../base/errors.js";
import type { Tables } from "../store/engine.js";
import type { MonitorRecord } from "../store/monitors.js";
import { unreachableText } from "../store/unreachable.js";
import type { SignalTarget, SignalTargets, SignalVia, WaitpointRow } from "../store/waitpoints.js";
import { deadlineNotice, HOUR_MS } from "./barrier.js";
import type { Changes } from "./changes.js";
import type { EndingDeps } from "./endings.js";
import { GroupCommit } from "./group-commit.js";
import { type HowToSignal, howToSignal } from "./how-to-signal.js";
import { monitorOrThrow, sessionOrThrow } from "./lookup.js";
import { MISS_BUDGET, MissBudget, UNKNOWN_IDS } from "./miss-budget.js";
import {
  keyOfSignal,
  ONE_SIGNAL,
  openBatch,
  readBatch,
  type SignalBatch,
  settling,
  TargetCache,
} from "./signal-batch.js";
import { type BudgetTakes, SignalBudget, signalBudgetOf } from "./signal-budget.js";
import { sameProof, signalProof } from "./signal-proof.js";
import { isActive } from "./states.js";
import { settleInTx, toBarrier } from "./waitpoint-firing.js";
import { waitpointView, waitpointViews } from "./waitpoint-view.js";

export const RESOLVED_KEPT_MS = 3 * 24 * HOUR_MS;
const MESSAGE_CAP = 2000;
const DATA_CAP = 16_000;

export interface WaitpointDeps extends EndingDeps {
  changes: Changes;
  now: () => number;
  /** The scheduler: a trigger's due time changed. */
  poke: () => void;
  settings: ResolvedSettings;
  /** How a job reaches this daemon: the CLI command, the signal URL, the spool folder. */
  target: () => { command: string; url: string; spoolDir: string };
  /** This daemon's host: the owner's word (no secret) counts for its sessions' waitpoints only (#37). */
  hostId?: string;
}

/**
 * What became of one signal: accepted (or a duplicate key, also accepted), or refused because the
 * id is unknown, the secret is wrong, the waitpoint already ended, or the member is not one of its
 * members; or, over HTTP, a miss while its miss budget is spent (`too_many_misses`). The HTTP layer
 * maps each to a status code; the spool to keep-or-park.
 */
export type SignalVerdict =
  | "accepted"
  | "unknown"
  | "wrong_secret"
  | "ended"
  | "not_a_member"
  | "too_many_misses"
  | "too_many_signals"
  | "wrong_device";

/**
 * Where a signal came from besides its channel: a device's spool file names its device (such a
 * file resolves only waitpoints created for that device), and `inTx` runs inside the transaction
 * that stores the signal (the collector remembers the file's name there).
 */
export interface SignalOrigin {
  /** The device the file came from: its id (what the waitpoint was bound to) and its name. */
  device?: { id: string; name: string };
  inTx?: (outcome: SignalOutcome, t: Tables) => Promise<void> | void;
  /**
   * The owner sent it — over the owner-only API socket, or as a file in the 0700 home's spool — so
   * no secret is needed (one that is given is still checked). Never set for TCP or a device.
   */
  owner?: boolean;
}

/** A signal as it arrives: without a secret only from the owner (`SignalOrigin.owner`). */
export type SignalInput = Omit<SignalBody, "secret"> & { secret?: string; nonce?: string; proof?: string };

export interface SignalOutcome {
  verdict: SignalVerdict;
  body: Record<string, unknown>;
  /** The owning session, for an accepted signal (not sent to the signaller). */
  session?: string;
  /** An unknown id or a wrong secret: counts toward the miss budget. */
  miss?: boolean;
  /** It may have moved its trigger's due time (a wake, a settle, a stall check): the scheduler looks again. */
  settled?: boolean;
  /** `too_many_signals`: when the waitpoint takes one again (HTTP `Retry-After`, in whole seconds). */
  retryAfterSeconds?: number;
  /** A signal sent with a proof that held: the stored sha256(secret), hex, that signs the answer. */
  proofKey?: string;
}

/** A signal whose key a stored signal holds: accepted, nothing stored again. */
const duplicateOf = (id: string): SignalOutcome => ({
  verdict: "accepted",
  body: { accepted: true, duplicate: true, id },
});

/** sha256 of a secret; the one-shot form costs half of a Hash object, once per signal. */
const hash = (secret: string) => digest("sha256", secret, "buffer");

/** Whether the signal holds the secret whose sha256 is `secretHash`: the secret itself, or a proof made with it. */
function holds(body: SignalInput, secretHash: Buffer): boolean {
  if (body.proof !== undefined && body.nonce !== undefined) {
    return sameProof(body.proof, signalProof(secretHash, { ...body, nonce: body.nonce }));
  }
  return timingSafeEqual(hash(body.secret ?? ""), secretHash);
}
const cap = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} …[cut at ${max} characters]` : text;

/** Whether a session is this host's (or of no host yet: made before hosts, adopted at start). */
async function isSessionOf(t: Tables, sessionId: string, hostId: string | undefined): Promise<boolean> {
  const owner = (await t.sessions.get(sessionId))?.hostId ?? null;
  return hostId === undefined || owner === null || owner === hostId;
}

export class Waitpoints {
  readonly #misses: MissBudget;
  readonly #budget: SignalBudget;
  /** Keys whose over-budget misses are not logged again until then (one line per window). */
  readonly #quietUntil = new Map<string, number>();

  constructor(private readonly deps: WaitpointDeps) {
    this.#misses = new MissBudget(deps.now);
    this.#budget = new SignalBudget(deps.now, signalBudgetOf(deps.settings.waitpointSignalsPerMinute));
    this.#group = new GroupCommit<SignalInput, SignalOutcome>((bodies) => this.#commitBatch(bodies), {
      isolate: (error) => unreachableText(error) === null,
      // SQLite runs one transaction at a time anyway; PostgreSQL overlaps a commit's WAL flush.
      concurrency: this.deps.store.engine === "postgres" ? this.deps.settings.databaseCommitsInFlight : 1,
    });
  }

  // ------------------------------------------------------------------ wait_create / check / cancel

  async create(
    sessionId: string,
    input: WaitCreate,
  ): Promise<{ id: string; secret: string; state: "armed"; how_to_signal: HowToSignal }> {
    const { store, now: clock, settings } = this.deps;
    await sessionOrThrow(store.tables, sessionId);
    const device = input.device ?? null;
    const deviceId = device === null ? null : ((await store.tables.devices.byName(device))?.id ?? null);
    if (device !== null && deviceId === null) {
      const known = (await store.tables.devices.all()).map((d) => d.name);
      throw new ValidationError(
        `device: Unknown device "${device}"; ${known.length > 0 ? `known devices: ${known.join(", ")}` : "no devices yet (add one with vigil devices add NAME --ssh [USER@]HOST)"}`,
      );
    }
    const members = input.members ?? null;
    const quorum = input.quorum === "all" || input.quorum === undefined ? (members ? members.length : 1) : input.quorum;
    if (input.quorum === "all" && !members)
      throw new ValidationError('quorum: Expected a number, or "all" together with members');
    const source: SignalSource = {
      kind: "signal",
      members,
      quorum,
      failFast: input.fail_fast ?? true,
      maxSignals: input.max_signals ?? 1,
    };
    const timeoutMs =
      input.expires_in_hours === undefined ? settings.waitpointTtlMs : Math.round(input.expires_in_hours * HOUR_MS);
    const id = `wp_${randomBytes(6).toString("hex")}`;
    const secret = randomBytes(24).toString("hex");
    const heartbeatTimeoutMs =
      input.heartbeat_timeout_seconds === undefined ? null : Math.round(input.heartbeat_timeout_seconds * 1000);
    const now = clock();
    await store.tx(async (t) => {
      const uid = await t.monitors.insert({
        sessionId,
        id,
        name: input.label,
        kind: "signal",
        source,
        continuation: input.intent,
        intervalMs: null,
        timeoutMs,
        createdAt: now,
        mode: "signal",
        nextDueAt: null,
        deadlineAt: now + timeoutMs,
      });
      await t.waitpoints.insert({
        monitorUid: uid,
        id,
        secretHash: hash(secret).toString("hex"),
        members,
        quorum,
        failFast: source.failFast,
        maxSignals: source.maxSignals,
        heartbeatTimeoutMs,
        device,
        deviceId,
      });
      // The trigger's due time doubles as the stall check.
      if (heartbeatTimeoutMs !== null) await t.monitors.setNextDue(uid, now + heartbeatTimeoutMs);
    });
    this.deps.changes.emit(sessionId);
    this.deps.poke();
    const lines = howToSignal({
      id,
      secret,
      members,
      heartbeatSeconds: input.heartbeat_timeout_seconds,
      device,
      ...this.deps.target(),
    });
    return { id, secret, state: "armed", how_to_signal: lines };
  }

  async list(sessionId: string): Promise<WaitpointView[]> {
    const { tables } = this.deps.store;
    await sessionOrThrow(tables, sessionId);
    const records = (await tables.monitors.list(sessionId)).filter((record) => record.kind === "signal");
    return [...(await this.views(records)).values()];
  }

  /** Only the owning session sees its waitpoints: another session's id is unknown here. */
  record(sessionId: string, id: string): Promise<MonitorRecord> {
    return monitorOrThrow(this.deps.store.tables, sessionId, id, "waitpoint");
  }

  view(record: MonitorRecord): Promise<WaitpointView> {
    return waitpointView(this.deps, record);
  }

  /** The views of many waitpoints at once (the side panel's page), by monitor uid. */
  views(records: readonly MonitorRecord[]): Promise<Map<number, WaitpointView>> {
    return waitpointViews(this.deps, records);
  }

  // ------------------------------------------------------------------ signals

  /** Accepts one signal (from the route, the spool or a device). The secret is the capability. */
  async signal(body: SignalInput, via: SignalVia, origin: SignalOrigin = {}): Promise<SignalOutcome> {
    const outcome = this.#budgeted(
      body,
      via,
      await this.#budgetedTx(async (t, takes) => {
        const result = await this.#signalInTx(t, takes, body, via, origin);
        await origin.inTx?.(result, t);
        return result;
      }),
    );
    if (outcome.verdict === "accepted" && outcome.session)
      this.#afterAccepted(new Map([[outcome.session, outcome.settled === true]]));
    return outcome;
  }

  /**
   * The route's path: signals that arrive while a commit runs share the next transaction (group
   * commit, both engines), and each answer is sent only after the commit that holds it, so a 202
   * still survives kill -9. A batch that fails for one signal's sake is committed signal by signal.
   */
  readonly #group: GroupCommit<SignalInput, SignalOutcome>;
  readonly #targetCache = new TargetCache();

  signalBatched(body: SignalInput): Promise<SignalOutcome> {
    return this.#group.submit(body);
  }

  /**
   * Stores a batch and answers each signal; `kept`: it was answered on the daemon's kept read of its
   * waitpoints (`mayKeep`, TargetCache) rather than a read of its own.
   */
  async #storeBatch(
    bodies: readonly SignalInput[],
    mayKeep: boolean,
  ): Promise<{ outcomes: SignalOutcome[]; kept: boolean }> {
    const store = this.deps.store;
    const inBatch = (read?: SignalTargets) => async (t: Tables, takes: BudgetTakes) => {
      const batch = bodies.length === 1 && read === undefined ? ONE_SIGNAL : await openBatch(t, bodies, read);
      const out: SignalOutcome[] = [];
      for (const body of bodies) out.push(await this.#signalInTx(t, takes, body, "http", {}, batch));
      await batch.flush(t);
      // A report the write left out (a stored signal held its key) is a duplicate: nothing stored,
      // its budget token given back.
      return out.map((outcome, i): SignalOutcome => {
        const body = bodies[i] as SignalInput;
        if (outcome.verdict !== "accepted" || outcome.settled !== false) return outcome;
        if (!batch.heldAtWrite(body.id, keyOfSignal(body))) return outcome;
        takes.giveBack(body.id, "progress");
        return { ...duplicateOf(body.id), ...(outcome.proofKey === undefined ? {} : { proofKey: outcome.proofKey }) };
      });
    };
    // On PostgreSQL a batch of plain progress reports is two autocommit statements — one read, one
    // all-or-nothing write (store/pg/waitpoints.ts RECORD_SIGNALS) — instead of five with BEGIN and
    // COMMIT: the transaction would add nothing, its reads take no locks. Each round trip costs the
    // daemon and the server more than a signal in the batch does (bench/signal-path-pg.js). Where a
    // signal may settle its waitpoint, the batch runs in a transaction on the same read.
    // Reports to waitpoints this daemon has read before skip the read: the write alone
    // (signal-batch.ts TargetCache: it checks that each is still armed, and their keys).
    let read: SignalTargets | undefined;
    if (store.engine === "postgres" && bodies.every((body) => body.status === "progress")) {
      const kept = mayKeep ? this.#targetCache.read(bodies) : undefined;
      try {
        const outcomes = await this.#budgetedTx<SignalOutcome[] | undefined>(
          async (t, takes) => {
            read = kept ?? (await readBatch(t, bodies));
            if (kept === undefined) this.#targetCache.remember(read);
            return settling(bodies, read).size > 0 ? undefined : inBatch(read)(t, takes);
          },
          (body) => body(store.tables),
        );
        if (outcomes !== undefined) return { outcomes, kept: kept !== undefined };
      } catch (error) {
        if (unreachableText(error) !== null) throw error;
        // A waitpoint ended since it was read (another daemon, this one's other commit in flight, its
        // owner), a key was stored by a batch in flight, or a deadlock: nothing was written, and the
        // transaction below reads them locked (a signal alone: its waitpoint) and answers each
        // signal as it should.
        this.#targetCache.forget(bodies.map((body) => body.id));
        read = undefined;
      }
    }
    return { outcomes: await this.#budgetedTx(inBatch(read)), kept: false };
  }

  async #commitBatch(bodies: readonly SignalInput[]): Promise<SignalOutcome[]> {
    const { outcomes: committed, kept } = await this.#storeBatch(bodies, true);
    if (kept) {
      // A refusal on a kept read is given again after a read: what a report is refused for may
      // depend on what the kept read does not know (an ended or removed waitpoint, a key stored
      // before that took no budget token). Refusals are rare; accepted reports are stored already,
      // so if this fails the refusals stand (the batch must not fail: it would be stored again).
      const refused = bodies.flatMap((_body, i) => (committed[i]?.verdict === "accepted" ? [] : [i]));
      if (refused.length > 0) {
        const again = await this.#storeBatch(
          refused.map((i) => bodies[i] as SignalInput),
          false,
        ).catch(() => undefined);
        refused.forEach((i, j) => {
          committed[i] = again?.outcomes[j] ?? (committed[i] as SignalOutcome);
        });
      }
    }
    // One change notice per session and at most one scheduler poke for the whole batch.
    const sessions = new Map<string, boolean>();
    const outcomes = bodies.map((body, i) => {
      const outcome = this.#budgeted(body, "http", committed[i] as SignalOutcome);
      if (outcome.verdict === "accepted" && outcome.session)
        sessions.set(outcome.session, sessions.get(outcome.session) === true || outcome.settled === true);
      return outcome;
    });
    this.#afterAccepted(sessions);
    return outcomes;
  }

  /**
   * A transaction that stores signals: the budget tokens an attempt took are given back when it
   * rolls back, or before the store runs it again (a deadlock on PostgreSQL), so that a signal is
   * counted once, by the attempt that commits it. `run` runs it (the store's `tx`, or on the tables
   * outside one for a batch whose one write is all or nothing).
   */
  async #budgetedTx<R>(
    body: (t: Tables, takes: BudgetTakes) => Promise<R>,
    run: (body: (t: Tables) => Promise<R>) => Promise<R> = (inTx) => this.deps.store.tx(inTx),
  ): Promise<R> {
    const takes = this.#budget.takes();
    try {
      return await run((t) => {
        takes.undo();
        return body(t, takes);
      });
    } catch (error) {
      takes.undo();
      throw error;
    }
  }

  /**
   * Counts an HTTP miss against its id (unknown ids share one count) and answers it 429 while that
   * count — or the unknown ids' count, so a 401 cannot tell a prober which ids exist — is spent.
   * Only misses are ever limited: a correct secret is accepted whatever others sent. The log gets
   * each miss until the budget is spent, then one line per spent window rather than one per miss.
   */
  #budgeted(body: SignalInput, via: SignalVia, outcome: SignalOutcome): SignalOutcome {
    if (!outcome.miss) return outcome;
    const id = JSON.stringify(body.id.slice(0, 64));
    if (via === "http") {
      const key = outcome.verdict === "unknown" ? UNKNOWN_IDS : body.id;
      const probing = key !== UNKNOWN_IDS && this.#misses.spent(UNKNOWN_IDS);
      const over = this.#misses.note(key);
      if (over || probing) {
        const now = this.deps.now();
        if ((this.#quietUntil.get(key) ?? 0) <= now) {
          for (const [k, until] of this.#quietUntil) if (until <= now) this.#quietUntil.delete(k);
          this.#quietUntil.set(key, now + MISS_BUDGET.windowMs);
          const who = key === UNKNOWN_IDS ? "unknown ids" : id;
          this.deps.log.warn(`signal misses over budget for ${who}: further misses answered 429, logged once a minute`);
        }
        return {
          verdict: "too_many_misses",
          body: { error: "Too many unknown ids or wrong secrets in the last minute; try again later" },
          miss: true,
        };
      }
    }
    this.deps.log.warn(`signal refused (${outcome.verdict}) for ${id} via ${via}: ${outcome.body.error}`);
    return outcome;
  }

  /**
   * Views and long-polls hear of every accepted signal; the scheduler, delivery and notifications
   * only when one may have moved a due time or made a wake — a plain progress report (no heartbeat
   * timeout) never does (`progress` changes, core/changes.ts): under a stream of them their looks
   * were two of a batch's four statements on PostgreSQL. `sessions`: whether one of each session's
   * signals settled its waitpoint.
   */
  #afterAccepted(sessions: ReadonlyMap<string, boolean>): void {
    let settled = false;
    for (const [session, settles] of sessions) {
      this.deps.changes.emit(session, "local", settles ? "any" : "progress");
      settled ||= settles;
    }
    if (settled) this.deps.poke();
  }

  async #signalInTx(
    t: Tables,
    takes: BudgetTakes,
    body: SignalInput,
    via: SignalVia,
    origin: SignalOrigin = {},
    batch: SignalBatch = ONE_SIGNAL,
  ): Promise<SignalOutcome> {
    // Without a secret only the owner is heard; anyone else's missing secret is simply wrong.
    const wp = await batch.target(t, body.id);
    // …and only for this host's waitpoints: another host's owner needs the secret like anyone (#37).
    const trusted =
      body.secret === undefined &&
      body.proof === undefined &&
      origin.owner === true &&
      (wp === undefined || (await isSessionOf(t, wp.sessionId, this.deps.hostId)));
    const holdsSecret = (secretHash: string) => trusted || holds(body, Buffer.from(secretHash, "hex"));
    const removed = wp ? undefined : await t.waitpoints.tombstoneOf(body.id);
    if (removed !== undefined && holdsSecret(removed)) {
      // It existed and the caller holds its secret: the owner removed the session. Gone, not a miss.
      return {
        verdict: "ended",
        body: { error: `Waitpoint ${body.id} was removed with its session`, state: "removed" },
        ...(body.proof === undefined ? {} : { proofKey: removed }),
      };
    }
    if (!wp)
      return {
        verdict: "unknown",
        body: { error: `Unknown waitpoint ${body.id} (never armed, or purged 3 days after it resolved)` },
        miss: true,
      };
    if (!holdsSecret(wp.secretHash)) {
      const what = body.proof === undefined ? "secret" : "proof (not made with its secret, or the signal was altered)";
      return { verdict: "wrong_secret", body: { error: `Wrong ${what} for waitpoint ${wp.id}` }, miss: true };
    }
    // A proven signal's answer is signed; its nonce is its key when it names none, so a captured
    // proof replayed is that same signal's duplicate.
    if (body.proof === undefined) return this.#acceptInTx(t, takes, wp, body, via, origin, batch);
    const proven = { ...body, key: body.key ?? `proof:${body.nonce}` };
    return { ...(await this.#acceptInTx(t, takes, wp, proven, via, origin, batch)), proofKey: wp.secretHash };
  }

  /** The signal's secret (or proof) held: stored, or refused for what the waitpoint is now. */
  async #acceptInTx(
    t: Tables,
    takes: BudgetTakes,
    wp: SignalTarget,
    body: SignalInput,
    via: SignalVia,
    origin: SignalOrigin,
    batch: SignalBatch,
  ): Promise<SignalOutcome> {
    const { shield } = this.deps;
    const { device } = origin;
    // A device's file resolves only that device's waitpoints (HTTP and the local spool: any); a
    // device added again under the same name is another device (another id).
    if (device !== undefined && wp.deviceId !== device.id) {
      const owner =
        wp.device === null
          ? "for this machine"
          : wp.device === device.name
            ? `for an earlier device named ${device.name}, since removed`
            : "for another device";
      return {
        verdict: "wrong_device",
        body: { error: `Waitpoint ${wp.id} was created ${owner}, not for device ${device.name}` },
      };
    }
    if (body.key && (await batch.hasKey(t, wp.monitorUid, body.key))) return duplicateOf(wp.id);
    if (!isActive(wp.state)) {
      const why =
        wp.endingReason === "stopped"
          ? "cancelled"
          : wp.endingReason === "timeout"
            ? "expired"
            : wp.endingReason === "lost"
              ? "orphaned: its device was removed"
              : "already resolved";
      return { verdict: "ended", body: { error: `Waitpoint ${wp.id} is ${why}`, state: why } };
    }
    if (wp.members && (!body.member || !wp.members.includes(body.member))) {
      const got = body.member ? `"${body.member}", which is not one of them` : "no member";
      return {
        verdict: "not_a_member",
        body: {
          error: `Waitpoint ${wp.id} names its members (${wp.members.join(", ")}); got ${got}`,
          members: wp.members,
        },
      };
    }
    const kind = body.status === "progress" ? "progress" : "ending";
    const waitMs = takes.take(wp.id, kind);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      const { perMinute, burst } = this.#budget.budget;
      return {
        verdict: "too_many_signals",
        body: {
          error: `Waitpoint ${wp.id} takes at most ${perMinute} ${kind === "progress" ? "progress" : "ok/fail"} signals a minute (bursts of ${burst}); this one was not stored: send it again in ${seconds} s`,
          retryAfterSeconds: seconds,
        },
        retryAfterSeconds: seconds,
      };
    }
    const now = this.deps.now();
    const message = body.message === undefined ? null : cap(shield.text(body.message), MESSAGE_CAP);
    const rawData =
      body.data === undefined ? null : typeof body.data === "string" ? body.data : JSON.stringify(body.data);
    const data = rawData === null ? null : cap(shield.text(rawData), DATA_CAP);
    const member = body.member ?? null;
    const text = `${body.status}${member ? ` from ${member}` : ""}${message ? `: ${message}` : ""}${data ? `\ndata: ${data}` : ""}`;
    const signal = {
      monitorUid: wp.monitorUid,
      key: body.key ?? null,
      status: body.status,
      member,
      message,
      data,
      via,
    };
    // A heartbeat never changes whether the waitpoint fires, only when it would stall.
    const settled = body.status !== "progress" || wp.heartbeatTimeoutMs !== null;
    if (settled) {
      await batch.flush(t);
      await t.waitpoints.recordSignal({ ...signal, receivedAt: now }, text);
      batch.changed(wp.id);
    } else await batch.record(t, { ...signal, receivedAt: now }, text);
    if (body.key) batch.stored(wp.monitorUid, body.key);
    if (settled) await settleInTx(t, this.deps, (await t.monitors.byUid(wp.monitorUid)) as MonitorRecord, now);
    return {
      verdict: "accepted",
      body: { accepted: true, id: wp.id, status: body.status },
      session: wp.sessionId,
      settled,
    };
  }

  // ------------------------------------------------------------------ firing

  /**
   * The scheduler found this waitpoint's trigger due: a settled or held-back wake goes out now.
   * Inside the caller's transaction, on the monitor read again there (and still active).
   */
  fireDueInTx(t: Tables, record: MonitorRecord, now: number): Promise<void> {
    return settleInTx(t, this.deps, record, now);
  }

  /** What the deadline notice says: nobody reported, only some did, or only heartbeats came. */
  async deadlineDetail(t: Tables, record: MonitorRecord): Promise<string> {
    const wp = (await t.waitpoints.byUid(record.uid)) as WaitpointRow;
    return deadlineNotice({
      members: wp.members,
      quorum: wp.quorum,
      all: (await t.waitpoints.signals(record.uid)).map(toBarrier),
      pending: (await t.waitpoints.signalsAfter(record.uid, record.wakedSeq)).map(toBarrier),
      wakesSent: await t.waitpoints.wakeCount(record.uid),
      maxSignals: wp.maxSignals,
      progressDropped: wp.progressDropped,
    });
  }

  /** Ended waitpoints are kept 3 days (a late signal hears "already resolved"), then forgotten. */
  async purge(now: number): Promise<number> {
    const { store } = this.deps;
    await store.tables.waitpoints.pruneTombstones(now - RESOLVED_KEPT_MS);
    const uids = await store.tables.waitpoints.purgeable(now - RESOLVED_KEPT_MS);
    if (uids.length > 0) {
      await store.tx(async (t) => {
        for (const uid of uids) await t.monitors.delete(uid);
      });
    }
    return uids.length;
  }
}
