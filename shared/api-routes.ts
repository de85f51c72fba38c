/**
 * The daemon's HTTP API as one table: every route's method, path, whether it needs the bearer
 * token, and the types of its body and answer. The server registers its handlers from this table
 * (and refuses to start if one is missing); the one client (native-host/src/api/client.ts) builds
 * every request from it. docs/reference.md's HTTP table lists the same routes (test/meta/readme-reference.test.ts).
 * Design: docs/design.md §7, §11.
 */

import type { z } from "zod";
import type {
  ControlSchema,
  DeviceAddSchema,
  EventPostSchema,
  MonitorCreateSchema,
  OwnerSignalSchema,
  SessionCreateSchema,
  SessionPatchSchema,
  TurnSchema,
  VaultSetSchema,
  WaitCreateSchema,
  WebhookSignalSchema,
} from "./schemas/inputs.js";
import type { Observation, Tab } from "./schemas/native-messages.js";
import type {
  ChannelAdded,
  ChannelView,
  NotifyAddSchema,
  NotifyPatchSchema,
  NotifyTestResult,
  NotifyTestSchema,
} from "./schemas/notify.js";
import type { BrowserObserveSchema } from "./schemas/sources.js";
import type {
  CheckEntry,
  DeviceView,
  HostView,
  MonitorEvent,
  MonitorView,
  PanelPage,
  SessionView,
  StatusView,
  VaultEntry,
  WaitCreated,
  WaitpointView,
  WakeView,
} from "./schemas/views.js";

/** What a caller may send: the schema's input (defaults not yet applied). */
type In<S extends z.ZodType> = z.input<S>;

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface RouteSpec {
  method: HttpMethod;
  path: string;
  /** Reachable without the bearer token. */
  public?: boolean;
  /**
   * A write that concerns the session `:sid`: taken only by the daemon of that session's host,
   * another host answers 409 naming it (team mode, #37; `Engine.checkSessionHost`).
   */
  sessionHost?: true;
  summary: string;
}

/** A route as a refusal names it: `"arm a monitor" (POST /api/sessions/:sid/monitors)`. */
export const routeText = (spec: RouteSpec): string => `"${spec.summary}" (${spec.method} ${spec.path})`;

