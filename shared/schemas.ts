/**
 * The one source of types: every boundary (HTTP bodies, CLI arguments, MCP inputs, native frames,
 * settings) is parsed with these schemas, and the TypeScript types are inferred from them.
 */
import { z } from "zod";
import type { MonitorState } from "./states.js";

// ---------------------------------------------------------------- conditions (SPEC §4.2)

export const OPERATORS = [
  "equals",
  "not_equals",
  "in",
  "not_in",
  "contains",
  "not_contains",
  "regex",
  "exists",
  "changed",
  "gt",
  "gte",
  "lt",
  "lte",
] as const;
export type Operator = (typeof OPERATORS)[number];

export interface LeafCondition {
  path?: string;
  operator: Operator;
  value?: unknown;
}
export type Condition = LeafCondition | { all: Condition[] } | { any: Condition[] } | { not: Condition };

const NUMERIC = new Set<Operator>(["gt", "gte", "lt", "lte"]);
const LIST = new Set<Operator>(["in", "not_in"]);

export const LeafConditionSchema = z
  .strictObject({
    path: z.string().max(500).default(""),
    operator: z.enum(OPERATORS),
    value: z.unknown().optional(),
  })
  .superRefine((leaf, ctx) => {
    const { operator, value } = leaf;
    const got = value === undefined ? "nothing" : JSON.stringify(value).slice(0, 60);
    if (NUMERIC.has(operator) && (typeof value !== "number" || !Number.isFinite(value))) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected a number for ${operator}, got ${got}` });
    }
    if (LIST.has(operator) && !Array.isArray(value)) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected an array for ${operator}, got ${got}` });
    }
    if (["equals", "not_equals", "contains", "not_contains", "regex"].includes(operator) && value === undefined) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `Expected a value for ${operator}, got nothing` });
    }
    if (operator === "regex") {
      try {
        new RegExp(String(value));
      } catch (error) {
        ctx.addIssue({ code: "custom", path: ["value"], message: `Expected a valid regex, got ${got}: ${error}` });
      }
    }
  });

export const ConditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ all: z.array(ConditionSchema).min(1).max(20) }),
    z.strictObject({ any: z.array(ConditionSchema).min(1).max(20) }),
    z.strictObject({ not: ConditionSchema }),
    LeafConditionSchema,
  ]),
) as z.ZodType<Condition>;

/** The plain wait's predicate: the command exited 0. */
export const EXIT_ZERO: Condition = { path: "exitCode", operator: "equals", value: 0 };

// ---------------------------------------------------------------- sources (SPEC §3, §4.1)

const CommandText = z.string().trim().min(1, "Expected a non-empty command").max(8000);

/** Met only when this many checks in a row meet the condition (a flicker never wakes). */
const Consecutive = z.number().int().min(1).max(100).optional();

export const CommandSourceSchema = z.strictObject({
  kind: z.literal("command"),
  command: CommandText,
  cwd: z.string().min(1).max(4096).optional(),
  condition: ConditionSchema.optional(),
  consecutive: Consecutive,
});
export type CommandSource = z.infer<typeof CommandSourceSchema>;

export const WatchSourceSchema = z.strictObject({
  kind: z.literal("watch"),
  command: CommandText,
  cwd: z.string().min(1).max(4096).optional(),
});
export type WatchSource = z.infer<typeof WatchSourceSchema>;

const ToolName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*__[a-z][a-z0-9_]*$/, "Expected a tool name container__action, like http__get");

/** A read-only tool call polled until its condition holds (SPEC §4.1). */
export const ToolSourceSchema = z.strictObject({
  kind: z.literal("tool"),
  name: ToolName,
  args: z.record(z.string(), z.unknown()).default({}),
  condition: ConditionSchema,
  consecutive: Consecutive,
});
export type ToolSource = z.infer<typeof ToolSourceSchema>;

/** An exact event type posted to the session, for one particular run (`match`). */
export const EventSourceSchema = z.strictObject({
  kind: z.literal("event"),
  type: z.string().min(1).max(200),
  /** Payload fields (dotted paths) that must equal these values: the particular run. */
  match: z.record(z.string(), z.unknown()).default({}),
  condition: ConditionSchema.optional(),
  /** Events accepted up to this long before arming count too, so one that races the arming is not missed. */
  lookbackSeconds: z.number().min(0).max(3600, "Expected at most 3600 seconds of lookback").default(0),
  /** A read-only tool polled at the interval to reconcile an event missed while the daemon was down. */
  fallback: z
    .strictObject({ name: ToolName, args: z.record(z.string(), z.unknown()).default({}), condition: ConditionSchema })
    .optional(),
});
export type EventSource = z.infer<typeof EventSourceSchema>;

