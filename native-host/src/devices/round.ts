/**
 * One collection round on a device (design.md §5): LIST its spool, store each signal durably with
 * the file's name in the same transaction, then ACT: remove what was taken, park what was refused,
 * and note the removals the device confirmed. A name already stored is removed, never applied
 * again, so a crash between storing and removing cannot apply a file twice. VIGIL_FAULT kills the
 * daemon (as kill -9 would) after LIST or after storing, for the tests that prove it.
 */
import type { SignalBody } from "../../../shared/schemas/inputs.js";
import { envConfig } from "../base/config.js";
import type { Logger } from "../base/log.js";
import type { SignalOrigin, SignalOutcome } from "../core/waitpoints.js";
import { isDeferred, isTaken, parseSignalFile } from "../intake/spool.js";
import type { Engine } from "../store/engine.js";
import type { SignalVia } from "../store/waitpoints.js";
import { ACT_SCRIPT, type Action, encodeActions, LIST_SCRIPT, parseActed, parseListing } from "./listing.js";

export interface RoundDeps {
  store: Engine;
  log: Logger;
  now: () => number;
  signal: (body: SignalBody, via: SignalVia, origin: SignalOrigin) => Promise<SignalOutcome>;
  /** The device's name. */
  device: string;
  /** The device's id (made when it was added): what its waitpoints are bound to. */
  deviceId: string;
  /** Runs a fixed script on the device: its stdout, or an error saying what it was `doing`. */
  exec: (doing: string, script: string, input: string) => Promise<Buffer>;
}

/** Tests only (VIGIL_FAULT): dies as under kill -9 at this step of a round. */
function fault(step: "device-listed" | "device-stored"): void {
  if (envConfig().VIGIL_FAULT === step) process.kill(process.pid, "SIGKILL");
}

/** One round. Returns how many actions it took on the device (files removed or parked). */
export async function collectRound(deps: RoundDeps): Promise<number> {
  const { store, now, device } = deps;
  const { entries, unsafe } = parseListing(await deps.exec("listing its spool", LIST_SCRIPT, ""));
  if (unsafe > 0) deps.log.warn(`device ${device}: left ${unsafe} file(s) with unusual names alone`);
  if (entries.length > 0) fault("device-listed");
  const actions: Action[] = [];
  let stored = 0;
  for (const entry of entries) {
    if (entry.kind === "refused") {
      actions.push({ op: "bad", name: entry.name, reason: entry.reason });
      continue;
    }
    const { action, isNew } = await take(deps, entry.name, entry.bytes);
    if (isNew) stored += 1;
    if (action) actions.push(action);
  }
  if (stored > 0) fault("device-stored");
  if (actions.length > 0) {
    const acted = await deps.exec("removing collected files", ACT_SCRIPT, encodeActions(actions));
    const gone = parseActed(acted, actions.length);
    const removed = actions.filter((action, i) => action.op === "rm" && gone[i]).map((action) => action.name);
    if (removed.length > 0) await store.tx((t) => t.devices.markRemoved(device, removed, now()));
    const left = gone.filter((isGone) => !isGone).length;
    if (left > 0) throw new Error(`${left} file(s) could not be removed from the device's spool (its permissions?)`);
  }
  await store.tables.devices.setCollectedAt(deps.deviceId, now());
  return actions.length;
}

/** Stores one file's signal (or finds it already stored): what to do with the file on the device. */
async function take(deps: RoundDeps, name: string, bytes: Buffer): Promise<{ action?: Action; isNew: boolean }> {
  const { store, now, device, deviceId } = deps;
  if (await store.tables.devices.isCollected(device, name)) return { action: { op: "rm", name }, isNew: false };
  const parsed = parseSignalFile(bytes.toString("utf8"));
  if ("refused" in parsed) return { action: { op: "bad", name, reason: parsed.refused }, isNew: false };
  const outcome = await deps.signal({ ...parsed.body, key: `device:${deviceId}:${name}` }, "device", {
    device: { id: deviceId, name: device },
    inTx: async (result, t) => {
      if (isTaken(result)) await t.devices.markCollected(device, name, now());
    },
  });
  if (isTaken(outcome)) {
    deps.log.info(`device ${device}: collected ${name} (${outcome.verdict})`);
    return { action: { op: "rm", name }, isNew: true };
  }
  // Over the waitpoint's signal budget: the file stays on the device for a later round.
  if (isDeferred(outcome)) return { isNew: false };
  return { action: { op: "bad", name, reason: `${outcome.verdict}: ${String(outcome.body.error)}` }, isNew: false };
}
