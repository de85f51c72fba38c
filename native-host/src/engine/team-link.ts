/**
 * Team mode's cross-host link (#27, design.md §9.1): what changes on one daemon is heard by the
 * others at once. A daemon on PostgreSQL listens on `vigil_all` (a dedicated connection,
 * `store/pg/notifications.ts`) and, after each commit that changed sessions, sends their ids there
 * (`change`, ids only, packed under 8 KB). A daemon that hears another's `change` tells its own
 * listeners (long-polls, the side panel, delivery: a signal taken by B for a session of A wakes A's
 * delivery) and has its check scheduler look again (a monitor armed through B for a session of A).
 * Sessions that only took progress reports are sent as `progress`: heard by what shows them, with
 * no look of the schedulers (core/changes.ts).
 * A notification is a hint, never the data: one that is lost (a daemon killed between its commit
 * and its NOTIFY, a listening connection down) is made up by the resync after a reconnect and by
 * every host's heartbeat, which has the schedulers look again (engine/host.ts).
 */
import type pg from "pg";
import type { StatusView } from "../../../shared/schemas/views.js";
import { inBackground, type Logger, toError } from "../base/log.js";
import type { ChangeKind, Changes } from "../core/changes.js";
import { Listener, type Notice, notify } from "../store/pg/notifications.js";

export const TEAM_CHANNEL = "vigil_all";

/**
 * Changes are gathered this long before they are sent, and notices heard this long before the
 * schedulers look again: under a stream of signals each host sends and acts on at most a couple of
 * hundred notices a second, not one per commit, for a few ms more latency.
 */
const GATHER_MS = 5;
/** Notices heard in this window cost the check scheduler one look. */
export const LOOK_MS = 20;

export type TeamLinkStatus = NonNullable<StatusView["team"]>;

export interface TeamLinkOptions {
  url: string;
  pool: pg.Pool;
  hostId: string;
  changes: Changes;
  log: Logger;
  /** Something may be due or deliverable that this daemon did not see change: look again. */
  lookAgain: () => void;
}

export class TeamLink {
  readonly #listener: Listener;
  #heard = 0;
  /** A look of the schedulers is set for the end of this gathering window. */
  #looking = false;
  #sent = 0;
  /** Sessions to tell the others of, each with what changed (`any` over `progress`). */
  readonly #queued = new Map<string, ChangeKind>();
  #flushing = false;
  #stopped = false;
  readonly #off: () => void;

  constructor(private readonly options: TeamLinkOptions) {
    this.#listener = new Listener({
      url: options.url,
      channels: [TEAM_CHANNEL],
      onNotice: (_channel, notice) => this.#onNotice(notice),
      onResync: () => {
        options.log.info("team link: listening again; looking for what changed meanwhile");
        options.lookAgain();
        // Notices sent while it was not listening are gone: every long-poll here looks again.
        options.changes.wakeWaiters();
      },
      onState: (state, error) => {
        if (state === "reconnecting") {
          options.log.warn(`team link: the listening connection was lost (${toError(error).message}); reconnecting`);
        }
      },
    });
    this.#off = options.changes.on((sessionId, origin, kind) => {
      if (origin !== "remote") this.#send(sessionId, kind);
    });
  }

  start(): Promise<void> {
    return this.#listener.start();
  }

  /** For `vigil status`: whether it listens, and how many notices it heard from other hosts and sent. */
  status(): TeamLinkStatus {
    return { link: this.#listener.state, heard: this.#heard, sent: this.#sent };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#off();
    await this.#listener.stop();
  }

  /** Sessions changed here (their rows are committed): the other hosts hear of them within GATHER_MS. */
  #send(sessionId: string, kind: ChangeKind): void {
    if (this.#stopped) return;
    if (this.#queued.get(sessionId) !== "any") this.#queued.set(sessionId, kind);
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => inBackground(this.options.log, "telling the other hosts", this.#flush()), GATHER_MS);
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queued.size > 0 && !this.#stopped) {
        const queued = [...this.#queued];
        this.#queued.clear();
        for (const [notice, kind] of [
          ["change", "any"],
          ["progress", "progress"],
        ] as const) {
          const sessions = queued.filter(([, what]) => what === kind).map(([id]) => id);
          // The first id names the sender, so it skips its own notice; session ids are at most 128
          // characters, so 50 of them stay well under the payload limit in one notice.
          for (let i = 0; i < sessions.length; i += 50) {
            await notify(this.options.pool, TEAM_CHANNEL, notice, [this.options.hostId, ...sessions.slice(i, i + 50)]);
            this.#sent++;
          }
        }
        if (this.#queued.size > 0) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      }
    } catch (error) {
      // Not fatal: the other hosts' heartbeats make them look again within HEARTBEAT_MS.
      this.options.log.warn(`team link: telling the other hosts failed: ${toError(error).message}`);
    } finally {
      this.#flushing = false;
    }
  }

  #onNotice(notice: Notice): void {
    if (notice.kind !== "change" && notice.kind !== "progress") return;
    const [from, ...sessions] = notice.ids;
    if (from === this.options.hostId) return;
    this.#heard++;
    const kind: ChangeKind = notice.kind === "change" ? "any" : "progress";
    for (const id of sessions) if (typeof id === "string") this.options.changes.emit(id, "remote", kind);
    if (kind === "progress" || this.#looking) return;
    this.#looking = true;
    setTimeout(() => {
      this.#looking = false;
      if (!this.#stopped) this.options.lookAgain();
    }, LOOK_MS);
  }
}
