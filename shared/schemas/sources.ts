/**
 * What a monitor watches (design.md §3, §4.1): one schema per source kind, and their union.
 */
import { z } from "zod";
import { ConditionSchema } from "./conditions.js";

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

/**
 * Team mode (design.md §9.1): the checks may run on any host of the team, not only the session's.
 * Only by this explicit choice, only for a tool that needs nothing of its host (http__get), and
 * never for a URL that is loopback, link-local or private (each host would read its own).
 */
const AnyHost = z.boolean().optional();

/** A read-only tool call polled until its condition holds (design.md §4.1). */
export const ToolSourceSchema = z.strictObject({
  kind: z.literal("tool"),
  name: ToolName,
  args: z.record(z.string(), z.unknown()).default({}),
  condition: ConditionSchema,
  consecutive: Consecutive,
  anyHost: AnyHost,
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
    .strictObject({
      name: ToolName,
      args: z.record(z.string(), z.unknown()).default({}),
      condition: ConditionSchema,
      anyHost: AnyHost,
    })
    .optional(),
});
export type EventSource = z.infer<typeof EventSourceSchema>;

export const TimeSourceSchema = z.strictObject({
  kind: z.literal("time"),
  at: z.iso.datetime({ message: "Expected a UTC ISO time like 2026-12-01T18:00:00Z" }),
});
export type TimeSource = z.infer<typeof TimeSourceSchema>;

export const HttpUrl = z
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
 * One element of one exact tab, read by the extension (design.md §4.1). The check fails with a distinct
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
