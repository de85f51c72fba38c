/** `signal`: a waitpoint (design.md §5). Armed through wait_create; its signals come from outside. */
import { WAIT_LIMITS } from "../../../shared/schemas/inputs.js";
import { type SignalSource, SignalSourceSchema } from "../../../shared/schemas/sources.js";
import { ValidationError } from "../base/errors.js";
import type { SignalProbe } from "./probe.js";

export const signalProbe: SignalProbe<SignalSource> = {
  kind: "signal",
  mode: "signal",
  schema: SignalSourceSchema,
  limitGroups: [],
  defaultName: () => "waitpoint",
  describe: (source) =>
    source.members
      ? `signals from ${source.members.join(", ")} (quorum ${source.quorum}${source.failFast ? ", fail fast" : ""})`
      : `signals (quorum ${source.quorum}${source.maxSignals > 1 ? `, up to ${source.maxSignals} wakes` : ""})`,
  timing: ({ timeoutSeconds }) => {
    const max = WAIT_LIMITS.maxExpiresInHours * 3600;
    if (timeoutSeconds === undefined || timeoutSeconds <= 0 || timeoutSeconds > max) {
      throw new ValidationError(
        `expires_in_hours: Expected more than 0 and at most ${WAIT_LIMITS.maxExpiresInHours}, got ${timeoutSeconds === undefined ? "nothing" : timeoutSeconds / 3600}`,
      );
    }
    return { intervalMs: null, timeoutMs: Math.round(timeoutSeconds * 1000), checkTimeoutMs: 0 };
  },
  secretText: () => "",
  hostFree: () => true,
};
