/**
 * What the MCP tools advertise (design.md §7, §4.1, §4.2, §5): input schemas any MCP client can drive
 * and output schemas for their structured results.
 *
 * Inputs are plain JSON Schema objects: `type: "object"` on every object, a description on every
 * property, no bare `oneOf`/`anyOf` and no `$ref`. A source is one object whose `kind` is an enum and
 * whose other properties say which kinds use them; a condition is one object (a leaf or all/any/not,
 * whose children are described, not spelled out again).
 * They only shape what a client sends: the tool then parses it with the strict schemas of
 * shared/schemas (the ones the HTTP API uses), so MCP accepts exactly what the API accepts.
 *
 * Outputs list every field the tools return (`z.object`, so unknown fields are dropped, and the
 * advertised schema says `additionalProperties: false`).
 */
import { z } from "zod";
import { OPERATORS } from "../../../shared/schemas/conditions.js";
import { MonitorRefSchema, WaitpointIdSchema } from "../../../shared/schemas/ids.js";
import { MonitorCreateSchema, WaitCreateSchema } from "../../../shared/schemas/inputs.js";
import {
  BrowserObserveSchema,
  BrowserSourceSchema,
  CommandSourceSchema,
  EventSourceSchema,
  TimeSourceSchema,
  ToolSourceSchema,
} from "../../../shared/schemas/sources.js";
import { DEVICE_STATES, ENDING_REASONS, MONITOR_STATES, WAKE_STATES } from "../../../shared/schemas/views.js";

/** The JSON types, for a value that may be any of them (a condition's comparison value). */
const JSON_TYPES = ["string", "number", "boolean", "object", "array", "null"];

/** Any JSON value, advertised with its types listed (an empty schema leaves clients guessing). */
const anyJson = (description: string) => z.unknown().meta({ type: JSON_TYPES, description });

/** A free-form JSON object (tool args, event match fields). */
const freeObject = (description: string) =>
  z.record(z.string(), z.unknown()).meta({ additionalProperties: true, description });

// ---------------------------------------------------------------- conditions (design §4.2)

const CONDITION_FORMS =
  'A leaf {path, operator, value}, or exactly one of {all: [conditions]}, {any: [conditions]}, {not: condition}. Example: {"path": "body.status", "operator": "equals", "value": "done"}';

/** A child of all/any/not: spelled out once at the top, so the schema stays small and unrecursive. */
const childCondition = (description: string) =>
  freeObject(`${description}: a condition of the same shape (a leaf or all/any/not)`);

/** A condition: one object whose properties are the leaf's and the combinators'. */
function condition(description: string) {
  return z
    .strictObject({
      path: z
        .string()
        .max(500)
        .optional()
        .describe(
          'leaf: a dotted path into the observation, e.g. "exitCode", "stdout", "json.state", "body.status", "text"; "" or absent: the whole observation',
        ),
      operator: z
        .enum(OPERATORS)
        .optional()
        .describe(
          "leaf: how to compare. equals/not_equals/in/not_in: deep JSON equality; contains/not_contains: substring or array element; regex: RE2 syntax, matched anywhere in the last 65,536 characters; gt/gte/lt/lte: numeric; exists: the path is present; changed: differs from the first observation",
        ),
      value: anyJson(
        "leaf: what to compare with: a number for gt/gte/lt/lte, an array for in/not_in, a pattern for regex (RE2: no backreferences, lookahead or lookbehind); none for exists and changed",
      ).optional(),
      all: z
        .array(childCondition("one of them"))
        .min(1)
        .max(20)
        .optional()
        .describe("met when every child condition is met (1–20 children)"),
      any: z
        .array(childCondition("one of them"))
        .min(1)
        .max(20)
        .optional()
        .describe("met when any child condition is met (1–20 children)"),
      not: childCondition("met when this child condition is not met").optional(),
    })
    .describe(`${description}. ${CONDITION_FORMS}`);
}

// ---------------------------------------------------------------- sources (design §4.1)

/** Every source kind monitor__create arms (`signal` is armed by wait_create). */
export const MCP_SOURCE_KINDS = ["command", "watch", "tool", "event", "time", "browser"] as const;

const cmd = CommandSourceSchema.shape;
const tool = ToolSourceSchema.shape;
const event = EventSourceSchema.shape;
const browser = BrowserSourceSchema.shape;

