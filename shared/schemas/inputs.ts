/**
 * What callers send (design.md §7): HTTP bodies, MCP arguments and CLI options for sessions,
 * adapters, monitors, inbound events, the vault, waitpoints and signals.
 */
import { z } from "zod";
import { SessionIdSchema } from "./ids.js";
import { SessionSandboxSchema } from "./sandbox.js";
import { HttpUrl, SourceSchema } from "./sources.js";

export const EventPostSchema = z.strictObject({
  type: z.string().min(1).max(200),
  payload: z.unknown().default({}),
});
export type EventPost = z.infer<typeof EventPostSchema>;

/** Placeholders a command adapter's argv may hold. */
export const ARGV_PLACEHOLDERS = ["session", "wake_id", "wake_ids", "turn"] as const;

const CommandAdapterSchema = z
  .strictObject({
    kind: z.literal("command"),
    argv: z
      .array(z.string().min(1, "Expected non-empty argv items").max(4096))
      .min(1, "Expected argv with a program")
      .max(64),
    timeoutSeconds: z.number().int().min(1).max(3600).optional(),
  })
  .superRefine((adapter, ctx) => {
    adapter.argv.forEach((item, i) => {
      for (const match of item.matchAll(/\{([^{}]*)\}/g)) {
        const name = match[1] as string;
        if (!(ARGV_PLACEHOLDERS as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: "custom",
            path: ["argv", i],
            message: `Expected placeholders ${ARGV_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}, got {${name}}`,
          });
        }
      }
    });
    if (/[{}]/.test(adapter.argv[0] ?? "")) {
      ctx.addIssue({ code: "custom", path: ["argv", 0], message: "Expected a program path without placeholders" });
    }
  });

const WebhookAdapterSchema = z.strictObject({
  kind: z.literal("webhook"),
  url: HttpUrl,
  /** Extra headers; values may hold ${secret:KEY}. */
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/), z.string().max(4096)).optional(),
  timeoutSeconds: z.number().int().min(1).max(120).optional(),
});

const AgentFields = {
  /** The agent's process while the session is open (its SessionStart hook says so). */
  pid: z.number().int().positive().optional(),
  /**
   * When that process started (/proc/<pid>/stat field 22, clock ticks since boot): recorded by the
   * daemon when the pid is set, so a recycled pid is not taken for the agent. Set by the daemon only.
   */
  pidStart: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional(),
  /** The agent CLI to resume a closed session with (default: `claude` / `codex` / `gemini` on PATH). */
  program: z.string().min(1).max(4096).optional(),
  /** The agent's config folder ($CLAUDE_CONFIG_DIR / $CODEX_HOME / $GEMINI_CLI_HOME / $COPILOT_HOME) when not the default. */
  configDir: z.string().min(1).max(4096).optional(),
  /** Extra arguments for the headless resume, e.g. ["--allowedTools", "Bash"]. */
  resumeArgs: z.array(z.string().max(4096)).max(64).optional(),
  timeoutSeconds: z
    .number()
    .int()
    .min(10)
    .max(24 * 3600)
    .optional(),
  /** The session's transcript: a wake a hook handed over counts once it shows there. */
  transcriptPath: z.string().max(4096).optional(),
};

/** A Claude Code session: woken in-session by its hooks while open, resumed headless once closed. */
const ClaudeAdapterSchema = z.strictObject({ kind: z.literal("claude"), ...AgentFields });

/** A Codex thread: resumed headless (codex exec resume) once closed. */
const CodexAdapterSchema = z.strictObject({ kind: z.literal("codex"), ...AgentFields });

/** A Gemini CLI session: woken in-session by its hooks while open, resumed headless (gemini --resume) once closed. */
const GeminiAdapterSchema = z.strictObject({ kind: z.literal("gemini"), ...AgentFields });

/** An OpenCode session: prompted by Vigil's plugin while open, resumed headless (opencode run --session) once closed. */
const OpencodeAdapterSchema = z.strictObject({ kind: z.literal("opencode"), ...AgentFields });

/** A GitHub Copilot CLI session: woken in-session by its hooks while open, resumed headless (copilot --resume) once closed. */
const CopilotAdapterSchema = z.strictObject({ kind: z.literal("copilot"), ...AgentFields });

