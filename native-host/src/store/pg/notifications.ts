/**
 * Cross-host notification (team mode, #27): LISTEN on a dedicated connection (a pooled one would
 * be handed to other queries), NOTIFY carrying ids only, well under PostgreSQL's 8,000-byte payload
 * limit. A notification is a hint to look, never the data: it is sent in the transaction that
 * commits the rows (so it arrives after them, and not at all on a rollback), and whenever the
 * listening connection was lost the listener reports a `resync` — notifications sent meanwhile are
 * gone, so the owner scans the tables once. The same `resync` drives the polling fallback used when
 * LISTEN cannot work (a transaction-mode pooler): `probe()` tells the two apart.
 * Not wired into the daemon yet.
 * Design: docs/design.md §6, §9 (team mode gets its own section with #27).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { libpqUrl } from "../../base/database-url.js";

/** PostgreSQL refuses payloads of 8,000 bytes or more; ids are packed below this. */
export const PAYLOAD_LIMIT = 7900;

/** One notification's meaning: what kind of row changed, and which. */
export interface Notice {
  kind: string;
  ids: Array<string | number>;
}

/** Packs ids into as few payloads as fit under PAYLOAD_LIMIT (`{"kind":…,"ids":[…]}` each). */
export function packNotices(kind: string, ids: ReadonlyArray<string | number>): string[] {
  if (!/^[a-z][a-z_]{0,31}$/.test(kind))
    throw new Error(`Expected a notice kind like "wake", got ${JSON.stringify(kind)}`);
  const payloads: string[] = [];
  let batch: Array<string | number> = [];
  let size = 0;
  const overhead = JSON.stringify({ kind, ids: [] }).length;
  for (const id of ids) {
    const item = JSON.stringify(id).length + 1;
    if (overhead + item > PAYLOAD_LIMIT)
      throw new Error(`Expected an id under ${PAYLOAD_LIMIT} bytes, got one of ${item}`);
    if (overhead + size + item > PAYLOAD_LIMIT) {
      payloads.push(JSON.stringify({ kind, ids: batch }));
      batch = [];
      size = 0;
    }
    batch.push(id);
    size += item;
  }
  if (batch.length > 0) payloads.push(JSON.stringify({ kind, ids: batch }));
  return payloads;
}

/** Reads a payload; anything else (another program's NOTIFY on the channel) is null. */
export function parseNotice(payload: string | undefined): Notice | null {
  try {
    const value = JSON.parse(payload ?? "") as Partial<Notice>;
    if (typeof value.kind !== "string" || !Array.isArray(value.ids)) return null;
    return { kind: value.kind, ids: value.ids.filter((id) => typeof id === "string" || typeof id === "number") };
  } catch {
    return null;
  }
}

/** Sends `ids` on `channel` from inside the caller's transaction (delivered at its commit). */
export async function notify(
  client: Pick<pg.ClientBase, "query">,
  channel: string,
  kind: string,
  ids: ReadonlyArray<string | number>,
): Promise<void> {
  for (const payload of packNotices(kind, ids)) await client.query("SELECT pg_notify($1, $2)", [channel, payload]);
}

export type ListenerState = "connecting" | "listening" | "reconnecting" | "stopped";

export interface ListenerOptions {
  url: string;
  channels: string[];
  onNotice: (channel: string, notice: Notice) => void;
  /** The connection was (re)established after a loss: notices may have been missed; scan once. */
  onResync: () => void;
  onState?: (state: ListenerState, error?: unknown) => void;
  /** Backoff between reconnection attempts: doubles from `minMs` to `maxMs` (defaults 100 ms, 5 s). */
  backoff?: { minMs: number; maxMs: number };
  signal?: AbortSignal;
}

export class Listener {
  #client: pg.Client | null = null;
  #state: ListenerState = "connecting";
  #delay: number;
  #timer: NodeJS.Timeout | null = null;
  #everListened = false;
  readonly #probes = new Map<string, () => void>();

  constructor(private readonly options: ListenerOptions) {
    for (const channel of options.channels) {
      if (!/^[a-z][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`Expected a channel like vigil_h1, got ${channel}`);
    }
    this.#delay = options.backoff?.minMs ?? 100;
    options.signal?.addEventListener("abort", () => void this.stop(), { once: true });
  }

  get state(): ListenerState {
    return this.#state;
  }

  /** Connects and listens; resolves once listening, or rejects when the first attempt fails. */
  async start(): Promise<void> {
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#setState("stopped");
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  /**
   * Whether a NOTIFY sent now reaches this listener within `timeoutMs`: false behind a pooler that
   * does not keep LISTEN sessions (then the owner polls instead). Sent on `sender`, another connection.
   */
  async probe(sender: pg.ClientBase, timeoutMs = 2000): Promise<boolean> {
    const channel = this.options.channels[0];
    if (!channel) return false;
    const token = randomBytes(8).toString("hex");
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#probes.delete(token);
        resolve(false);
      }, timeoutMs);
      this.#probes.set(token, () => {
        clearTimeout(timer);
        this.#probes.delete(token);
        resolve(true);
      });
    });
    await notify(sender, channel, "probe", [token]);
    return heard;
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: libpqUrl(this.options.url), keepAlive: true });
    // The one current connection (being made, or listening); events of any other are stale.
    this.#client = client;
    client.on("notification", (message) => {
      const notice = parseNotice(message.payload);
      if (!notice) return;
      if (notice.kind === "probe") {
        for (const id of notice.ids) this.#probes.get(String(id))?.();
        return;
      }
      this.options.onNotice(message.channel, notice);
    });
    client.on("error", (error) => this.#lost(client, error));
    client.on("end", () => this.#lost(client, new Error("the listening connection ended")));
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      if (this.#everListened) {
        this.#lost(client, error);
        return;
      }
      this.#client = null;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#state === "stopped" || this.#client !== client) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#delay = this.options.backoff?.minMs ?? 100;
    const again = this.#everListened;
    this.#everListened = true;
    this.#setState("listening");
    if (again) this.options.onResync();
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#state === "stopped" || this.#client !== client) return;
    this.#client = null;
    client.end().catch(() => undefined);
    this.#setState("reconnecting", error);
    const max = this.options.backoff?.maxMs ?? 5000;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#connect();
    }, this.#delay);
    this.#timer.unref();
    this.#delay = Math.min(max, this.#delay * 2);
  }

  #setState(state: ListenerState, error?: unknown): void {
    if (this.#state === state) return;
    this.#state = state;
    this.options.onState?.(state, error);
  }
}
