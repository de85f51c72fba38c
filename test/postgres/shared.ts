/**
 * The postgres project's one server (test/postgres/setup.ts starts it for the run): a handle on it
 * for a test file, which then makes its own database (`createDatabase`, unique name per file).
 */
import { inject } from "vitest";
import { TestPostgres } from "../helpers/postgres.js";

export function sharedPostgres(): TestPostgres {
  return TestPostgres.attach(inject("postgresDir"));
}

/**
 * A server of the file's own, for a file that stops and starts its server (a database outage): on
 * the shared one it would cut the files running beside it. Stop it in the file's afterAll.
 */
export function ownPostgres(): Promise<TestPostgres> {
  return TestPostgres.start();
}
