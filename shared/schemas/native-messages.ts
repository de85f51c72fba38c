/**
 * Messages between the extension and `vigil native-host` (design.md §1, §8): one request type per
 * handler, each validated here; every reply echoes the request id.
 */
import { z } from "zod";
import { MonitorRefSchema, SessionIdSchema, WaitpointIdSchema, WakeIdSchema } from "./ids.js";
import { ChannelNameSchema } from "./notify.js";
import type { AttentionItem as DaemonAttentionItem, PanelPage } from "./views.js";

export const NATIVE_HOST_NAME = "dev.vigil.host";
/** Chrome refuses host → browser messages over 1 MB. */
export const MAX_HOST_TO_BROWSER_BYTES = 1024 * 1024;
/** Requests from the browser are small; anything larger is refused (and skipped). */
export const MAX_BROWSER_TO_HOST_BYTES = 1024 * 1024;

import { PANEL_FILTERS, PANEL_KINDS } from "../panel-lists.js";

export { PANEL_FILTERS, PANEL_KINDS, type PanelFilter, type PanelKind } from "../panel-lists.js";

const RequestId = z.union([z.string().min(1).max(100), z.number().int()]);

export const NativeRequestSchema = z.discriminatedUnion("type", [
  z.strictObject({ id: RequestId, type: z.literal("ping") }),
  z.strictObject({ id: RequestId, type: z.literal("status") }),
  z.strictObject({
    id: RequestId,
    type: z.literal("list"),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(500).default(200),
    /** The panel's filters (GET /api/panel's query); absent ones are not sent. */
    filter: z.enum(PANEL_FILTERS).optional(),
    session: SessionIdSchema.optional(),
    kind: z.enum(PANEL_KINDS).optional(),
    device: z.string().min(1).max(100).optional(),
    /** Team mode: one host's sessions (its name). */
    host: z.string().min(1).max(100).optional(),
    q: z.string().min(1).max(200).optional(),
  }),
  /** Send a wake that needs review (or failed) again: POST /api/sessions/:sid/wakes/:wid/retry. */
  z.strictObject({ id: RequestId, type: z.literal("retry"), sessionId: SessionIdSchema, wakeId: WakeIdSchema }),
  /** Set such a wake aside (never delivered): POST /api/sessions/:sid/wakes/:wid/dismiss. */
  z.strictObject({ id: RequestId, type: z.literal("dismiss"), sessionId: SessionIdSchema, wakeId: WakeIdSchema }),
  /** Remove a session's ended monitors from the list: POST /api/sessions/:sid/monitors/clear-ended. */
  z.strictObject({ id: RequestId, type: z.literal("clearEnded"), sessionId: SessionIdSchema }),
  z.strictObject({
    id: RequestId,
    type: z.literal("control"),
    sessionId: SessionIdSchema,
    monitorId: MonitorRefSchema,
    action: z.enum(["pause", "resume", "cancel"]),
  }),
  z.strictObject({
    id: RequestId,
    type: z.literal("checks"),
    sessionId: SessionIdSchema,
    monitorId: MonitorRefSchema,
  }),
  z.strictObject({
    id: RequestId,
    type: z.literal("waitpoint"),
    sessionId: SessionIdSchema,
    waitpointId: WaitpointIdSchema,
  }),
  /** The settings' notification channels (issue #40), shielded as `vigil notify ls` shows them: GET /api/notify. */
  z.strictObject({ id: RequestId, type: z.literal("notifyChannels") }),
  /** A test message to one channel, now: POST /api/notify/test. */
  z.strictObject({ id: RequestId, type: z.literal("notifyTest"), name: ChannelNameSchema }),
  /** Pause or resume one channel: PATCH /api/notify/:name. Adding and removing stay in the CLI (secrets). */
  z.strictObject({ id: RequestId, type: z.literal("notifyPause"), name: ChannelNameSchema, paused: z.boolean() }),
]);
export type NativeRequest = z.infer<typeof NativeRequestSchema>;
export type NativeRequestType = NativeRequest["type"];

/** A request as its sender builds it: every variant of the union without its `id` (added on sending). */
export type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never;

/** The side panel's list, as `/api/panel` answers it (design.md §7): the daemon's types, one source. */
export type {
  AttentionAction,
  AttentionReason,
  PanelCounts,
  PanelRow as PanelItem,
} from "./views.js";
export { ATTENTION_REASONS } from "./views.js";

/**
 * A "Needs you" entry as the panel reads it: a daemon from before issue #38 sends no headline,
 * label or primary action (the panel then leads with the title and the reason's words).
 */
export type AttentionItem = Omit<DaemonAttentionItem, "headline" | "label" | "primary"> &
  Partial<Pick<DaemonAttentionItem, "headline" | "label" | "primary">>;

/** The list as the panel reads it: a daemon from before the dashboard sends no counts, sessions or attention. */
export type PanelList = Omit<PanelPage, "counts" | "sessions" | "attention" | "hosts"> &
  Partial<Pick<PanelPage, "counts" | "sessions" | "hosts">> & { attention?: AttentionItem[] };

export type NativeReply =
  | { id: string | number | null; ok: true; result: unknown }
  | { id: string | number | null; ok: false; error: string };

// ------------------------------------------------------------ host → browser (the daemon asks)

/** What the extension reads from one tab: the element's text, whether it exists, where the tab is. */
export const ObservationSchema = z.strictObject({
  text: z.string(),
  exists: z.boolean(),
  url: z.string(),
  title: z.string(),
});
export type Observation = z.infer<typeof ObservationSchema>;

export const TabSchema = z.strictObject({
  tabId: z.number().int(),
  url: z.string(),
  title: z.string(),
  active: z.boolean(),
  windowId: z.number().int(),
});
export type Tab = z.infer<typeof TabSchema>;

/**
 * Why an observation failed, each distinct so the monitor's last error says what to do. The
 * extension answers `{ok:false, error, code}`; the daemon records `error` as the check's error.
 */
export const OBSERVE_ERROR_CODES = [
  "tab_closed",
  "url_differs",
  "element_missing",
  "no_permission",
  "not_loaded",
  "failed",
] as const;
export type ObserveErrorCode = (typeof OBSERVE_ERROR_CODES)[number];

/** Host → browser requests carry ids starting with "h" so they never collide with the panel's. */
export const HostRequestSchema = z.discriminatedUnion("type", [
  z.strictObject({
    id: z.string().regex(/^h/),
    type: z.literal("observe"),
    tabId: z.number().int().min(0),
    url: z.string().min(1).max(4096),
    selector: z.string().min(1).max(1000),
    /** Shown on the marked tab: which monitor reads it. */
    label: z.string().max(200).optional(),
  }),
  z.strictObject({ id: z.string().regex(/^h/), type: z.literal("tabs") }),
]);
export type HostRequest = z.infer<typeof HostRequestSchema>;

/** The browser's answer to a host request (told apart from a panel request by `ok`). */
export const HostReplySchema = z.union([
  z.strictObject({ id: z.string(), ok: z.literal(true), result: z.unknown() }),
  z.strictObject({
    id: z.string(),
    ok: z.literal(false),
    error: z.string().max(2000),
    code: z.enum(OBSERVE_ERROR_CODES).optional(),
  }),
]);
export type HostReply = z.infer<typeof HostReplySchema>;

/** Pushed host → browser without being asked: the daemon link's state, and "something changed". */
export type HostPush =
  | { type: "daemon"; connected: boolean; url?: string; error?: string }
  /** A session's monitors or wakes changed; without `sessionId`: the devices did. */
  | { type: "changed"; sessionId?: string };
