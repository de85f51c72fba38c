/**
 * What a home remembers of its team (team mode, #27): the database its daemon ran on and its host
 * name, in `$VIGIL_HOME/team.json` (0600 in the 0700 home, as a `~/.pgpass` is). A plain `vigil
 * serve` — the CLI's, a hook's or `vigil mcp`'s auto-start, which know neither — then joins the same
 * team as the same host instead of starting on an empty SQLite file, and the CLI's default session
 * is this host's (`default-HOST`: a session belongs to one host). Removing the file leaves the team.
 * Design: docs/design.md §9.1.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { HostNameSchema } from "../../../shared/schemas/inputs.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { ValidationError } from "./errors.js";

const TeamFileSchema = z.strictObject({
  databaseUrl: z.string().regex(/^postgres(ql)?:\/\//, "Expected a postgres:// or postgresql:// URL"),
  hostName: HostNameSchema,
});
export type TeamFile = z.infer<typeof TeamFileSchema>;

export const teamFilePath = (home: string): string => join(home, "team.json");

/** The home's team, or null on a home that never ran in one; a damaged file is an error naming it. */
export function readTeamFile(home: string): TeamFile | null {
  const file = teamFilePath(home);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ValidationError(`${file}: Expected JSON, got unreadable text (${(error as Error).message})`);
  }
  const parsed = TeamFileSchema.safeParse(raw);
  if (!parsed.success) throw new ValidationError(`${file}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

export function writeTeamFile(home: string, team: TeamFile): void {
  const file = teamFilePath(home);
  writeFileSync(file, `${JSON.stringify(team, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The CLI's session when none is named: `default`, or in a team home `default-HOST` (sessions are per host). */
export function defaultSessionOf(home: string): string {
  let team: TeamFile | null = null;
  try {
    team = readTeamFile(home);
  } catch {
    // The daemon says what is wrong with the file when it starts; the CLI falls back meanwhile.
  }
  return team ? `default-${team.hostName}` : "default";
}