export const AdapterSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("inbox") }),
  CommandAdapterSchema,
  WebhookAdapterSchema,
  z.strictObject({ kind: z.literal("mcp") }),
  ClaudeAdapterSchema,
  CodexAdapterSchema,
  GeminiAdapterSchema,
  OpencodeAdapterSchema,
  CopilotAdapterSchema,
]);
export type Adapter = z.infer<typeof AdapterSchema>;
export type AdapterKind = Adapter["kind"];

/** The adapters of agent sessions: held while the agent is open, resumed headless once it is not. */
export const AGENT_ADAPTER_KINDS = ["claude", "codex", "gemini", "opencode", "copilot"] as const;
export type AgentAdapter = Extract<Adapter, { kind: (typeof AGENT_ADAPTER_KINDS)[number] }>;
export const isAgentAdapter = (adapter: Adapter): adapter is AgentAdapter =>
  (AGENT_ADAPTER_KINDS as readonly string[]).includes(adapter.kind);

export const SessionPatchSchema = z.strictObject({
  label: z.string().max(200).optional(),
  adapter: AdapterSchema.optional(),
  /** The sandbox the session's agent runs under (its hooks report it); checks armed later run no stronger. */
  sandbox: SessionSandboxSchema.optional(),
});

export const TurnSchema = z.strictObject({
  state: z.enum(["busy", "idle"]),
  /** A busy turn ends by itself after this long, so a crashed platform cannot hold wakes forever. */
  leaseSeconds: z.number().int().min(1).max(86_400).optional(),
});

export const SessionCreateSchema = z.strictObject({
  id: SessionIdSchema.optional(),
  label: z.string().max(200).optional(),
  root: z.string().min(1).max(4096).optional(),
  adapter: AdapterSchema.optional(),
  sandbox: SessionSandboxSchema.optional(),
});
export type SessionCreate = z.infer<typeof SessionCreateSchema>;

export const MonitorCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  source: SourceSchema,
  intervalSeconds: z.number().finite().optional(),
  timeoutSeconds: z.number().finite().optional(),
  continuation: z.string().max(4000).optional(),
});
export type MonitorCreate = z.infer<typeof MonitorCreateSchema>;

export const ControlSchema = z.strictObject({ action: z.enum(["pause", "resume", "cancel"]) });
export type ControlAction = z.infer<typeof ControlSchema>["action"];

export const VaultKeySchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "Expected a key of letters, digits and '_' (not starting with a digit)");
export const VaultSetSchema = z.strictObject({
  value: z.string().min(4, "Expected a value of at least 4 characters (shorter ones cannot be shielded)").max(8192),
});

const MemberName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Expected a member name of letters, digits, '.', '_' or '-'");

export const WAIT_LIMITS = { maxExpiresInHours: 720, maxMembers: 100, maxSignals: 1000 } as const;

export const WaitCreateSchema = z
  .strictObject({
    label: z.string().trim().min(1, "Expected a short label").max(200),
    intent: z.string().trim().min(1, "Expected the intent: what you wait for and what you will do then").max(4000),
    members: z.array(MemberName).min(1).max(WAIT_LIMITS.maxMembers).optional(),
    quorum: z.union([z.number().int().min(1), z.literal("all")]).optional(),
    fail_fast: z.boolean().optional(),
    max_signals: z.number().int().min(1).max(WAIT_LIMITS.maxSignals).optional(),
    expires_in_hours: z
      .number()
      .positive()
      .max(WAIT_LIMITS.maxExpiresInHours, "Expected at most 720 hours (30 days)")
      .optional(),
    /** No signal of any kind (progress included) for this long wakes the owner with "stalled". */
    heartbeat_timeout_seconds: z
      .number()
      .positive()
      .max(WAIT_LIMITS.maxExpiresInHours * 3600)
      .optional(),
    /** A device (`vigil devices add`) whose spool files signal it; its how_to_signal.shell writes there. */
    device: z.string().min(1).max(64).optional(),
  })
  .superRefine((input, ctx) => {
    if (input.members && new Set(input.members).size !== input.members.length) {
      ctx.addIssue({ code: "custom", path: ["members"], message: "Expected distinct member names" });
    }
    if (typeof input.quorum === "number" && input.members && input.quorum > input.members.length) {
      ctx.addIssue({
        code: "custom",
        path: ["quorum"],
        message: `Expected a quorum of at most ${input.members.length} (the number of members), got ${input.quorum}`,
      });
    }
  });
