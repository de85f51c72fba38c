/**
 * Configuration, in one place: the environment variables Vigil reads (validated with zod, read once
 * per process) and the settings (`$VIGIL_HOME/settings.json` first, then the environment, then
 * defaults). A bad value stops the command or the daemon with a message naming the variable or key
 * and what came. (`vigil signal` also reads a job's VIGIL_SIGNAL_* variables: those are that
 * command's input, not configuration.)
 * Design: docs/design.md §1, §7.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { HostNameSchema } from "../../../shared/schemas/inputs.js";
import { type Settings, SettingsSchema } from "../../../shared/schemas/settings.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { boundSession } from "./agent-process.js";

const Whole = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).optional();

/** Every variable Vigil reads, with what it accepts. Empty counts as unset. */
export const EnvSchema = z.object({
  /** Vigil's home folder (default ~/.vigil). */
  VIGIL_HOME: z.string().min(1).optional(),
  /** The daemon's port on 127.0.0.1 for the default home (default 7391; 0: any free port). */
  VIGIL_PORT: Whole(0, 65_535),
  /** The CLI's session when --session is not given (default "default"). */
  VIGIL_SESSION: z.string().min(1).max(128).optional(),
  /** Set by Claude Code in its tool subprocesses: the session a CLI call binds to by itself. */
  CLAUDE_CODE_SESSION_ID: z.string().min(1).max(128).optional(),
  /** Set to 1 by Gemini CLI in its shell tool: the session is the one its Gemini ancestor recorded. */
  GEMINI_CLI: z.string().optional(),
  /** Set by Vigil's OpenCode plugin in OpenCode's shell tool: the session. */
  OPENCODE_SESSION_ID: z.string().min(1).max(128).optional(),
  /** Set by GitHub Copilot CLI in its shell tool: the session (`copilot --resume` takes it). */
  COPILOT_AGENT_SESSION_ID: z.string().min(1).max(128).optional(),
  /** Set by Codex in its tool subprocesses: the thread (`codex exec resume` takes it). */
  CODEX_THREAD_ID: z.string().min(1).max(128).optional(),
  VIGIL_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).optional(),
  /** SQLite's synchronous mode: normal (default; WAL keeps commits across a process crash) or full. */
  VIGIL_SYNCHRONOUS: z.enum(["normal", "full"]).optional(),
  /** Lowers the 5 s interval floor (tests run the same machinery in milliseconds). */
  VIGIL_INTERVAL_FLOOR_SECONDS: z.coerce.number().positive().optional(),
  VIGIL_DELIVERY_MAX_ATTEMPTS: Whole(1, 1000),
  VIGIL_DELIVERY_RETRY_BASE_MS: Whole(10),
  VIGIL_DELIVERY_RETRY_CAP_MS: Whole(10),
  /** Needs-you notifications (issue #40): how often the notifier looks (default 2000). */
  VIGIL_NOTIFY_PASS_MS: Whole(10),
  /** How long a new entry waits for others to go in the same message (default 10000). */
  VIGIL_NOTIFY_GROUP_MS: Whole(0),
  /** The least time between two messages to one channel (default 60000). */
  VIGIL_NOTIFY_RATE_MS: Whole(0),
  /** A failed message's first retry comes after this long, doubling (default 5000). */
  VIGIL_NOTIFY_RETRY_BASE_MS: Whole(10),
  /** How long a wake an agent's hook took may wait for the session's transcript to show it. */
  VIGIL_HOOK_CONFIRM_SECONDS: Whole(1, 24 * 3600),
  /** Time a delivery lease allows beyond the adapter's timeout before it counts as interrupted. */
  VIGIL_DELIVERY_LEASE_GRACE_MS: Whole(0),
  /** The HTTP API's limits on one client (tests lower them; see http/server.ts HTTP_LIMITS). */
  VIGIL_HTTP_HEADERS_TIMEOUT_MS: Whole(100),
  VIGIL_HTTP_MAX_CONNECTIONS: Whole(1, 65_535),
  /** How long a client (CLI, hooks, MCP, the bridge) waits for one answer from the daemon (default 30000). */
  VIGIL_CLIENT_TIMEOUT_MS: Whole(100),
  /** `1`: the full API also on TCP with the bearer token (default: only /healthz and /webhook/signal). */
  VIGIL_TCP_API: z.enum(["0", "1"]).optional(),
  /** `off`: command checks spawn from the daemon; a path: another vigil-spawner binary. */
  VIGIL_SPAWNER: z.string().min(1).optional(),
  /** When a ready wake nothing took needs the person (default 900000: 15 min; tests lower it). */
  VIGIL_WAKE_NOT_TAKEN_MS: Whole(100),
  /** How often a device watched with inotifywait is collected anyway (default 5000; 0: never). */
  VIGIL_DEVICE_SWEEP_MS: Whole(0),
  /** Team mode: the store on PostgreSQL at this URL instead of the home's SQLite file (its password never logged). */
  VIGIL_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "Expected a postgres:// or postgresql:// URL")
    .optional(),
  /** Team mode: this daemon's host name on the shared database (default: the machine's hostname). */
  VIGIL_HOST_NAME: HostNameSchema.optional(),
  /** Tests: `1` makes a store call that breaks a transaction (outside its `t`) throw (costs CPU per promise). */
  VIGIL_CHECK_TX_SCOPE: z.enum(["0", "1"]).optional(),
  /** Tests only: the daemon kills itself (SIGKILL) at this step of a device collection. */
  VIGIL_FAULT: z.enum(["device-listed", "device-stored"]).optional(),
  /** As for `gh`: the GitHub host a `github__pr` monitor armed without `api_url` reads (checked at arming, not here: it is gh's too). */
  GH_HOST: z.string().optional(),
  VIGIL_WAITPOINT_TTL_MS: z.string().optional(),
  VIGIL_WAITPOINT_SWEEP_MS: z.string().optional(),
  VIGIL_WAITPOINT_MAX_WAKES_PER_HOUR: z.string().optional(),
  VIGIL_WAITPOINT_SIGNALS_PER_MINUTE: z.string().optional(),
  /** Team mode: the settings databasePoolMax, databaseStatementTimeoutMs and databaseCommitsInFlight (checked in loadSettings). */
  VIGIL_DATABASE_POOL_MAX: z.string().optional(),
  VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: z.string().optional(),
  VIGIL_DATABASE_COMMITS_IN_FLIGHT: z.string().optional(),
});
export type EnvConfig = z.infer<typeof EnvSchema>;

