/**
 * What the interfaces show (design.md §7, §11): the monitor, waitpoint, session, wake and delivery
 * views, ending reasons and wake states. The API, the CLI, MCP and the side panel read these
 * shapes.
 */
import type { MonitorState } from "../states.js";
import type { Adapter } from "./inputs.js";
import type { Source, SourceKind } from "./sources.js";

export { MONITOR_STATES, type MonitorState, STATE_LABELS } from "../states.js";

export const ENDING_REASONS = [
  "met",
  "failed",
  "exited",
  "timeout",
  "stopped",
  "rate_limited",
  "error",
  "lost",
] as const;
export type EndingReason = (typeof ENDING_REASONS)[number];

export const WAKE_STATES = ["ready", "delivering", "delivered", "needs_review", "cancelled"] as const;
export type WakeState = (typeof WAKE_STATES)[number];

export interface Ending {
  reason: EndingReason;
  at: string;
  detail: string | null;
}

/** A value the daemon raised or lowered when arming, as asked and as used (the create reply only). */
export interface Adjustment {
  field: "intervalSeconds" | "timeoutSeconds";
  asked: number;
  used: number;
  why: string;
}

/** One field a condition read: its path and its value there, as short text ("200", "\"success\""). */
export interface ReadField {
  path: string;
  value: string;
}

export interface MonitorView {
  id: string;
  sessionId: string;
  name: string;
  kind: SourceKind;
  state: MonitorState;
  ending: Ending | null;
  eventCount: number;
  lastEvent: string | null;
  lastObservation: unknown;
  /**
   * A command monitor's last check: its exit code (null: killed) and its last lines
   * (OUTPUT_SHOWN_LINES, shared/output-tail.ts), shielded. Absent: not a command, not yet checked,
   * or an older daemon. The whole kept output is in its check log (`output`).
   */
  lastOutput?: { exitCode: number | null; lines: string };
  /**
   * A tool monitor's last observation as its condition read it (issue #38 item 13): each path the
   * condition names with its value there, and an `http__get`'s status. Absent: no tool observation
   * yet, or an older daemon.
   */
  readFields?: ReadField[];
  lastError: string | null;
  errorCount: number;
  /** With `consecutive`: how many checks in a row have met the condition, as "2/3 consecutive". */
  consecutive: string | null;
  /** Checks made so far (null once the monitor has ended). */
  polls: number | null;
  createdAt: string;
  lastCheckAt: string | null;
  nextCheckAt: string | null;
  deadlineAt: string | null;
  intervalSeconds: number | null;
  timeoutSeconds: number;
  source: Source;
  continuation: string | null;
  /** Its latest wake's delivery, once it has one. */
  delivery: DeliveryView | null;
  /**
   * While armed: where its command runs when that is a sandbox, fixed when it was armed (issue #37),
   * as "runs in Codex's sandbox (workspace-write, /path)"; null: as the daemon's user.
   */
  sandbox: string | null;
  /** In the reply that armed it: each value raised or lowered from what was asked. */
  adjusted?: Adjustment[];
  /**
   * A waitpoint whose heartbeat is overdue (armed, no signal of any kind for its heartbeat timeout):
   * since when, and its last signal (null: none since it was armed). Absent otherwise.
   */
  stall?: Stall;
  /**
   * Team mode: an armed monitor whose checks need a machine (its session's host) that is offline or
   * stopped: nothing checks it until that host is back. Absent otherwise.
   */
  waitingForHost?: HostAbsence;
}

/** A host that is not running (team mode): since its last heartbeat, or its clean stop. */
export interface HostAbsence {
  host: string;
  state: "offline" | "stopped";
  since: string;
}

/** An armed waitpoint no signal reached within its heartbeat timeout. */
export interface Stall {
  /** When the heartbeat became overdue (last signal, or arming, plus the timeout). */
  since: string;
  lastSignalAt: string | null;
  heartbeatTimeoutSeconds: number;
}

