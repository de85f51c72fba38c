/**
 * `$VIGIL_HOME/settings.json` (design.md §1): every key optional; base/config.ts fills the rest
 * from the environment and defaults.
 */
import { z } from "zod";
import { WAIT_LIMITS } from "./inputs.js";

/** `$VIGIL_HOME/settings.json` (every key optional; environment variables fill the rest). */
export const SettingsSchema = z.strictObject({
  waitpointTtlMs: z
    .number()
    .int()
    .min(60_000)
    .max(WAIT_LIMITS.maxExpiresInHours * 3_600_000)
    .optional(),
  waitpointSweepMs: z.number().int().min(0).max(3_600_000).optional(),
  waitpointMaxWakesPerHour: z.number().int().min(1).max(1000).optional(),
  /** Signals one waitpoint stores a minute, per kind (progress; ok/fail), in bursts of half; past it 429. */
  waitpointSignalsPerMinute: z.number().int().min(2).max(100_000).optional(),
  /**
   * Serve the whole API on TCP too (127.0.0.1, bearer token). Off by default: same-user clients use
   * the owner-only Unix socket, and TCP carries only /healthz and /webhook/signal.
   */
  tcpApi: z.boolean().optional(),
  /** Team mode: connections this daemon keeps open to PostgreSQL at most (default 10). */
  databasePoolMax: z.number().int().min(1).max(100).optional(),
  /** Team mode: PostgreSQL cancels a statement running longer than this (ms; default 0: no limit). */
  databaseStatementTimeoutMs: z.number().int().min(0).max(3_600_000).optional(),
  /** Team mode: group commits of signals in flight at once (default 2; more overlap WAL flushes, and contend). */
  databaseCommitsInFlight: z.number().int().min(1).max(16).optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;
