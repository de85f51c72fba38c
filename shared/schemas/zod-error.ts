/**
 * One way to say what was wrong with an input: the field path, what was expected and what came.
 * Design: docs/design.md §7.
 */
import type { z } from "zod";

/** "source.command: Expected a non-empty command" — what was expected and what came, per field. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
      return `${where}${issue.message}`;
    })
    .join("; ");
}
