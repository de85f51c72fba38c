/**
 * One line for a failed fetch: "no answer within 10s", or "fetch failed (ECONNREFUSED)".
 * Design: docs/design.md §1.
 */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: unknown };
  if (err.name === "TimeoutError") return `no answer within ${timeoutMs / 1000}s`;
  let cause: unknown = err.cause;
  let code: string | undefined;
  for (let depth = 0; cause && !code && depth < 4; depth++) {
    const c = cause as { code?: string; message?: string; errors?: Array<{ code?: string }>; cause?: unknown };
    code = c.code ?? c.errors?.find((e) => e.code)?.code ?? (c.cause ? undefined : c.message);
    cause = c.cause;
  }
  return `${err.message}${code ? ` (${code})` : ""}`;
}
