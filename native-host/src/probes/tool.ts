/** `tool`: a read-only tool call polled until its condition holds (design.md §4.1). */
import { type ToolSource, ToolSourceSchema } from "../../../shared/schemas/sources.js";
import { assertAnyHostAllowed, mayRunOnAnyHost, readOnlyTool, TOOLS } from "../tools/registry.js";
import type { PollProbe } from "./probe.js";
import { observationTiming } from "./timing.js";
import { callTool } from "./tool-call.js";

export const toolProbe: PollProbe<ToolSource> = {
  kind: "tool",
  mode: "poll",
  schema: ToolSourceSchema,
  limitGroups: ["monitor"],
  defaultName: (source) => `${source.name} ${JSON.stringify(source.args)}`.slice(0, 200),
  describe: (source) => `${source.name}(${JSON.stringify(source.args)})`,
  timing: observationTiming,
  secretText: (source) => JSON.stringify(source.args),
  hostFree: (source) => source.anyHost === true && mayRunOnAnyHost(source.name),
  withDefaults: (source, hasKey) => {
    const tool = TOOLS.get(source.name);
    return tool?.withDefaults
      ? { ...source, args: tool.withDefaults(source.args, hasKey) as ToolSource["args"] }
      : source;
  },
  validate: (source) => {
    const { args } = readOnlyTool(source.name, source.args);
    if (source.anyHost) assertAnyHostAllowed(source.name, args);
  },
  condition: (source) => source.condition,
  check: (source, context) => callTool(source, context),
};
