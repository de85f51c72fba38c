/**
 * vitest globalSetup of the postgres project (team mode, #27; docs/team-mode-plan.md §8): ONE real
 * PostgreSQL 15 for the whole run (test/helpers/postgres.ts: Debian's package, its own cluster in a
 * temp dir, a Unix socket only), its socket dir provided to the test files, each of which makes its
 * own database with `createDatabaseAt(inject("postgresSocketDir"), name)`. Stopped after the run.
 * Its files run two at once: a file that stops and restarts its server (a database outage) starts
 * one of its own (`ownPostgres`, shared.ts), since stopping this one would cut the files beside it.
 */
import type { TestProject } from "vitest/node";
import { TestPostgres } from "../helpers/postgres.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await TestPostgres.start();
  project.provide("postgresSocketDir", server.socketDir);
  project.provide("postgresDir", server.dir);
  return () => server.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared server's Unix socket dir (what `urlAt` and `createDatabaseAt` take). */
    postgresSocketDir: string;
    /** The shared server's temp dir (holding data/, sock/, postgres.log): for `SharedPostgres`. */
    postgresDir: string;
  }
}
