/**
 * `event`: an exact event type posted to the owning session, for one particular run (`match`).
 * Events arrive through the engine's postEvent; the optional read-only `fallback` is polled at the
 * interval to reconcile an event missed while the daemon was down.
 * Design: docs/design.md §4.1.
 */
import { type EventSource, EventSourceSchema } from "../../../shared/schemas/sources.js";
import { assertAnyHostAllowed, mayRunOnAnyHost, readOnlyTool } from "../tools/registry.js";
import type { PollProbe } from "./probe.js";
import { observationTiming } from "./timing.js";
import { callTool } from "./tool-call.js";

const MET_ALWAYS = { path: "", operator: "exists" } as const;

export const eventProbe: PollProbe<EventSource> = {
  kind: "event",
  mode: "poll",
  schema: EventSourceSchema,
  limitGroups: ["monitor"],
  defaultName: (source) => `event ${source.type}`,
  describe: (source) =>
    `event ${source.type}${Object.keys(source.match).length ? ` matching ${JSON.stringify(source.match)}` : ""}${source.fallback ? ` (fallback ${source.fallback.name})` : ""}`,
  timing: observationTiming,
  secretText: (source) => JSON.stringify(source.fallback?.args ?? {}),
  hostFree: (source) => !source.fallback || (source.fallback.anyHost === true && mayRunOnAnyHost(source.fallback.name)),
  validate: (source) => {
    if (!source.fallback) return;
    const { args } = readOnlyTool(source.fallback.name, source.fallback.args, "source.fallback");
    if (source.fallback.anyHost) assertAnyHostAllowed(source.fallback.name, args, "source.fallback");
  },
  firstDueAt: (source, now) => (source.fallback ? now : null),
  /** Polled only through the fallback; an arriving event uses `source.condition` (see postEvent). */
  condition: (source) => source.fallback?.condition ?? MET_ALWAYS,
  check: async (source, context) =>
    source.fallback
      ? callTool(source.fallback, context)
      : { outcome: "error", error: "an event monitor without a fallback is never polled" },
};