const ANY_HOST =
  "http__get only, team mode: true lets any host of the team run the checks (default: only the session's host); refused for a loopback, link-local or private URL, which each host reads as its own";

/** One object for every kind: `kind` says which of the other properties apply. */
export const McpSourceSchema = z
  .strictObject({
    kind: z
      .enum(MCP_SOURCE_KINDS)
      .describe(
        "command: poll a shell command until its condition holds (default: exit 0). watch: stream a long-running command's output lines as events. tool: poll a read-only tool (http__get, file__stat, file__read, process__status, github__pr, github__run, github__deployment) until its condition holds. event: an event posted to this session that matches `type` and `match`. time: wake at a UTC time. browser: poll one element of one exact tab of the connected browser.",
      ),
    command: cmd.command.optional().describe("command, watch (required): the shell command, run with /bin/sh -c"),
    cwd: cmd.cwd.describe("command, watch: its working folder (default: the session's root)"),
    condition: condition(
      "command (default: exit 0), tool and browser (required), event (optional): when a check counts as met",
    ).optional(),
    consecutive: cmd.consecutive.describe(
      "command, tool, browser: met only after this many met checks in a row (1–100), so a flicker never wakes",
    ),
    name: tool.name.optional().describe("tool (required): the read-only tool to call, e.g. http__get, file__stat"),
    args: freeObject('tool: the tool\'s arguments, e.g. {"url": "https://…"} for http__get').optional(),
    anyHost: tool.anyHost.describe(`tool: ${ANY_HOST}`),
    type: event.type.optional().describe("event (required): the exact event type, e.g. deploy.done"),
    match: freeObject(
      'event: payload fields (dotted paths) that must equal these values, naming the particular run, e.g. {"run_id": 42}',
    ).optional(),
    lookbackSeconds: z
      .number()
      .min(0)
      .max(3600)
      .optional()
      .describe("event: events accepted up to this long before arming count too (0–3600, default 0)"),
    fallback: z
      .strictObject({
        name: tool.name.describe("the read-only tool to call, e.g. http__get"),
        args: freeObject("the tool's arguments").optional(),
        condition: condition("when the tool's result counts as the event having happened"),
        anyHost: tool.anyHost.describe(ANY_HOST),
      })
      .optional()
      .describe("event: a read-only tool polled at the interval, to notice an event missed while the daemon was down"),
    at: TimeSourceSchema.shape.at
      .optional()
      .describe("time (required): when, as a UTC ISO time like 2026-12-01T18:00:00Z"),
    tabId: browser.tabId.optional().describe("browser (required): the tab's id, from browser__tabs"),
    url: browser.url
      .optional()
      .describe("browser (required): the tab's exact http(s) URL; a different URL is an error"),
    selector: browser.selector.optional().describe("browser (required): a CSS selector of the element to read"),
  })
  .describe(
    'What to watch. Set `kind` and the properties that kind uses (each property names its kinds). Examples: {"kind": "command", "command": "test -f done.flag"}; {"kind": "tool", "name": "http__get", "args": {"url": "http://127.0.0.1:8080/ci"}, "condition": {"path": "body.status", "operator": "equals", "value": "done"}}; {"kind": "time", "at": "2026-12-01T18:00:00Z"}.',
  );

// ---------------------------------------------------------------- tool inputs

/**
 * A number argument that also takes its digits as a string: generic clients (the MCP Inspector
 * CLI) send what was typed. Only whole strings of digits are read as numbers; the advertised JSON
 * Schema stays the number's.
 */
export const numeric = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value), schema);

const monitor = MonitorCreateSchema.shape;

export const McpMonitorCreateSchema = z.strictObject({
  name: monitor.name.describe("a short name shown in lists and wakes"),
  source: McpSourceSchema,
  intervalSeconds: numeric(monitor.intervalSeconds).describe(
    "seconds between checks: command at least 5 (the floor); tool, event, time and browser 10–3600 (default 30); none for watch",
  ),
  timeoutSeconds: numeric(monitor.timeoutSeconds).describe(
    "deadline in seconds: command 60–600 (default 300); watch 60–604800 (default 3600); others 30–604800 (default 1800)",
  ),
  continuation: monitor.continuation.describe(
    "what to do when woken, written for a stranger who reads the wake hours later",
  ),
});

const wait = WaitCreateSchema.shape;

