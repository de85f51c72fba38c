/**
 * Which errors mean "database unreachable" (the server stopped, restarting, the network gone: the
 * daemon stays up, answers 503 and retries) rather than a bug. Used by the PostgreSQL engine, which
 * turns such errors into `DatabaseUnreachableError`, and by the layers above it (the signal path's
 * group commit, delivery, the HTTP answers), which must not depend on the engine (design.md §1).
 * On SQLite nothing is ever unreachable.
 * Design: docs/design.md §9.1.
 */
import { redactUrl } from "../base/database-url.js";

/** The database is not there (stopped, restarting, network gone): retry later, it is not a bug. */
export class DatabaseUnreachableError extends Error {
  override name = "DatabaseUnreachableError";
}

/**
 * The connection was cut while a transaction committed: it may have taken or not. `ended()`
 * resolves once the server is back and the transaction surely no longer runs (it throws until
 * then); the caller then finds whether it took by what it wrote (a delivery claim: the wakes that
 * carry its token), and undoes what it never acted on.
 */
export class CommitUnknownError extends DatabaseUnreachableError {
  override name = "CommitUnknownError";

  constructor(
    message: string,
    options: ErrorOptions,
    readonly ended: () => Promise<void>,
  ) {
    super(message, options);
  }
}

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT", // the Unix socket is gone: the server stopped
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down)
]);

/** Whether `error` means the database cannot be reached now (as opposed to a query that is wrong). */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === "string" && (UNREACHABLE_CODES.has(e.code) || e.code.startsWith("08"))) return true;
  const message = typeof e.message === "string" ? e.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
    message,
  );
}

/** "Database unreachable (why)" for an error that means the database is away, else null. */
export function unreachableText(error: unknown): string | null {
  if (!(error instanceof DatabaseUnreachableError || isUnreachable(error))) return null;
  const message = error instanceof Error ? error.message : String(error);
  return `Database unreachable (${message.replace(/^database unreachable /i, "")})`;
}

/** `error` as a DatabaseUnreachableError when it is one (the URL shown redacted), else unchanged. */
export function classify(error: unknown, url: string): unknown {
  if (!isUnreachable(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new DatabaseUnreachableError(`database unreachable at ${redactUrl(url)}: ${reason}`, { cause: error });
}