export const TimeSourceSchema = z.strictObject({
  kind: z.literal("time"),
  at: z.iso.datetime({ message: "Expected a UTC ISO time like 2026-12-01T18:00:00Z" }),
});
export type TimeSource = z.infer<typeof TimeSourceSchema>;

export const EventPostSchema = z.strictObject({
  type: z.string().min(1).max(200),
  payload: z.unknown().default({}),
});
export type EventPost = z.infer<typeof EventPostSchema>;

const HttpUrl = z
  .string()
  .max(4096)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, "Expected an absolute http(s) URL");

/**
 * One element of one exact tab, read by the extension (SPEC §4.1). The check fails with a distinct
 * error when the tab is closed or its URL is no longer exactly `url`.
 */
export const BrowserSourceSchema = z.strictObject({
  kind: z.literal("browser"),
  tabId: z.number().int().min(0),
  url: HttpUrl,
  selector: z.string().trim().min(1, "Expected a CSS selector").max(1000),
  condition: ConditionSchema,
  consecutive: Consecutive,
});
export type BrowserSource = z.infer<typeof BrowserSourceSchema>;

/** One read of a tab now, to try a selector before arming a monitor on it. */
export const BrowserObserveSchema = BrowserSourceSchema.pick({ tabId: true, url: true, selector: true });

/** A waitpoint's source: it is armed through wait_create (POST …/waitpoints), not monitor__create. */
export const SignalSourceSchema = z.strictObject({
  kind: z.literal("signal"),
  members: z.array(z.string()).nullable(),
  quorum: z.number().int().min(1),
  failFast: z.boolean(),
  maxSignals: z.number().int().min(1),
});
export type SignalSource = z.infer<typeof SignalSourceSchema>;

export const SourceSchema = z.discriminatedUnion("kind", [
  CommandSourceSchema,
  WatchSourceSchema,
  ToolSourceSchema,
  EventSourceSchema,
  TimeSourceSchema,
  BrowserSourceSchema,
  SignalSourceSchema,
]);
export type Source = z.infer<typeof SourceSchema>;
export type SourceKind = Source["kind"];

// ---------------------------------------------------------------- sessions and monitors

const Id = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, "Expected letters, digits, '.', '_', ':' or '-'");

/** Placeholders a command adapter's argv may hold. */
export const ARGV_PLACEHOLDERS = ["session", "wake_id", "wake_ids", "turn"] as const;

const CommandAdapterSchema = z
  .strictObject({
    kind: z.literal("command"),
    argv: z
      .array(z.string().min(1, "Expected non-empty argv items").max(4096))
      .min(1, "Expected argv with a program")
      .max(64),
    timeoutSeconds: z.number().int().min(1).max(3600).optional(),
  })
  .superRefine((adapter, ctx) => {
    adapter.argv.forEach((item, i) => {
      for (const match of item.matchAll(/\{([^{}]*)\}/g)) {
        const name = match[1] as string;
        if (!(ARGV_PLACEHOLDERS as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: "custom",
            path: ["argv", i],
            message: `Expected placeholders ${ARGV_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}, got {${name}}`,
          });
        }
      }
    });
    if (/[{}]/.test(adapter.argv[0] ?? "")) {
      ctx.addIssue({ code: "custom", path: ["argv", 0], message: "Expected a program path without placeholders" });
    }
  });

const WebhookAdapterSchema = z.strictObject({
  kind: z.literal("webhook"),
  url: HttpUrl,
  /** Extra headers; values may hold ${secret:KEY}. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(4096)).optional(),
  timeoutSeconds: z.number().int().min(1).max(120).optional(),
});

export const AdapterSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("inbox") }),
  CommandAdapterSchema,
  WebhookAdapterSchema,
  z.strictObject({ kind: z.literal("mcp") }),
]);
export type Adapter = z.infer<typeof AdapterSchema>;
export type AdapterKind = Adapter["kind"];

export const SessionPatchSchema = z.strictObject({
  label: z.string().max(200).optional(),
  adapter: AdapterSchema.optional(),
});

export const TurnSchema = z.strictObject({
  state: z.enum(["busy", "idle"]),
  /** A busy turn ends by itself after this long, so a crashed platform cannot hold wakes forever. */
  leaseSeconds: z.number().int().min(1).max(86_400).optional(),
});

export const SessionCreateSchema = z.strictObject({
  id: Id.optional(),
  label: z.string().max(200).optional(),
  root: z.string().min(1).max(4096).optional(),
  adapter: AdapterSchema.optional(),
});
export type SessionCreate = z.infer<typeof SessionCreateSchema>;

