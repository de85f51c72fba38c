/**
 * A group-committed batch of signals on the store (core/group-commit.ts, #41): what each signal
 * reads before it writes — its waitpoint and whether its key was seen — is read for the whole batch
 * in one statement (a second locks the waitpoints of signals that may settle), and the plain
 * progress reports it accepts (those that move no due time) are written together in one statement
 * at the end, not one round trip each. On PostgreSQL every statement is a round trip, and a batch
 * of plain progress reports is those two statements alone, outside a transaction
 * (core/waitpoints.ts) — or the write alone, when the daemon has read its waitpoints before
 * (`TargetCache`); on SQLite the same calls loop over the rows. The write leaves out a report whose
 * key a stored signal holds (`heldAtWrite`): the batch answers it as a duplicate.
 *
 * What the batch itself changes is kept up to date here: a key it stores is held, a waitpoint a
 * signal may have ended is read again, and the pending reports are written before any signal that
 * settles its waitpoint, so the event log keeps the order of arrival. One signal alone (the spool,
 * a device, the owner's API) reads and writes straight through the tables.
 * Design: docs/design.md §5.
 */
import type { Tables } from "../store/engine.js";
import { keyOf, type NewSignal, type SignalTarget, type SignalTargets } from "../store/waitpoints.js";
import { isActive } from "./states.js";

export interface SignalBatch {
  target(t: Tables, id: string): Promise<SignalTarget | undefined>;
  hasKey(t: Tables, uid: number, key: string): Promise<boolean>;
  /** An accepted signal that moves no due time: written now, or with the rest of the batch. */
  record(t: Tables, signal: NewSignal, text: string): Promise<void>;
  /** Writes what `record` kept back (before a signal that settles, and at the end of the batch). */
  flush(t: Tables): Promise<void>;
  /** The report with this key to this waitpoint was left out by the write: a stored signal held its key. */
  heldAtWrite(id: string, key: string | undefined): boolean;
  /** A signal with this key was stored in this transaction. */
  stored(uid: number, key: string): void;
  /** A signal may have moved this waitpoint's state (ended it): read it again. */
  changed(id: string): void;
}

/** One signal: every read and write goes to the tables. */
export const ONE_SIGNAL: SignalBatch = {
  target: (t, id) => t.waitpoints.target(id),
  hasKey: (t, uid, key) => t.waitpoints.hasKey(uid, key),
  record: async (t, signal, text) => {
    await t.waitpoints.recordSignal(signal, text);
  },
  flush: async () => undefined,
  heldAtWrite: () => false,
  stored: () => undefined,
  changed: () => undefined,
};

type SignalKeys = { id: string; status: string; key?: string | undefined; proof?: string; nonce?: string };

/** The key a signal is deduplicated by: its own, or a proven signal's nonce (core/waitpoints.ts). */
export const keyOfSignal = (body: SignalKeys): string | undefined =>
  body.key ?? (body.proof !== undefined && body.nonce !== undefined ? `proof:${body.nonce}` : undefined);

/**
 * A batch's one read, unlocked: its waitpoints and the keys they already hold. A plain progress
 * report's waitpoint is locked only by the write at the end (`recordSignals`, which writes nothing
 * if one ended meanwhile), so batches of several daemons hold their row locks for one statement
 * and its commit, not for the whole batch.
 */
export function readBatch(t: Tables, bodies: readonly SignalKeys[]): Promise<SignalTargets> {
  return t.waitpoints.signalTargets(bodies.map((body) => ({ id: body.id, key: keyOfSignal(body) })));
}

/**
 * The waitpoints a signal of the batch may settle (ok/fail, or a heartbeat that moves a stall): the
 * batch then runs in a transaction that reads them again locked.
 */
export function settling(bodies: readonly SignalKeys[], read: SignalTargets): Set<string> {
  const ids = new Set(bodies.filter((body) => body.status !== "progress").map((body) => body.id));
  for (const [id, target] of read.targets) if (target.heartbeatTimeoutMs !== null) ids.add(id);
  return ids;
}

/** Waitpoints a daemon keeps what it read of (`TargetCache`): a few MB at most. */
const TARGET_CACHE_SIZE = 8192;

