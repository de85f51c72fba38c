/**
 * Which sandbox a new check runs in (issue #37, High 2): no check has more power than the agent that
 * armed it. Decided once, when it is armed, from its session, and fixed on its trigger (a later
 * change to the session never widens an armed check).
 *  - Only kinds that run a command on this machine (`command`, `watch`) are sandboxed.
 *  - A session whose agent reported Codex's danger-full-access, or any other agent's: none, as before.
 *  - read-only / workspace-write: Codex's sandbox in that mode, writable folder the session's.
 *  - Fail closed: a Codex session (its adapter) whose sandbox is not known yet runs read-only.
 * The codex binary is resolved here, on the daemon's PATH (set by the owner when the daemon started;
 * relative entries, which a folder the agent writes could fill, are skipped), and pinned by its
 * absolute path, so nothing put on a PATH later runs in its place.
 * Design: docs/design.md §8.
 */
import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { CheckSandbox } from "../../../shared/schemas/sandbox.js";
import type { SourceKind } from "../../../shared/schemas/sources.js";
import { ValidationError } from "../base/errors.js";
import type { SessionRow } from "../store/sessions.js";

const SPAWNING_KINDS: ReadonlySet<SourceKind> = new Set(["command", "watch"]);

/** Whether a check of this kind runs a command on this machine. */
export const spawnsCommand = (kind: SourceKind): boolean => SPAWNING_KINDS.has(kind);

/** `codex` on the daemon's PATH (absolute entries only), by its real path; null when there is none. */
export function findCodex(path = process.env.PATH ?? ""): string | null {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, "codex");
    try {
      accessSync(candidate, constants.X_OK);
      return realpathSync(candidate);
    } catch {
      // Not here.
    }
  }
  return null;
}

export function checkSandboxFor(
  session: Pick<SessionRow, "id" | "adapter" | "root" | "sandbox">,
  kind: SourceKind,
  codex: () => string | null = findCodex,
): CheckSandbox | null {
  if (!spawnsCommand(kind)) return null;
  const reported = session.sandbox;
  if (reported?.mode === "danger-full-access") return null;
  if (!reported && session.adapter.kind !== "codex") return null;
  const mode = reported?.mode ?? "read-only";
  const root = reported?.root ?? session.root ?? "/";
  const binary = codex();
  if (binary === null)
    throw new ValidationError(
      `Expected the codex binary on the Vigil daemon's PATH to run this check in Codex's sandbox (session ${session.id} runs ${reported ? mode : "in a Codex sandbox not reported yet"}), got none; the check was not armed`,
    );
  return { mode, root, codex: binary };
}
