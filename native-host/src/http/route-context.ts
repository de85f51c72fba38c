/**
 * What a route handler sees and answers, and the services the routes call (built by the
 * composition root; the HTTP layer declares only what it uses).
 * Design: docs/design.md §7.
 */
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import type { RouteName } from "../../../shared/api-routes.js";
import type { StatusView } from "../../../shared/schemas/views.js";
import type { Logger } from "../base/log.js";
import type { BrowserLink } from "../browser/link.js";
import type { Waitpoints } from "../core/waitpoints.js";
import type { Delivery } from "../delivery/delivery.js";
import type { Devices } from "../devices/devices.js";
import type { Engine } from "../engine/engine.js";
import type { NotifyChannels } from "../notify/channels-admin.js";
import type { Shield } from "../secrets/shield.js";
import type { Vault } from "../secrets/vault.js";
import type { Engine as Store } from "../store/engine.js";

export interface ApiServices {
  /** Read by the panel route's filtered, paged queries (store/panel.ts). */
  store: Store;
  engine: Engine;
  delivery: Delivery;
  waitpoints: Waitpoints;
  vault: Vault;
  browser: BrowserLink;
  devices: Devices;
  /** Needs-you notification channels (issue #40). */
  notify: NotifyChannels;
  shield: Shield;
  log: Logger;
  /** This daemon among the hosts of its database (team mode). */
  host: { id: string; name: string };
  /** The daemon's clock (on a shared database, the database's: engine/host.ts `DatabaseClock`). */
  now: () => number;
  /** Team mode: the link to the other hosts (set once it is started; none on SQLite). */
  team?: { status(): NonNullable<StatusView["team"]> };
}

export interface RouteContext {
  req: IncomingMessage;
  params: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
  /** Aborted when the client goes away (ends long-polls early). */
  signal: AbortSignal;
  /** Reads and validates the JSON body (a bad body is a 400 naming the field). */
  body<T>(schema: z.ZodType<T>, limitBytes?: number): Promise<T>;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** Extra response headers (a signal over its budget: `Retry-After`). */
  headers?: Record<string, string>;
}

export type Handler = (context: RouteContext) => Promise<Reply> | Reply;

/** Registers the handler of one route of the table (shared/api-routes.ts); each exactly once. */
export interface Routes {
  on(name: RouteName, handler: Handler): void;
}
