/** Every source kind, registered in one place. Adding a kind is adding a file and a line here. */
import type { Source, SourceKind } from "../../../shared/schemas.js";
import { commandProbe } from "./command.js";
import type { Probe } from "./probe.js";
import { signalProbe } from "./signal.js";
import { watchProbe } from "./watch.js";

export const PROBES = {
  command: commandProbe,
  watch: watchProbe,
  signal: signalProbe,
} satisfies { [K in SourceKind]: Probe<Extract<Source, { kind: K }>> };

export function probeFor(kind: SourceKind): Probe {
  return PROBES[kind] as unknown as Probe;
}

/** Per-session caps on armed monitors, by the probes' limit group (SPEC §3: 4 command waits + watches). */
export const LIMITS: Record<string, { max: number; label: string }> = {
  command: { max: 4, label: "command waits and watches" },
};