export type WaitCreate = z.infer<typeof WaitCreateSchema>;

/** A device's name: what `wait_create {device}` and `vigil devices rm` name it by. */
export const DeviceNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "Expected a device name of letters, digits, '.', '_' or '-'");

/** A host name in team mode (`--host-name`): what a DNS label allows, plus '.' and '_'. */
export const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export const HostNameSchema = z
  .string()
  .regex(
    HOST_NAME,
    "Expected a host name of letters, digits, '.', '_' or '-' (1 to 63, starting with a letter or digit)",
  );

/**
 * `[USER@]HOST`: never starting with "-" (ssh would read it as an option), no spaces or shell
 * characters. A HOST may be an alias of the user's ~/.ssh/config.
 */
export const SshTargetSchema = z
  .string()
  .max(255)
  .regex(
    /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*@)?[A-Za-z0-9_[][A-Za-z0-9._:%[\]-]*$/,
    "Expected [USER@]HOST (letters, digits, '.', '_', '-', ':'; not starting with '-')",
  );

/** POST /api/devices (`vigil devices add NAME --ssh [USER@]HOST [--port N] [--identity FILE]`). */
export const DeviceAddSchema = z.strictObject({
  name: DeviceNameSchema,
  ssh: SshTargetSchema,
  port: z.number().int().min(1).max(65535).optional(),
  /** An absolute path to a private key, handed to ssh as `-i FILE`. */
  identity: z.string().min(1).max(4096).startsWith("/", "Expected an absolute path").optional(),
});
export type DeviceAdd = z.infer<typeof DeviceAddSchema>;

export const SIGNAL_STATUSES = ["ok", "fail", "progress"] as const;
export const SIGNAL_LIMITS = { bodyBytes: 64 * 1024, messageChars: 2000, dataChars: 16_000 } as const;

/** POST /webhook/signal and spool files. Over-long message/data are cut, not refused. */
export const SignalBodySchema = z.strictObject({
  id: z.string().min(1).max(64),
  secret: z.string().min(1).max(256),
  status: z.enum(SIGNAL_STATUSES).default("ok"),
  message: z.string().optional(),
  member: z.string().max(64).optional(),
  data: z.unknown().optional(),
  /** The sender's identity for this signal: a repeat with the same key to the same waitpoint is a duplicate. */
  key: z.string().min(1).max(200).optional(),
});
export type SignalBody = z.infer<typeof SignalBodySchema>;

/**
 * POST /webhook/signal: the secret itself (curl, scripts), or — what `vigil signal --url` sends — a
 * random `nonce` and a `proof`, HMAC-SHA256 keyed by sha256(secret) of the signal's fields
 * (core/signal-proof.ts): the secret never leaves the job, and the daemon signs its answer.
 */
export const WebhookSignalSchema = SignalBodySchema.extend({
  secret: z.string().min(1).max(256).optional(),
  nonce: z
    .string()
    .regex(/^[0-9a-f]{32,128}$/, "Expected 32–128 lowercase hex characters")
    .optional(),
  proof: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "Expected 64 lowercase hex characters (HMAC-SHA256)")
    .optional(),
}).superRefine((body, ctx) => {
  const given = (["secret", "nonce", "proof"] as const).filter((k) => body[k] !== undefined);
  const bySecret = given.length === 1 && given[0] === "secret";
  const byProof = given.length === 2 && body.secret === undefined;
  if (!bySecret && !byProof) {
    ctx.addIssue({
      code: "custom",
      message: `Expected either secret, or nonce and proof; got ${given.length > 0 ? given.join(", ") : "none of them"}`,
    });
  }
});
export type WebhookSignal = z.infer<typeof WebhookSignalSchema>;

/**
 * The owner's signal (POST /api/waitpoints/:wid/signal, on the owner-only socket): the id is in the
 * path and the secret is not needed — the socket's permissions already say who is asking.
 */
export const OwnerSignalSchema = SignalBodySchema.omit({ id: true }).extend({
  secret: z.string().min(1).max(256).optional(),
});
