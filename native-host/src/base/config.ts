/**
 * Settings (SPEC §5): `$VIGIL_HOME/settings.json` first, then the environment, then defaults.
 * A settings file that does not parse stops the daemon with a message naming the key.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Settings, SettingsSchema } from "../../../shared/schemas/settings.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";

export interface ResolvedSettings {
  /** A waitpoint's default lifetime (expires_in_hours overrides it). */
  waitpointTtlMs: number;
  /** Spool sweep interval; 0 turns the sweep off (the folder watch still collects). */
  waitpointSweepMs: number;
  waitpointMaxWakesPerHour: number;
}

export const DEFAULT_SETTINGS: ResolvedSettings = {
  waitpointTtlMs: 7 * 24 * 3_600_000,
  waitpointSweepMs: 30_000,
  waitpointMaxWakesPerHour: 12,
};

const ENV: Record<keyof ResolvedSettings, string> = {
  waitpointTtlMs: "VIGIL_WAITPOINT_TTL_MS",
  waitpointSweepMs: "VIGIL_WAITPOINT_SWEEP_MS",
  waitpointMaxWakesPerHour: "VIGIL_WAITPOINT_MAX_WAKES_PER_HOUR",
};

export function loadSettings(home: string, env: NodeJS.ProcessEnv = process.env): ResolvedSettings {
  const file = join(home, "settings.json");
  let fromFile: Settings = {};
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    // No settings file: environment and defaults.
  }
  if (text !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Error(`${file}: Expected JSON, got malformed JSON (${(error as Error).message})`);
    }
    const parsed = SettingsSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`${file}: ${formatZodError(parsed.error)}`);
    fromFile = parsed.data;
  }
  const resolved = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(ENV) as Array<keyof ResolvedSettings>) {
    const fileValue = fromFile[key];
    if (fileValue !== undefined) {
      resolved[key] = fileValue;
      continue;
    }
    const raw = env[ENV[key]];
    if (raw === undefined || raw === "") continue;
    const parsed = SettingsSchema.safeParse({ [key]: Number(raw) });
    if (!parsed.success) throw new Error(`${ENV[key]}: ${formatZodError(parsed.error)} (got ${raw})`);
    resolved[key] = parsed.data[key] as number;
  }
  return resolved;
}
