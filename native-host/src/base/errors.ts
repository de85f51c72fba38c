/** One error class per kind of refusal; the HTTP layer maps each to its status code. */
export class VigilError extends Error {
  readonly status: number = 500;
}
export class ValidationError extends VigilError {
  override readonly status = 400;
  override name = "ValidationError";
}
export class NotFoundError extends VigilError {
  override readonly status = 404;
  override name = "NotFoundError";
}
export class ConflictError extends VigilError {
  override readonly status = 409;
  override name = "ConflictError";
}
export class LimitError extends VigilError {
  override readonly status = 429;
  override name = "LimitError";
}