export const MonitorCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  source: SourceSchema,
  intervalSeconds: z.number().finite().optional(),
  timeoutSeconds: z.number().finite().optional(),
  continuation: z.string().max(4000).optional(),
});
export type MonitorCreate = z.infer<typeof MonitorCreateSchema>;

export const ControlSchema = z.strictObject({ action: z.enum(["pause", "resume", "cancel"]) });
export type ControlAction = z.infer<typeof ControlSchema>["action"];

export { MONITOR_STATES, type MonitorState, STATE_LABELS } from "./states.js";

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
}

export interface WaitpointView {
  id: string;
  sessionId: string;
  label: string;
  intent: string;
  state: "armed" | "resolved" | "failed" | "cancelled" | "expired";
  monitorState: MonitorState;
  members: string[] | null;
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
}

/** A monitor's latest wake, as its view shows it. */
export interface DeliveryView {
  wakeId: string;
  state: WakeState;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  deliveredVia: string | null;
}

/** The JSON form of a wake: the same facts as its text (SPEC §6). */
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

export const VaultKeySchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Expected a key of letters, digits and '_' (not starting with a digit)");
export const VaultSetSchema = z.strictObject({
  value: z.string().min(4, "Expected a value of at least 4 characters (shorter ones cannot be shielded)").max(8192),
});

// ---------------------------------------------------------------- waitpoints (SPEC §5)

const MemberName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Expected a member name of letters, digits, '.', '_' or '-'");

export const WAIT_LIMITS = { maxExpiresInHours: 720, maxMembers: 100, maxSignals: 1000 } as const;

export const WaitCreateSchema = z
  .strictObject({
    label: z.string().trim().min(1, "Expected a short label").max(200),
    intent: z.string().trim().min(1, "Expected the intent: what you wait for and what you will do then").max(4000),
    members: z.array(MemberName).min(1).max(WAIT_LIMITS.maxMembers).optional(),
    quorum: z.union([z.number().int().min(1), z.literal("all")]).optional(),
    fail_fast: z.boolean().optional(),
    max_signals: z.number().int().min(1).max(WAIT_LIMITS.maxSignals).optional(),
    expires_in_hours: z
      .number()
      .positive()
      .max(WAIT_LIMITS.maxExpiresInHours, "Expected at most 720 hours (30 days)")
      .optional(),
    /** No signal of any kind (progress included) for this long wakes the owner with "stalled". */
    heartbeat_timeout_seconds: z
      .number()
      .positive()
      .max(WAIT_LIMITS.maxExpiresInHours * 3600)
      .optional(),
  })
  .superRefine((input, ctx) => {
    if (input.members && new Set(input.members).size !== input.members.length) {
      ctx.addIssue({ code: "custom", path: ["members"], message: "Expected distinct member names" });
    }
    if (typeof input.quorum === "number" && input.members && input.quorum > input.members.length) {
      ctx.addIssue({
        code: "custom",
        path: ["quorum"],
        message: `Expected a quorum of at most ${input.members.length} (the number of members), got ${input.quorum}`,
      });
    }
  });
export type WaitCreate = z.infer<typeof WaitCreateSchema>;

export const SIGNAL_STATUSES = ["ok", "fail", "progress"] as const;
export const SIGNAL_LIMITS = { bodyBytes: 64 * 1024, messageChars: 2000, dataChars: 16_000 } as const;

/** POST /webhook/signal and spool files. Over-long message/data are cut, not refused. */
export const SignalBodySchema = z.strictObject({
  id: z.string().min(1).max(64),
  secret: z.string().min(1).max(256),
  status: z.enum(SIGNAL_STATUSES).default("ok"),
  message: z.string().optional(),
  member: z.string().max(64).optional(),
  data: z.unknown().optional(),
  /** The sender's identity for this signal: a repeat with the same key is a duplicate. */
  key: z.string().min(1).max(200).optional(),
});
export type SignalBody = z.infer<typeof SignalBodySchema>;

/** `$VIGIL_HOME/settings.json` (every key optional; environment variables fill the rest). */
export const SettingsSchema = z.strictObject({
  waitpointTtlMs: z
    .number()
    .int()
    .min(60_000)
    .max(WAIT_LIMITS.maxExpiresInHours * 3_600_000)
    .optional(),
  waitpointSweepMs: z.number().int().min(0).max(3_600_000).optional(),
  waitpointMaxWakesPerHour: z.number().int().min(1).max(1000).optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;

// ---------------------------------------------------------------- errors

/** "source.command: Expected a non-empty command" — what was expected and what came, per field. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      return `${where}${issue.message}`;
    })
    .join("; ");
}