/**
 * Per daemon, on PostgreSQL: what batches' reads found of waitpoints a plain progress report may be
 * accepted for — armed, without a heartbeat timeout (a heartbeat to one may settle it) — so that
 * the next batch of progress reports to them is its write alone, one statement, not two (#41).
 * What a report's answer reads of its waitpoint never changes once it is armed (its monitor, secret
 * hash, session, members, device); whether it is still armed is checked by the write as it locks
 * the monitors (RECORD_SIGNALS writes nothing for a batch with an ended one, and the batch is then
 * read again and answered as it should, core/waitpoints.ts), and whether a key was seen by the
 * write too (`heldAtWrite`). A report refused on a kept read is asked again after a read (it may
 * be refused for what the kept read does not know: its waitpoint removed, its key stored before),
 * so every report is answered as it would be after a read.
 */
export class TargetCache {
  readonly #targets = new Map<string, SignalTarget>();

  /** The batch's read, when each signal is a progress report to a waitpoint kept here; its keys are the write's to check. */
  read(bodies: readonly SignalKeys[]): SignalTargets | undefined {
    const targets = new Map<string, SignalTarget>();
    for (const body of bodies) {
      if (body.status !== "progress") return undefined;
      const target = this.#targets.get(body.id);
      if (target === undefined) return undefined;
      targets.set(body.id, target);
    }
    return { targets, held: new Set() };
  }

  /** Keeps what a read found of armed waitpoints without a heartbeat timeout (the newest last; the oldest go). */
  remember(read: SignalTargets): void {
    for (const [id, target] of read.targets) {
      this.#targets.delete(id);
      if (!isActive(target.state) || target.heartbeatTimeoutMs !== null) continue;
      this.#targets.set(id, target);
      if (this.#targets.size > TARGET_CACHE_SIZE) this.#targets.delete(this.#targets.keys().next().value as string);
    }
  }

  /** These waitpoints are read again next time (a batch's write found one of them ended). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.#targets.delete(id);
  }
}

/**
 * The batch, on its read (`readBatch`; taken here when none is given). The read is copied: a
 * transaction that PostgreSQL runs again after a deadlock starts from it afresh.
 */
export async function openBatch(t: Tables, bodies: readonly SignalKeys[], given?: SignalTargets): Promise<SignalBatch> {
  const read = given ?? (await readBatch(t, bodies));
  const targets = new Map(read.targets);
  const held = new Set(read.held);
  const locking = settling(bodies, read);
  if (locking.size > 0) {
    const locked = await t.waitpoints.targets([...locking]);
    for (const id of locking) {
      const target = locked.get(id);
      if (target === undefined) targets.delete(id);
      else targets.set(id, target);
    }
    // Their keys read again now that they are locked, so a signal another batch stored meanwhile
    // is this one's duplicate rather than a clash.
    const keyed = bodies.filter((body) => locking.has(body.id) && keyOfSignal(body) !== undefined);
    if (keyed.length > 0) {
      for (const body of keyed) {
        const uid = read.targets.get(body.id)?.monitorUid;
        if (uid !== undefined) held.delete(keyOf(uid, keyOfSignal(body) as string));
      }
      for (const key of (await readBatch(t, keyed)).held) held.add(key);
    }
  }
  const askedIds = new Set(bodies.map((body) => body.id));
  const askedKeys = new Set<string>();
  for (const body of bodies) {
    const target = targets.get(body.id);
    const key = keyOfSignal(body);
    if (target !== undefined && key !== undefined) askedKeys.add(keyOf(target.monitorUid, key));
  }
  let pending: Array<{ signal: NewSignal; text: string }> = [];
  /** Keys (`keyOf`) the write found held: their reports were left out. */
  const heldAtWrite = new Set<string>();
  return {
    target: (tables, id) => (askedIds.has(id) ? Promise.resolve(targets.get(id)) : tables.waitpoints.target(id)),
    hasKey: (tables, uid, key) =>
      askedKeys.has(keyOf(uid, key)) ? Promise.resolve(held.has(keyOf(uid, key))) : tables.waitpoints.hasKey(uid, key),
    record: async (_tables, signal, text) => {
      pending.push({ signal, text });
    },
    flush: async (tables) => {
      if (pending.length === 0) return;
      const rows = pending;
      pending = [];
      for (const i of await tables.waitpoints.recordSignals(rows)) {
        const { monitorUid, key } = (rows[i] as (typeof rows)[number]).signal;
        if (key !== null) heldAtWrite.add(keyOf(monitorUid, key));
      }
    },
    heldAtWrite: (id, key) => {
      const uid = read.targets.get(id)?.monitorUid;
      return uid !== undefined && key !== undefined && heldAtWrite.has(keyOf(uid, key));
    },
    stored: (uid, key) => {
      askedKeys.add(keyOf(uid, key));
      held.add(keyOf(uid, key));
    },
    changed: (id) => {
      askedIds.delete(id);
      targets.delete(id);
    },
  };
}