/** Parses the variables Vigil reads out of `env`; throws naming the variable and what came. */
export function parseEnv(env: NodeJS.ProcessEnv): EnvConfig {
  const relevant = Object.fromEntries(
    Object.keys(EnvSchema.shape)
      .map((name) => [name, env[name]])
      .filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = EnvSchema.safeParse(relevant);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "environment");
    throw new Error(`${name}: ${issue?.message ?? "invalid"} (got ${JSON.stringify(relevant[name])})`);
  }
  return parsed.data;
}

let cached: EnvConfig | undefined;

/** The agent session this process runs in (a tool subprocess of Claude Code, Codex or Gemini CLI), if any. */
export function agentOfShell(): {
  kind: "claude" | "codex" | "gemini" | "opencode" | "copilot";
  id: string;
  pid?: number;
} | null {
  const env = envConfig();
  const pid = (raw: string | undefined) => {
    const n = Number(raw);
    return Number.isInteger(n) && n > 0 ? { pid: n } : {};
  };
  if (env.CLAUDE_CODE_SESSION_ID)
    return { kind: "claude", id: env.CLAUDE_CODE_SESSION_ID, ...pid(process.env.CLAUDE_PID) };
  if (env.CODEX_THREAD_ID) return { kind: "codex", id: env.CODEX_THREAD_ID };
  if (env.OPENCODE_SESSION_ID) return { kind: "opencode", id: env.OPENCODE_SESSION_ID };
  if (env.COPILOT_AGENT_SESSION_ID) return { kind: "copilot", id: env.COPILOT_AGENT_SESSION_ID };
  // Gemini CLI names no session to its tools: its SessionStart hook recorded its process's.
  if (env.GEMINI_CLI === "1") {
    const bound = boundSession(resolve(env.VIGIL_HOME ?? join(homedir(), ".vigil")));
    if (bound?.kind === "gemini") return { kind: "gemini", id: bound.id, pid: bound.pid };
  }
  return null;
}

