/**
 * Every source kind, registered in one place. Adding a kind is adding a file and a line here.
 * Design: docs/design.md §4.1.
 */
import type { Source, SourceKind } from "../../../shared/schemas/sources.js";
import { browserProbe } from "./browser.js";
import { commandProbe } from "./command.js";
import { eventProbe } from "./event.js";
import type { Probe } from "./probe.js";
import { signalProbe } from "./signal.js";
import { timeProbe } from "./time.js";
import { toolProbe } from "./tool.js";
import { watchProbe } from "./watch.js";

export const PROBES = {
  command: commandProbe,
  watch: watchProbe,
  tool: toolProbe,
  event: eventProbe,
  time: timeProbe,
  browser: browserProbe,
  signal: signalProbe,
} satisfies { [K in SourceKind]: Probe<Extract<Source, { kind: K }>> };

export function probeFor(kind: SourceKind): Probe {
  return PROBES[kind] as unknown as Probe;
}

/**
 * Per-session caps on armed monitors, by the probes' limit groups: 4 command waits + watches
 * (design.md §3), 20 active monitors of every polled or streamed kind (design.md §4.1). Waitpoints have
 * their own lifetime and caps.
 */
export const LIMITS: Record<string, { max: number; label: string }> = {
  command: { max: 4, label: "command waits and watches" },
  monitor: { max: 20, label: "active monitors" },
};

export const kindsInGroup = (group: string): SourceKind[] =>
  (Object.keys(PROBES) as SourceKind[]).filter((kind) => probeFor(kind).limitGroups.includes(group));