export const McpWaitCreateSchema = z.strictObject({
  label: wait.label.describe("a short name for the wait, shown in lists and wakes"),
  intent: wait.intent.describe("what you wait for and what you will do then, for whoever reads the wake"),
  members: wait.members.describe(
    "a barrier's member names: each member signals with its own name; absent: one job signals",
  ),
  // A number or "all", as one node with two types (not a union): the Inspector CLI then sends a
  // number as a number and "all" as the string, where a lone "integer" makes it send NaN for "all".
  quorum: z
    .unknown()
    .meta({
      type: ["integer", "string"],
      minimum: 1,
      pattern: "^all$",
      description:
        'how many signals complete it (distinct members when there are members): a number from 1, or "all" (every member; the default with members, else 1)',
    })
    .optional(),
  fail_fast: wait.fail_fast.describe("a fail signal wakes you at once (default true)"),
  max_signals: numeric(wait.max_signals).describe(
    "how many wakes it gives before it ends (1–1000, default 1); above 1 it stays open as a mailbox",
  ),
  expires_in_hours: numeric(wait.expires_in_hours).describe("its deadline in hours (default 168, at most 720)"),
  heartbeat_timeout_seconds: numeric(wait.heartbeat_timeout_seconds).describe(
    'no signal at all (progress included) for this long wakes you with "stalled"',
  ),
  device: wait.device.describe(
    "a device's name (see device__list) when the job runs on that machine: its how_to_signal.shell line drops the signal file there, where Vigil collects it over SSH",
  ),
});

/** monitor__pause/resume/cancel/events/checks: a monitor (or waitpoint) of this session, by its id. */
export const McpMonitorIdShape = {
  id: MonitorRefSchema.describe("the monitor id (mon-N) or waitpoint id (wp_…)"),
};

/** wait_cancel: a waitpoint of this session, by its id. */
export const McpWaitpointIdShape = { id: WaitpointIdSchema.describe("the waitpoint id (wp_…)") };

/** wait_check: one waitpoint, or all of them. */
export const McpWaitCheckShape = {
  id: WaitpointIdSchema.optional().describe("a waitpoint id (wp_…); all when absent"),
};

const observe = BrowserObserveSchema.shape;

export const McpBrowserObserveShape = {
  tabId: numeric(observe.tabId).describe("the tab's id, from browser__tabs"),
  url: observe.url.describe("the tab's exact http(s) URL"),
  selector: observe.selector.describe("a CSS selector of the element to read"),
};

// ---------------------------------------------------------------- tool outputs

const Session = z.string().describe("this session's id (wakes name it)");
const Next = z.string().describe("what to do now");
const Time = (what: string) => z.string().describe(`${what} (UTC ISO time)`);
const TimeOrNull = (what: string) => z.string().nullable().describe(`${what} (UTC ISO time), or null`);

const EndingOut = z
  .object({
    reason: z.enum(ENDING_REASONS).describe("why it ended"),
    at: Time("when it ended"),
    detail: z.string().nullable().describe("more about the ending, or null"),
  })
  .nullable()
  .describe("how it ended, or null while it runs");

const DeliveryOut = z
  .object({
    wakeId: z.string().describe("the wake's id"),
    state: z.enum(WAKE_STATES).describe("the wake's state"),
    attempts: z.number().describe("delivery attempts so far"),
    nextAttemptAt: TimeOrNull("the next attempt"),
    lastError: z.string().nullable().describe("the last delivery error, or null"),
    deliveredVia: z.string().nullable().describe("how it went out, or null"),
    waitingFor: z.string().optional().describe("who takes a ready wake, when someone else does"),
    dismissedAt: z.string().optional().describe("when a person dismissed it (never delivered), if they did"),
  })
  .nullable()
  .describe("its latest wake's delivery, or null");

const StallOut = z
  .object({
    since: Time("when its heartbeat became overdue"),
    lastSignalAt: TimeOrNull("its last signal (null: none since it was armed)"),
    heartbeatTimeoutSeconds: z.number().describe("its heartbeat timeout"),
  })
  .describe("an armed waitpoint no signal reached within its heartbeat timeout");

