/**
 * The sandbox an agent runs under, as Vigil records it (issue #37): on the session (what its agent
 * reported) and, fixed when a check is armed, on the check's trigger. Design: docs/design.md §8.
 */
import { z } from "zod";

const AbsolutePath = z
  .string()
  .max(4096)
  .refine((path) => path.startsWith("/"), { message: "Expected an absolute path" });

/** Codex's sandbox modes (`sandbox_policy.type` in its transcript's turn_context). */
export const SandboxModeSchema = z.enum(["read-only", "workspace-write", "danger-full-access"]);
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

/** A session's agent's sandbox: the mode and the folder it may write (workspace-write). */
export const SessionSandboxSchema = z.strictObject({
  agent: z.literal("codex"),
  mode: SandboxModeSchema,
  root: AbsolutePath,
});
export type SessionSandbox = z.infer<typeof SessionSandboxSchema>;

/** What a check runs inside: Codex's sandbox in this mode, writable `root`, by this codex binary. */
export const CheckSandboxSchema = z.strictObject({
  mode: z.enum(["read-only", "workspace-write"]),
  root: AbsolutePath,
  codex: AbsolutePath,
});
export type CheckSandbox = z.infer<typeof CheckSandboxSchema>;

/** How views and lists say it: "runs in Codex's sandbox (workspace-write, /path)". */
export const sandboxSummary = (sandbox: CheckSandbox) => `runs in Codex's sandbox (${sandbox.mode}, ${sandbox.root})`;