/**
 * The environment without one agent session's identity (its session id, process, sockets,
 * sandbox flags): the daemon serves every session and must not carry the one that happened to
 * start it, nor hand it to an agent it resumes. The user's configuration (CLAUDE_CONFIG_DIR,
 * CODEX_HOME, API settings) stays.
 */
export function withoutAgentSession(env: NodeJS.ProcessEnv): Record<string, string> {
  const session =
    /^(CLAUDECODE|CLAUDE_PID|CLAUDE_ENV_FILE|CLAUDE_PROJECT_DIR|AI_AGENT|CODEX_(THREAD_ID|SESSION_ID|TOOL_CALL_ID|CI|SANDBOX.*|MANAGED_BY.*)|GEMINI_(CLI|SESSION_ID|CWD|PROJECT_DIR|PLANS_DIR)|OPENCODE_SESSION_ID|OPENCODE|COPILOT_(AGENT_SESSION_ID|CLI|HOOK_DIR|PROJECT_DIR|CLI_BINARY_VERSION|CLI_RESOLVED_DIST_DIR))$|^CLAUDE_CODE_(SESSION_ID|ENTRYPOINT|CHILD_.*|MESSAGING_.*|SESSION_ATTENDED)$/;
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && !session.test(entry[0])),
  );
}

/** This process's environment configuration, read once. */
export function envConfig(): EnvConfig {
  cached ??= parseEnv(process.env);
  return cached;
}

export interface ResolvedSettings {
  /** A waitpoint's default lifetime (expires_in_hours overrides it). */
  waitpointTtlMs: number;
  /** Spool sweep interval; 0 turns the sweep off (the folder watch still collects). */
  waitpointSweepMs: number;
  waitpointMaxWakesPerHour: number;
  /** Signals one waitpoint stores a minute, per kind (progress; ok/fail), in bursts of half (core/signal-budget.ts). */
  waitpointSignalsPerMinute: number;
  /** The whole API on TCP with the bearer token too (settings `tcpApi`, or VIGIL_TCP_API=1). */
  tcpApi: boolean;
  /** Team mode: the PostgreSQL pool's size. */
  databasePoolMax: number;
  /** Team mode: PostgreSQL's statement_timeout for this daemon's connections (0: none). */
  databaseStatementTimeoutMs: number;
  /** Team mode: group commits of signals in flight at once (core/group-commit.ts; SQLite: always 1). */
  databaseCommitsInFlight: number;
}

export const DEFAULT_SETTINGS: ResolvedSettings = {
  waitpointTtlMs: 7 * 24 * 3_600_000,
  waitpointSweepMs: 30_000,
  waitpointMaxWakesPerHour: 12,
  waitpointSignalsPerMinute: 60,
  tcpApi: false,
  databasePoolMax: 10,
  databaseStatementTimeoutMs: 0,
  databaseCommitsInFlight: 2,
};

type NumericSetting = Exclude<keyof ResolvedSettings, "tcpApi">;

const ENV: Record<NumericSetting, string> = {
  waitpointTtlMs: "VIGIL_WAITPOINT_TTL_MS",
  waitpointSweepMs: "VIGIL_WAITPOINT_SWEEP_MS",
  waitpointMaxWakesPerHour: "VIGIL_WAITPOINT_MAX_WAKES_PER_HOUR",
  waitpointSignalsPerMinute: "VIGIL_WAITPOINT_SIGNALS_PER_MINUTE",
  databasePoolMax: "VIGIL_DATABASE_POOL_MAX",
  databaseStatementTimeoutMs: "VIGIL_DATABASE_STATEMENT_TIMEOUT_MS",
  databaseCommitsInFlight: "VIGIL_DATABASE_COMMITS_IN_FLIGHT",
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
  resolved.tcpApi = fromFile.tcpApi ?? parseEnv(env).VIGIL_TCP_API === "1";
  for (const key of Object.keys(ENV) as NumericSetting[]) {
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
