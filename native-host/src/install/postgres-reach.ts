/**
 * Team mode (VIGIL_DATABASE_URL, or the database the home's team file remembers): can this machine
 * reach the PostgreSQL the daemon would use? Connect and `SELECT 1`, briefly; the URL and any error
 * are shown without the password.
 * Design: docs/design.md §9.1.
 */
import { libpqUrl, passwordOf, redactUrl } from "../base/database-url.js";
import type { Finding } from "./install.js";

const TIMEOUT_MS = 5000;

/** The message with the URL's password (if it leaked into it) replaced by `***`. */
function withoutPassword(message: string, url: string): string {
  const password = passwordOf(url);
  return password === "" ? message : message.replaceAll(password, "***");
}

export async function postgresFinding(url: string, where: string): Promise<Finding> {
  const shown = redactUrl(url);
  // Loaded here, not at the top: every `vigil` command imports this module, few reach PostgreSQL.
  const { default: pg } = await import("pg");
  const client = new pg.Client({
    connectionString: libpqUrl(url),
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
    application_name: "vigil doctor",
  });
  client.on("error", () => {
    // A connection the server ends after the check: nothing to report.
  });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return { ok: true, what: `team mode: PostgreSQL at ${shown} (${where}) answers` };
  } catch (error) {
    const message = withoutPassword(error instanceof Error ? error.message : String(error), url);
    return {
      ok: false,
      what: `team mode: PostgreSQL at ${shown} (${where}) does not answer: ${message || (error as { code?: string }).code || "no reason given"}`,
      fix:
        where === "VIGIL_DATABASE_URL"
          ? `start PostgreSQL or correct VIGIL_DATABASE_URL; check with: psql "$VIGIL_DATABASE_URL" -c 'SELECT 1'`
          : `start PostgreSQL or correct databaseUrl in ${where}`,
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}