export interface WaitpointView {
  id: string;
  sessionId: string;
  label: string;
  intent: string;
  /** `orphaned`: its device was removed (`vigil devices rm`); its monitor's ending says so (`lost`). */
  state: "armed" | "resolved" | "failed" | "cancelled" | "expired" | "orphaned";
  monitorState: MonitorState;
  members: string[] | null;
  /** The device whose spool files signal it, or null (this machine). */
  device: string | null;
  /** That device's connection now (`removed`: no device of that name any more); null for this machine. */
  deviceState: DeviceState | "removed" | null;
  /** With a heartbeat timeout: the heartbeat is overdue (see MonitorView.stall); null otherwise. */
  stall: Stall | null;
  /** The latest signal of any kind (heartbeats included), or null. */
  lastSignalAt: string | null;
  quorum: number;
  failFast: boolean;
  maxSignals: number;
  received: number;
  heartbeats: number;
  /** `train-arm2 · 0/1 received · expires in 3h` — the side panel's capsule text, minus the time. */
  progress: string;
  createdAt: string;
  expiresAt: string | null;
  endedAt: string | null;
  wakesSent: number;
  wakesThisHour: number;
  maxWakesPerHour: number;
  /** The hourly cap holds a wake back until this time. */
  heldUntil: string | null;
  /** Signals before those listed: only the last 20 are listed, and only the last 100 progress reports kept (and those since the last trim, every 32 events). */
  earlierSignals: number;
  /** The last 20 signals, oldest first. */
  signals: Array<{
    status: string;
    member: string | null;
    message: string | null;
    data: string | null;
    via: string;
    at: string;
  }>;
}

/** One entry of a monitor's check log (last 100): why it did or did not fire. */
export type CheckOutcome = "met" | "not_met" | "unavailable" | "error";
export interface CheckEntry {
  seq: number;
  at: string;
  outcome: CheckOutcome;
  durationMs: number | null;
  excerpt: string | null;
  /** A command check's exit code (null: killed, or not a command; absent: an older daemon). */
  exitCode?: number | null;
  /** Its output's tail (last 200 lines or 32 KiB, shielded); kept for the latest check and the latest failing one. */
  output?: string | null;
}

export interface MonitorEvent {
  seq: number;
  at: string;
  text: string;
}

export interface WakeView {
  id: string;
  sessionId: string;
  state: WakeState;
  kind: "events" | "ending";
  monitors: string[];
  text: string;
  payload: WakePayload;
  createdAt: string;
  /** Delivery: attempts so far, when the next one is due, what went wrong, how it went out. */
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  turn: number | null;
  deliveredAt: string | null;
  deliveredVia: string | null;
  /** The command adapter's stdout/stderr tail. */
  output: string | null;
  /** Set aside by the person (Dismiss): cancelled, never delivered. */
  dismissedAt?: string;
  /**
   * Only in the reply to an agent hook's claim: the tag the hook puts after the wake's text. The
   * wake counts as delivered once the session's transcript shows it after the claim.
   */
  handoverTag?: string;
}

/** A monitor's latest wake, as its view shows it. */
export interface DeliveryView {
  wakeId: string;
  state: WakeState;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredVia: string | null;
  /** Set aside by the person (Dismiss): cancelled, never delivered. */
  dismissedAt?: string;
  /** A ready wake of an agent session: who takes it ("the Claude Code session"), or absent. */
  waitingFor?: string;
}

/** The JSON form of a wake: the same facts as its text (design.md §6). */
export interface WakePayload {
  wakeId: string;
  sessionId: string;
  monitor: { id: string; name: string; kind: SourceKind; description: string };
  reason: EndingReason | "events" | "stalled";
  endedAt: string | null;
  armedAt: string;
  waitedSeconds: number;
  detail: string | null;
  lastObservation: unknown;
  lastError: string | null;
  continuation: string | null;
  events: MonitorEvent[];
  omittedEvents: number;
}

/** A session as the API shows it (`webhookSecret` only in the answer that set a webhook adapter). */
export interface SessionView {
  id: string;
  label: string | null;
  root: string | null;
  adapter: Adapter;
  /** While the agent said it is busy (turn lease), the ISO time the lease ends; else null. */
  busyUntil: string | null;
  createdAt: string;
  /** The host it was made on, where its agent runs (team mode; null: made before hosts existed). */
  host: string | null;
  webhookSecret?: string;
}

