/**
 * What arming a monitor checks before anything is stored: the source against its kind's schema,
 * the kind's interval and deadline rules, vault keys that must exist, the kind's own validation,
 * and the per-session limits (inside the arming transaction).
 * Design: docs/design.md §4.1, §8.
 */
import type { MonitorCreate } from "../../../shared/schemas/inputs.js";
import { type Source, SourceSchema } from "../../../shared/schemas/sources.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { LimitError, ValidationError } from "../base/errors.js";
import type { Probe } from "../probes/probe.js";
import { kindsInGroup, LIMITS, probeFor } from "../probes/registry.js";
import type { Timing } from "../probes/timing.js";
import { secretKeysIn } from "../secrets/references.js";
import type { Shield } from "../secrets/shield.js";
import type { Tables } from "../store/engine.js";
import type { NewMonitor } from "../store/monitors.js";

export interface PreparedMonitor {
  source: Source;
  probe: Probe;
  timing: Timing;
}

export function prepareMonitor(body: MonitorCreate, hasKey: (key: string) => boolean, now: number): PreparedMonitor {
  const parsed = SourceSchema.safeParse(body.source);
  if (!parsed.success) throw new ValidationError(`source: ${formatZodError(parsed.error)}`);
  if (parsed.data.kind === "signal") {
    throw new ValidationError(
      "source.kind: a waitpoint is armed with wait_create (POST /api/sessions/:sid/waitpoints)",
    );
  }
  const probe = probeFor(parsed.data.kind);
  const source = probe.withDefaults ? probe.withDefaults(parsed.data as never, hasKey) : parsed.data;
  const timing = probe.timing(body);
  const missing = secretKeysIn(probe.secretText(source)).find((key) => !hasKey(key));
  if (missing) throw new ValidationError(`Vault key ${missing} is not set (set it with: vigil vault set ${missing})`);
  probe.validate?.(source, { now, deadlineAt: now + timing.timeoutMs });
  return { source, probe, timing };
}

/** The per-session caps of the kind's limit groups (call inside the arming transaction). */
export async function checkLimits(t: Tables, sessionId: string, probe: Probe): Promise<void> {
  for (const group of probe.limitGroups) {
    const limit = LIMITS[group];
    if (!limit) continue;
    const active = await t.monitors.countActive(sessionId, kindsInGroup(group));
    if (active >= limit.max) {
      throw new LimitError(
        `Limit reached: at most ${limit.max} ${limit.label} armed per session (this session has ${active}); cancel one first`,
      );
    }
  }
}

/**
 * Whether its checks need the session's own machine (team mode, design.md §9.1): every kind but
 * those that say otherwise, and any source holding a vault reference (the vault is per home).
 */
export function isHostBound({ source, probe }: Pick<PreparedMonitor, "source" | "probe">): boolean {
  if (secretKeysIn(probe.secretText(source as never)).length > 0) return true;
  return !(probe.hostFree?.(source as never) ?? false);
}

/**
 * The row a prepared monitor is stored as: its first check at once (or when its kind says); a
 * host-bound one is checked only by `sessionHost`, the host its session was made on.
 */
export function monitorRow(
  sessionId: string,
  id: string,
  body: MonitorCreate,
  { source, probe, timing }: PreparedMonitor,
  shield: Shield,
  now: number,
  sessionHost: string | null,
): NewMonitor {
  return {
    sessionId,
    id,
    name: body.name ?? shield.text(probe.defaultName(source as never)),
    kind: source.kind,
    source,
    continuation: body.continuation ?? null,
    intervalMs: timing.intervalMs,
    timeoutMs: timing.timeoutMs,
    createdAt: now,
    mode: probe.mode,
    nextDueAt: probe.mode === "poll" ? (probe.firstDueAt ? probe.firstDueAt(source as never, now) : now) : null,
    deadlineAt: now + timing.timeoutMs,
    hostId: isHostBound({ source, probe }) ? sessionHost : null,
  };
}
