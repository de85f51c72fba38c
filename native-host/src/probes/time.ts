/** `time`: wake at `at` (UTC ISO), which must come before the monitor's deadline (design.md §4.1). */
import { type TimeSource, TimeSourceSchema } from "../../../shared/schemas/sources.js";
import { ValidationError } from "../base/errors.js";
import type { PollProbe } from "./probe.js";
import { observationTiming } from "./timing.js";

export const timeProbe: PollProbe<TimeSource> = {
  kind: "time",
  mode: "poll",
  schema: TimeSourceSchema,
  limitGroups: ["monitor"],
  defaultName: (source) => `at ${source.at}`,
  describe: (source) => `the time ${source.at}`,
  timing: observationTiming,
  secretText: () => "",
  hostFree: () => true,
  validate: (source, { deadlineAt }) => {
    if (Date.parse(source.at) >= deadlineAt) {
      throw new ValidationError(
        `source.at: Expected a time before the monitor's deadline ${new Date(deadlineAt).toISOString()}, got ${source.at} (raise timeoutSeconds)`,
      );
    }
  },
  firstDueAt: (source) => Date.parse(source.at),
  condition: () => ({ path: "reached", operator: "equals", value: true }),
  // Its first check is at its time: never "already true when armed".
  metDetail: (source) => `its time came (${source.at})`,
  check: async (source) => ({
    outcome: "observed",
    observation: { at: source.at, now: new Date().toISOString(), reached: Date.now() >= Date.parse(source.at) },
    eventText: `it is ${new Date().toISOString()} (armed for ${source.at})`,
  }),
};