export const ROUTES = {
  health: { method: "GET", path: "/healthz", public: true, summary: "liveness" },
  status: { method: "GET", path: "/api/status", summary: "what the daemon is doing" },
  panel: {
    method: "GET",
    path: "/api/panel",
    summary:
      "the side panel's list: a page of monitors and waitpoints (?offset=&limit=&filter=&session=&kind=&device=&host=&q=), counts, sessions, hosts, devices and Needs you",
  },
  listSessions: { method: "GET", path: "/api/sessions", summary: "every session" },
  createSession: { method: "POST", path: "/api/sessions", summary: "create a session (or get it, by id)" },
  getSession: { method: "GET", path: "/api/sessions/:sid", summary: "one session" },
  updateSession: { method: "PATCH", path: "/api/sessions/:sid", sessionHost: true, summary: "label or adapter" },
  deleteSession: {
    method: "DELETE",
    path: "/api/sessions/:sid",
    sessionHost: true,
    summary: "delete a session and all it owns",
  },
  setTurn: { method: "POST", path: "/api/sessions/:sid/turn", sessionHost: true, summary: "the agent is busy or idle" },
  listMonitors: { method: "GET", path: "/api/sessions/:sid/monitors", summary: "a session's monitors" },
  createMonitor: { method: "POST", path: "/api/sessions/:sid/monitors", sessionHost: true, summary: "arm a monitor" },
  postEvent: {
    method: "POST",
    path: "/api/sessions/:sid/monitors/events",
    sessionHost: true,
    summary: "post an inbound event",
  },
  getMonitor: { method: "GET", path: "/api/sessions/:sid/monitors/:mid", summary: "one monitor" },
  monitorEvents: { method: "GET", path: "/api/sessions/:sid/monitors/:mid/events", summary: "its event log" },
  monitorChecks: { method: "GET", path: "/api/sessions/:sid/monitors/:mid/checks", summary: "its check log" },
  clearEnded: {
    method: "POST",
    path: "/api/sessions/:sid/monitors/clear-ended",
    sessionHost: true,
    summary: "take the session's ended monitors out of the panel's list (records kept)",
  },
  controlMonitor: {
    method: "POST",
    path: "/api/sessions/:sid/monitors/:mid/control",
    sessionHost: true,
    summary: "pause, resume or cancel",
  },
  listWakes: { method: "GET", path: "/api/sessions/:sid/wakes", summary: "a session's wakes" },
  claimWakes: {
    method: "POST",
    path: "/api/sessions/:sid/wakes/claim",
    sessionHost: true,
    summary: "take ready wakes (inbox)",
  },
  waitReady: {
    method: "GET",
    path: "/api/sessions/:sid/wakes/ready",
    summary: "how many wakes are ready (waits up to ?wait= s for one; takes nothing)",
  },
  getWake: { method: "GET", path: "/api/sessions/:sid/wakes/:wid", summary: "one wake" },
  retryWake: {
    method: "POST",
    path: "/api/sessions/:sid/wakes/:wid/retry",
    sessionHost: true,
    summary: "send a wake in review again",
  },
  dismissWake: {
    method: "POST",
    path: "/api/sessions/:sid/wakes/:wid/dismiss",
    sessionHost: true,
    summary: "set aside a wake in review or being retried: never delivered",
  },
  findWake: { method: "GET", path: "/api/wakes/:wid", summary: "one wake by its id alone (wake ids are global)" },
  listWaitpoints: { method: "GET", path: "/api/sessions/:sid/waitpoints", summary: "a session's waitpoints" },
  createWaitpoint: {
    method: "POST",
    path: "/api/sessions/:sid/waitpoints",
    sessionHost: true,
    summary: "arm a waitpoint",
  },
  getWaitpoint: { method: "GET", path: "/api/sessions/:sid/waitpoints/:wid", summary: "one waitpoint" },
  cancelWaitpoint: {
    method: "DELETE",
    path: "/api/sessions/:sid/waitpoints/:wid",
    sessionHost: true,
    summary: "cancel a waitpoint",
  },
  signal: { method: "POST", path: "/webhook/signal", public: true, summary: "a job signals a waitpoint" },
  signalOwner: {
    method: "POST",
    path: "/api/waitpoints/:wid/signal",
    summary: "the owner signals a waitpoint (no secret: `vigil signal --id`)",
  },
  browserTabs: { method: "GET", path: "/api/browser/tabs", summary: "the connected browser's tabs" },
  browserObserve: { method: "POST", path: "/api/browser/observe", summary: "read one tab element now" },
  listVault: { method: "GET", path: "/api/vault", summary: "vault keys and their use" },
  setVault: { method: "PUT", path: "/api/vault/:key", summary: "set a secret value" },
  deleteVault: { method: "DELETE", path: "/api/vault/:key", summary: "delete a secret" },
  listDevices: { method: "GET", path: "/api/devices", summary: "devices signal files are collected from over SSH" },
  addDevice: { method: "POST", path: "/api/devices", summary: "add a device ([USER@]HOST, port, identity)" },
  removeDevice: { method: "DELETE", path: "/api/devices/:name", summary: "remove a device and close its connection" },
  listHosts: {
    method: "GET",
    path: "/api/hosts",
    summary: "the daemons on this database (team mode): each with its heartbeat, version and what it holds",
  },
  removeHost: {
    method: "DELETE",
    path: "/api/hosts/:name",
    summary: "forget a host that is not running and holds no session (team mode)",
  },
  listNotify: {
    method: "GET",
    path: "/api/notify",
    summary: "Needs-you notification channels: each with its filters, last message and last error",
  },
  addNotify: {
    method: "POST",
    path: "/api/notify",
    summary: "add a notification channel (ntfy, slack, discord, webhook, desktop, email)",
  },
  updateNotify: { method: "PATCH", path: "/api/notify/:name", summary: "pause or resume a notification channel" },
  removeNotify: { method: "DELETE", path: "/api/notify/:name", summary: "remove a notification channel and its queue" },
  testNotify: {
    method: "POST",
    path: "/api/notify/test",
    summary: "send a test message to one channel ({name}) or to each, now",
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** The body each route takes and the answer it gives (`undefined`: no body). */
export interface RouteTypes {
  health: { body: undefined; reply: { ok: true } };
  status: { body: undefined; reply: StatusView };
  panel: { body: undefined; reply: PanelPage };
  listSessions: { body: undefined; reply: SessionView[] };
  createSession: { body: In<typeof SessionCreateSchema>; reply: SessionView };
  getSession: { body: undefined; reply: SessionView };
  updateSession: { body: In<typeof SessionPatchSchema>; reply: SessionView };
  deleteSession: { body: undefined; reply: { deleted: true } };
  setTurn: { body: In<typeof TurnSchema>; reply: SessionView };
  listMonitors: { body: undefined; reply: MonitorView[] };
  createMonitor: { body: In<typeof MonitorCreateSchema>; reply: MonitorView };
  postEvent: { body: In<typeof EventPostSchema>; reply: { accepted: true; event: number; ended: string[] } };
  getMonitor: { body: undefined; reply: MonitorView };
  monitorEvents: { body: undefined; reply: MonitorEvent[] };
  monitorChecks: { body: undefined; reply: CheckEntry[] };
  controlMonitor: { body: In<typeof ControlSchema>; reply: MonitorView };
  clearEnded: { body: undefined; reply: { cleared: string[] } };
  listWakes: { body: undefined; reply: WakeView[] };
  claimWakes: { body: undefined; reply: { wakes: WakeView[] } };
  waitReady: { body: undefined; reply: { ready: number } };
  getWake: { body: undefined; reply: WakeView };
  retryWake: { body: undefined; reply: WakeView };
  dismissWake: { body: undefined; reply: WakeView };
  findWake: { body: undefined; reply: WakeView };
  listWaitpoints: { body: undefined; reply: WaitpointView[] };
  createWaitpoint: { body: In<typeof WaitCreateSchema>; reply: WaitCreated };
  getWaitpoint: { body: undefined; reply: WaitpointView };
  cancelWaitpoint: { body: undefined; reply: WaitpointView };
  signal: { body: In<typeof WebhookSignalSchema>; reply: Record<string, unknown> };
  signalOwner: { body: In<typeof OwnerSignalSchema>; reply: Record<string, unknown> };
  browserTabs: { body: undefined; reply: Tab[] };
  browserObserve: { body: In<typeof BrowserObserveSchema>; reply: Observation };
  listVault: { body: undefined; reply: VaultEntry[] };
  setVault: { body: In<typeof VaultSetSchema>; reply: { key: string; set: true } };
  deleteVault: { body: undefined; reply: { deleted: true } };
  listDevices: { body: undefined; reply: DeviceView[] };
  addDevice: { body: In<typeof DeviceAddSchema>; reply: DeviceView };
  removeDevice: { body: undefined; reply: { deleted: true } };
  listHosts: { body: undefined; reply: HostView[] };
  removeHost: { body: undefined; reply: { deleted: true } };
  listNotify: { body: undefined; reply: ChannelView[] };
  addNotify: { body: In<typeof NotifyAddSchema>; reply: ChannelAdded };
  updateNotify: { body: In<typeof NotifyPatchSchema>; reply: ChannelView };
  removeNotify: { body: undefined; reply: { deleted: true } };
  testNotify: { body: In<typeof NotifyTestSchema>; reply: NotifyTestResult[] };
}

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path parameters a route needs, by name: `{sid, mid}` for `/api/sessions/:sid/monitors/:mid`. */
export type PathParams<K extends RouteName> = { [N in ParamNames<(typeof ROUTES)[K]["path"]>]: string };

/**
 * Path values that would not stay one segment: encodeURIComponent keeps "." as it is, and a URL
 * parser then resolves "." and ".." (`…/waitpoints/..` is `…/`); an empty value drops the segment.
 */
const NOT_A_SEGMENT = new Set(["", ".", ".."]);

/**
 * The route's path with its parameters filled in (each encoded) and the query appended. A value that
 * would not stay its own segment ("", ".", "..") is refused: no path can turn into another route.
 */
export function pathOf(
  route: RouteSpec,
  params: Record<string, string> = {},
  query: Record<string, string | number | undefined> = {},
): string {
  const path = route.path.replace(/:([a-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Expected a value for :${name} in ${route.path}`);
    if (NOT_A_SEGMENT.has(value))
      throw new Error(`Expected :${name} in ${route.path} to be a name, got ${JSON.stringify(value)}`);
    return encodeURIComponent(value);
  });
  const pairs = Object.entries(query).filter((entry): entry is [string, string | number] => entry[1] !== undefined);
  return pairs.length === 0
    ? path
    : `${path}?${new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, String(v)]))}`;
}
