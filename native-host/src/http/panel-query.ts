/**
 * The panel route's query (#26): paging (`offset`, `limit`), `filter=all|needs|active|ended`,
 * `session`, `kind` (a source kind, or `waitpoint`), `device`, `host` (team mode: a host's name) and
 * `q` (a case-insensitive substring).
 * Each value is checked; a wrong one is a 400 saying what was expected and what came.
 * Design: docs/design.md §7, §11.
 */
import type { z } from "zod";
import { SessionIdSchema } from "../../../shared/schemas/ids.js";
import { DeviceNameSchema, HostNameSchema } from "../../../shared/schemas/inputs.js";
import type { SourceKind } from "../../../shared/schemas/sources.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import type { PanelQuery } from "../engine/panel-page.js";
import { LIST_FILTERS, type ListFilter } from "../store/panel.js";
import { HttpError } from "./json-io.js";

/** The kinds the panel filters by: a waitpoint's source kind is `signal`. */
const KINDS: Record<string, SourceKind> = {
  command: "command",
  watch: "watch",
  browser: "browser",
  tool: "tool",
  event: "event",
  time: "time",
  waitpoint: "signal",
  signal: "signal",
};

/** The longest search text. */
export const MAX_QUERY_CHARS = 200;

/** A whole number from the query, within bounds; `fallback` when absent. */
export function pageNumber(
  value: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new HttpError(400, `${name}: Expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function checked(value: string | undefined, name: string, schema: z.ZodType<string>): string | null {
  if (value === undefined || value === "") return null;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, `${name}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

export function panelQuery(query: Record<string, string | undefined>): PanelQuery {
  const filter = query.filter ?? "all";
  if (!(LIST_FILTERS as readonly string[]).includes(filter)) {
    throw new HttpError(400, `filter: Expected one of ${LIST_FILTERS.join(", ")}, got ${JSON.stringify(filter)}`);
  }
  const kindName = query.kind === undefined || query.kind === "" ? null : query.kind;
  if (kindName !== null && !Object.hasOwn(KINDS, kindName)) {
    const names = Object.keys(KINDS).filter((k) => k !== "signal");
    throw new HttpError(400, `kind: Expected one of ${names.join(", ")}, got ${JSON.stringify(kindName)}`);
  }
  const q = (query.q ?? "").trim().toLowerCase();
  if (q.length > MAX_QUERY_CHARS) {
    throw new HttpError(400, `q: Expected at most ${MAX_QUERY_CHARS} characters, got ${q.length}`);
  }
  return {
    offset: pageNumber(query.offset, "offset", 0, 0, Number.MAX_SAFE_INTEGER),
    limit: pageNumber(query.limit, "limit", 200, 1, 500),
    filter: filter as ListFilter,
    sessionId: checked(query.session, "session", SessionIdSchema),
    kind: kindName === null ? null : (KINDS[kindName] as SourceKind),
    device: checked(query.device, "device", DeviceNameSchema),
    host: checked(query.host, "host", HostNameSchema),
    q: q === "" ? null : q,
  };
}