/** The monitor fields a tool result shows (see `compact` in server.ts). */
export const MonitorOut = z
  .object({
    id: z.string().describe("the monitor id (mon-N) or waitpoint id (wp_…)"),
    name: z.string().describe("its name"),
    kind: z.enum([...MCP_SOURCE_KINDS, "signal"]).describe("its source kind (signal: a waitpoint)"),
    state: z.enum(MONITOR_STATES).describe("waiting, paused, ready, continuing, finished, cancelled or needs_review"),
    ending: EndingOut,
    eventCount: z.number().describe("events recorded"),
    lastEvent: z.string().nullable().describe("the last event's text, or null"),
    lastError: z.string().nullable().describe("the last check error, or null"),
    nextCheckAt: TimeOrNull("the next check"),
    deadlineAt: TimeOrNull("the deadline"),
    delivery: DeliveryOut,
    adjusted: z
      .array(
        z.object({
          field: z
            .enum(["intervalSeconds", "timeoutSeconds"])
            .describe("intervalSeconds (until) or timeoutSeconds (timeout)"),
          asked: z.number().describe("what you asked"),
          used: z.number().describe("what is used"),
          why: z.string().describe("why"),
        }),
      )
      .optional()
      .describe("when arming: each value raised or lowered from what you asked"),
  })
  .describe("a monitor");

const HowToSignalOut = z
  .object({
    env: z
      .string()
      .describe(
        "the environment line that names the waitpoint (no secret: you are its owner); then `vigil signal --exit-code $?` in that shell reaches this daemon, vigil on PATH or not",
      ),
    cli: z.string().describe("a vigil signal command line (no secret needed on this machine)"),
    curl: z.string().describe("a curl command line for another user or machine: reads the secret from SECRET_FILE"),
    shell: z.string().describe("a shell snippet that drops a signal file (no daemon needed)"),
    attach_to_pid: z.string().describe("how to signal when an already running process exits"),
    recommended: z.enum(["cli", "shell"]).describe("which line to use"),
    secret_note: z.string().describe("which lines need the secret and how to keep it off command lines"),
    member_note: z.string().optional().describe("how members name themselves"),
    heartbeat: z.string().optional().describe("how to send progress heartbeats"),
  })
  .describe("ways for the job to signal; paste one into the job's command");

const WaitCreatedOut = z
  .object({
    id: z.string().describe("the waitpoint id (wp_…)"),
    secret: z.string().describe("the one-time secret (shown only here)"),
    state: z.literal("armed").describe("armed"),
    how_to_signal: HowToSignalOut,
  })
  .describe("the armed waitpoint");

const SignalOut = z
  .object({
    status: z.string().describe("ok, fail or progress"),
    member: z.string().nullable().describe("the member that sent it, or null"),
    message: z.string().nullable().describe("its message, or null"),
    data: z.string().nullable().describe("its data as JSON text, or null"),
    via: z.string().describe("how it arrived"),
    at: Time("when it arrived"),
  })
  .describe("one signal");

export const WaitpointOut = z
  .object({
    id: z.string().describe("the waitpoint id (wp_…)"),
    sessionId: Session,
    label: z.string().describe("its label"),
    intent: z.string().describe("its intent"),
    state: z
      .enum(["armed", "resolved", "failed", "cancelled", "expired", "orphaned"])
      .describe("its state (orphaned: its device was removed)"),
    monitorState: z.enum(MONITOR_STATES).describe("its monitor's state"),
    members: z.array(z.string()).nullable().describe("its member names, or null"),
    device: z.string().nullable().describe("the device whose spool files signal it, or null (this machine)"),
    deviceState: z
      .enum([...DEVICE_STATES, "removed"])
      .nullable()
      .describe("that device's connection now (removed: it is gone), or null (this machine)"),
    stall: StallOut.nullable().describe("with a heartbeat timeout: the heartbeat is overdue, or null"),
    lastSignalAt: TimeOrNull("the latest signal of any kind"),
    quorum: z.number().describe("signals that complete it"),
    failFast: z.boolean().describe("whether a fail signal wakes at once"),
    maxSignals: z.number().describe("wakes before it ends"),
    received: z.number().describe("terminal signals received"),
    heartbeats: z.number().describe("progress signals received"),
    progress: z.string().describe("a one-line summary"),
    createdAt: Time("when it was armed"),
    expiresAt: TimeOrNull("its deadline"),
    endedAt: TimeOrNull("when it ended"),
    wakesSent: z.number().describe("wakes sent"),
    wakesThisHour: z.number().describe("wakes sent in the last hour"),
    maxWakesPerHour: z.number().describe("the hourly wake cap"),
    heldUntil: TimeOrNull("until when the hourly cap holds a wake back"),
    earlierSignals: z
      .number()
      .describe(
        "signals before those listed (only the last 20 are listed; the last 100 progress reports are kept, and those since the last trim)",
      ),
    signals: z.array(SignalOut).describe("its last 20 signals, oldest first"),
  })
  .describe("a waitpoint");

