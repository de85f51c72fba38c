/**
 * One error class per kind of refusal, each with a transport-free code; the HTTP layer maps codes
 * to status codes (http/status.ts), the CLI prints the message.
 * Design: docs/design.md §7.
 */
export type ErrorCode = "internal" | "invalid" | "not_found" | "conflict" | "limit" | "unavailable";

export class VigilError extends Error {
  readonly code: ErrorCode = "internal";
}
export class ValidationError extends VigilError {
  override readonly code = "invalid";
  override name = "ValidationError";
}
export class NotFoundError extends VigilError {
  override readonly code = "not_found";
  override name = "NotFoundError";
}
export class ConflictError extends VigilError {
  override readonly code = "conflict";
  override name = "ConflictError";
}
export class LimitError extends VigilError {
  override readonly code = "limit";
  override name = "LimitError";
}
/** The disk or a file the daemon keeps cannot be written: nothing was changed; try again later. */
export class StorageError extends VigilError {
  override readonly code = "unavailable";
  override name = "StorageError";
}
