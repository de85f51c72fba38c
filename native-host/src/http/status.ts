/**
 * The one map from outcomes to HTTP status codes: error codes (base/errors.ts) and waitpoint
 * signal verdicts (core/waitpoints.ts). Nothing below the HTTP layer knows a status code.
 * Design: docs/design.md §7.
 */
import { type ErrorCode, VigilError } from "../base/errors.js";
import type { SignalVerdict } from "../core/waitpoints.js";
import { HttpError } from "./json-io.js";

const ERROR_STATUS: Record<ErrorCode, number> = {
  internal: 500,
  invalid: 400,
  not_found: 404,
  conflict: 409,
  limit: 429,
  unavailable: 503,
};

export function statusOf(error: Error): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof VigilError) return ERROR_STATUS[error.code];
  return 500;
}

export const SIGNAL_STATUS: Record<SignalVerdict, 202 | 401 | 403 | 404 | 410 | 422 | 429> = {
  accepted: 202,
  wrong_secret: 401,
  unknown: 404,
  ended: 410,
  not_a_member: 422,
  too_many_misses: 429,
  too_many_signals: 429,
  /** Only a device's files hear it; HTTP names no device. */
  wrong_device: 403,
};

/** The `code` of an error answer, by status: stable words a client can branch on. */
const STATUS_CODE: Record<number, string> = {
  400: "invalid",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "timeout",
  409: "conflict",
  410: "gone",
  413: "too_large",
  415: "unsupported_media_type",
  421: "misdirected",
  422: "unprocessable",
  429: "limit",
  500: "internal",
  503: "unavailable",
};

/** Every error answer has this one shape: `{error: {code, message, …details}}`. */
export function errorBody(
  status: number,
  message: string,
  details: { code?: string } & Record<string, unknown> = {},
): { error: { code: string; message: string } & Record<string, unknown> } {
  return { error: { ...details, code: details.code ?? STATUS_CODE[status] ?? "error", message } };
}