/** A wait whose check started late (design.md §3, overload). */
export interface LateCheck {
  sessionId: string;
  monitorId: string;
  name: string;
  /** How late its latest late check started, against its due time. */
  lateMs: number;
  at: string;
}

/**
 * Whether the daemon keeps up with its checks (design.md §3): overloaded while checks wait for a
 * free slot, or one started more than a second late in the last minute.
 */
export interface CheckLoadView {
  overloaded: boolean;
  running: number;
  /** Checks that run at once at most. */
  concurrency: number;
  /** Checks due now that find every slot taken (they start earliest due first). */
  waitingForSlot: number;
  lag: { n: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null };
  /** The waits whose checks started over a second late in the last minute, latest first (at most 5). */
  late: LateCheck[];
}

/** `GET /api/status`: what the daemon is doing. */
export interface StatusView {
  pid: number;
  /** Sessions in the store (every host's); null while the database cannot be reached. */
  sessions: number | null;
  /** Null while the store answers; else why not ("Database unreachable (…)"): the daemon runs on. */
  database: string | null;
  /**
   * Team mode: one round trip to PostgreSQL now (a one-row query, timed; ms, 0.1 ms steps). Null on
   * SQLite and while the database cannot be reached.
   */
  databaseRoundTripMs: number | null;
  runningChecks: number;
  browserConnected: boolean;
  checkLag: { n: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null };
  checks: CheckLoadView;
  nextTimerAt: string | null;
  /** This daemon among the hosts of its database (team mode; one on SQLite). */
  host: { id: string; name: string };
  /** Where the store is: the home's SQLite file, or a PostgreSQL shared by a team. */
  store: "sqlite" | "postgres";
  /**
   * On PostgreSQL, the link to the other hosts (LISTEN/NOTIFY): listening, or reconnecting after a
   * lost connection; notices heard from other hosts and sent to them. Null on SQLite.
   */
  team: { link: "connecting" | "listening" | "reconnecting" | "stopped"; heard: number; sent: number } | null;
  /** Needs-you notification channels (issue #40): how many, and those whose last message failed. */
  notify?: { channels: number; failing: Array<{ name: string; error: string; since: string | null }> };
}

/**
 * A daemon of the team on one database (team mode, design.md §9.1): online while its heartbeat is
 * recent; "stopped" after a clean stop, "offline" when its heartbeats stopped coming (killed,
 * crashed, cut off). Its sessions wait for it: their host-bound checks and their agents' wakes.
 */
export interface HostView {
  id: string;
  name: string;
  version: string;
  pid: number;
  state: "online" | "offline" | "stopped";
  startedAt: string;
  heartbeatAt: string;
  stoppedAt: string | null;
  /** Sessions made on it (their agents run there). */
  sessions: number;
  /** Armed monitors whose checks need that machine (a command, a watch, a tab, a file, a secret). */
  bound: number;
  /** The daemon that answered. */
  self: boolean;
}

/** A vault key: its name and who used it, never its value. */
export interface VaultEntry {
  key: string;
  updatedAt: string;
  usedBy: Array<{ sessionId: string; monitorId: string; purpose: "start" | "resume"; at: string }>;
}

export const DEVICE_STATES = ["connected", "offline", "error"] as const;
export type DeviceState = (typeof DEVICE_STATES)[number];

/** A device (design.md §5): its SSH target, the connection's state and what was collected. */
export interface DeviceView {
  name: string;
  /** `[USER@]HOST` as given. */
  ssh: string;
  port: number | null;
  identity: string | null;
  state: DeviceState;
  lastError: string | null;
  /** The last completed collection (UTC ISO), or null. */
  lastCollectionAt: string | null;
  filesCollected: number;
  /**
   * How new files are noticed while connected: `inotify` (inotifywait on the device, at once) or
   * `poll` (every second); null while not connected.
   */
  collection: "inotify" | "poll" | null;
  createdAt: string;
}

/** How a job signals a waitpoint: the same capability as a CLI line, a curl line, a shell snippet. */
export interface HowToSignal {
  env: string;
  cli: string;
  curl: string;
  shell: string;
  attach_to_pid: string;
  recommended: "cli" | "shell";
  /** Which lines need the secret (read from a 0600 file at SECRET_FILE) and how to save it there. */
  secret_note: string;
  member_note?: string;
  heartbeat?: string;
}

