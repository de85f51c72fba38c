/**
 * `browser`: one element of one exact tab, read by the extension (design.md §4.1). The daemon sends
 * `observe {tabId, url, selector}` to the connected browser; the extension reads only that tab,
 * only that element, after checking the tab is exactly at `url`. Every failure (no browser, tab
 * closed, URL differs, no permission, not loaded, element missing) is a recorded check error, and
 * the monitor keeps checking until its deadline.
 */

import { conditionPaths } from "../../../shared/conditions.js";
import { ObservationSchema } from "../../../shared/schemas/native-messages.js";
import { type BrowserSource, BrowserSourceSchema } from "../../../shared/schemas/sources.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { toError } from "../base/log.js";
import type { PollProbe } from "./probe.js";
import { observationTiming } from "./timing.js";

export const browserProbe: PollProbe<BrowserSource> = {
  kind: "browser",
  mode: "poll",
  schema: BrowserSourceSchema,
  limitGroups: ["monitor"],
  defaultName: (source) => `${source.selector} on ${source.url}`.slice(0, 200),
  describe: (source) => `${source.selector} in tab ${source.tabId} (${source.url})`,
  timing: observationTiming,
  secretText: () => "",
  condition: (source) => source.condition,
  check: async (source, context) => {
    let answer: unknown;
    try {
      answer = await context.browser.request(
        { type: "observe", tabId: source.tabId, url: source.url, selector: source.selector, label: context.label },
        { timeoutMs: context.timeoutMs, signal: context.signal },
      );
    } catch (error) {
      return { outcome: "error", error: toError(error).message };
    }
    const parsed = ObservationSchema.safeParse(answer);
    if (!parsed.success) {
      return {
        outcome: "error",
        error: `the extension answered an unexpected observation: ${formatZodError(parsed.error)}`,
      };
    }
    const observation = parsed.data;
    // A missing element is an error unless the condition is about presence itself.
    if (!observation.exists && !conditionPaths(source.condition).includes("exists")) {
      return {
        outcome: "error",
        error: `element missing: nothing matches ${source.selector} on ${observation.url} (the page changed, or has not rendered it yet)`,
      };
    }
    return {
      outcome: "observed",
      observation,
      eventText: observation.exists
        ? `${source.selector}: ${JSON.stringify(observation.text.slice(0, 500))}`
        : `${source.selector}: absent`,
    };
  },
};