export const DeviceOut = z
  .object({
    name: z.string().describe("the device's name (what wait_create's device takes)"),
    ssh: z.string().describe("[USER@]HOST it is reached at"),
    port: z.number().nullable().describe("its SSH port, or null (ssh's default)"),
    identity: z.string().nullable().describe("the private key file passed to ssh, or null"),
    state: z.enum(DEVICE_STATES).describe("connected, offline or error"),
    lastError: z.string().nullable().describe("the last connection or collection error, or null"),
    lastCollectionAt: TimeOrNull("the last completed collection"),
    filesCollected: z.number().describe("signal files collected from it"),
    collection: z
      .enum(["inotify", "poll"])
      .nullable()
      .describe("how new files are noticed while connected: inotify (at once) or poll (every second); null offline"),
    createdAt: Time("when it was added"),
  })
  .describe("a device");

const EventOut = z
  .object({
    seq: z.number().describe("its sequence number"),
    at: Time("when it was recorded"),
    text: z.string().describe("its text"),
  })
  .describe("one event");

const CheckOut = z
  .object({
    seq: z.number().describe("its sequence number"),
    at: Time("when it ran"),
    outcome: z.enum(["met", "not_met", "unavailable", "error"]).describe("what it found"),
    durationMs: z.number().nullable().describe("how long it took, or null"),
    excerpt: z.string().nullable().describe("an excerpt of what it saw, or null"),
    exitCode: z.number().nullable().optional().describe("a command check's exit code, or null"),
    output: z
      .string()
      .nullable()
      .optional()
      .describe(
        "a command check's output tail (last 200 lines or 32 KiB), kept for the latest and the latest failing check, else null",
      ),
  })
  .describe("one check");

const TabOut = z
  .object({
    tabId: z.number().describe("the tab's id"),
    url: z.string().describe("its URL"),
    title: z.string().describe("its title"),
    active: z.boolean().describe("whether it is its window's active tab"),
    windowId: z.number().describe("its window's id"),
  })
  .describe("one tab");

const ObservationOut = z
  .object({
    text: z.string().describe("the element's text"),
    exists: z.boolean().describe("whether the element exists"),
    url: z.string().describe("the tab's URL"),
    title: z.string().describe("the tab's title"),
  })
  .describe("what the tab shows now");

const WakeOut = z
  .object({
    id: z.string().describe("the wake's id"),
    state: z.enum(WAKE_STATES).optional().describe("its state (with all)"),
    deliveredVia: z.string().nullable().optional().describe("how it went out (with all), or null"),
    text: z.string().describe("the wake's text"),
  })
  .describe("one wake");

/** Each tool's structured result: the session, then the data (as the text content shows it). */
export const OUTPUTS = {
  armed: z.object({ session: Session, monitor: MonitorOut, next: Next }),
  monitor: z.object({ session: Session, monitor: MonitorOut }),
  monitors: z.object({ session: Session, monitors: z.array(MonitorOut).describe("this session's monitors") }),
  events: z.object({ session: Session, events: z.array(EventOut).describe("its last 200 events") }),
  checks: z.object({ session: Session, checks: z.array(CheckOut).describe("its last 100 checks") }),
  waitCreated: z.object({ session: Session, waitpoint: WaitCreatedOut, next: Next }),
  waitpoints: z.object({
    session: Session,
    waitpoints: z
      .union([WaitpointOut, z.array(WaitpointOut)])
      .describe("the waitpoint asked for, or all of this session's waitpoints"),
  }),
  waitpoint: z.object({ session: Session, waitpoint: WaitpointOut }),
  tabs: z.object({ session: Session, tabs: z.array(TabOut).describe("the connected browser's tabs") }),
  observation: z.object({ session: Session, observation: ObservationOut }),
  wakes: z.object({ session: Session, wakes: z.array(WakeOut).describe("the wakes") }),
  devices: z.object({ session: Session, devices: z.array(DeviceOut).describe("every device Vigil collects from") }),
} as const;