/** The answer to wait_create: the one time the secret is shown. */
export interface WaitCreated {
  id: string;
  secret: string;
  state: "armed";
  how_to_signal: HowToSignal;
}

// ------------------------------------------------------------------ the side panel (design.md §7)

/** Why something is in the panel's "Needs you" list, most urgent first (the order of `rank`). */
export const ATTENTION_REASONS = [
  "unsealed",
  "needs_review",
  "delivery_failed",
  "waitpoint_failed",
  "waitpoint_stalled",
  "monitor_error",
  "device_error",
  "delivery_retrying",
  "wake_not_taken",
  "overload",
] as const;
export type AttentionReason = (typeof ATTENTION_REASONS)[number];

export type AttentionAction = "retry" | "dismiss" | "resume" | "cancel" | "open";

/** One entry of the "Needs you" list. */
export interface AttentionItem {
  reason: AttentionReason;
  /** Sort key, lower is more urgent (the list comes sorted by it, then by `since`, oldest first). */
  rank: number;
  sessionId?: string;
  monitorId?: string;
  waitpointId?: string;
  wakeId?: string;
  device?: string;
  /** The monitor's, waitpoint's or device's name as the person knows it. */
  title: string;
  /**
   * The human reason, shown first: one line of at most 200 characters, shielded, never empty — a
   * failed waitpoint's fail message, a failed check's last output line and exit code, a delivery's
   * HTTP status and endpoint (or its adapter's error), "no heartbeat for 12m (last progress: …)".
   */
  headline: string;
  /** Its exact label (shared/wording.ts): "stalled", "failed", "expired", "delivery failed", "not taken", …. */
  label: string;
  /** The one action that fits it best, one of `actions` (null: none). */
  primary: AttentionAction | null;
  /** The whole cause (the mechanism: error text, last stderr lines), shielded. */
  detail: string;
  /** When it began needing the person (ISO). */
  since: string;
  /** What the panel may offer on it. */
  actions: AttentionAction[];
}

/** How many monitors each of the panel's filters holds. */
export interface PanelCounts {
  all: number;
  needs: number;
  active: number;
  ended: number;
}

/** A session as the panel's session filter and headers show it. */
export interface PanelSession {
  id: string;
  label: string | null;
  counts: PanelCounts;
  /** The id of its host (one of `PanelPage.hosts`); null: made before hosts existed; absent: an older daemon. */
  host?: string | null;
}

/** A host as the panel shows it (team mode): its name, and since when it is away if it is. */
export interface PanelHost {
  id: string;
  name: string;
  state: "online" | "offline" | "stopped";
  /** Offline: its last heartbeat; stopped: its stop; online: null. */
  since: string | null;
  /** The daemon the panel talks to. */
  self: boolean;
}

/**
 * One row of the panel's list: a monitor with its session and, for a waitpoint, its details — only
 * what the list shows: `lastObservation` and `lastEvent` are excerpts of at most 300 characters, a
 * waitpoint carries its last 20 signals (message and data excerpted too).
 */
export interface PanelRow {
  session: { id: string; label: string | null };
  monitor: MonitorView;
  waitpoint?: WaitpointView;
}

/** `GET /api/panel` (and the native `list`): one page of the list, and what the panel shows around it. */
export interface PanelPage {
  /** Monitors under every filter given, `filter=` included (the pages' total). */
  total: number;
  offset: number;
  items: PanelRow[];
  /** Every device (design.md §5) with its connection state, on every page (there are few). */
  devices: DeviceView[];
  /** Whether checks keep up (design.md §3); `late` names only monitors that still exist. */
  checks: CheckLoadView;
  /** Under the session, kind, device and search filters, before `filter=`. */
  counts: PanelCounts;
  /** Every session (of the filtered host), with its counts under the kind, device and search filters. */
  sessions: PanelSession[];
  /** Every host of the database (one on SQLite), whatever the filters. */
  hosts: PanelHost[];
  /** The "Needs you" list, whole (not paged, not filtered), most urgent first. */
  attention: AttentionItem[];
}
