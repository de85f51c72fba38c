/**
 * The postgres project's one server (test/postgres/setup.ts starts it for the run): a handle on it
 * for a test file, which then makes its own database (`createDatabase`, unique name per file).
 */
import { inject } from "vitest";
import { TestPostgres } from "../helpers/postgres.js";

export function sharedPostgres(): TestPostgres {
  return TestPostgres.attach(inject("postgresDir"));
}
