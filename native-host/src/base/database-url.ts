/**
 * A PostgreSQL URL as text (team mode, #27): shown without its password, refused on the command
 * line with one (argv is readable by every user), and its password found so the log can mask it.
 * Plain text matching: WHATWG URL cannot parse the socket form `postgres://user@/db?host=/run/…`.
 * Design: docs/design.md §8, §9.
 */

// `scheme://user:password@` (up to the last "@", so a raw "@" in a password is hidden too), and a
// `password=` query parameter, which node-postgres also reads. WHATWG URL cannot parse the socket
// form `postgres://user@/db?host=/run/postgresql`, so these are matched as text.
const USERINFO_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/?#]*):(.*)@/i;
const QUERY_PASSWORD = /([?&]password=)[^&#]*/gi;

/** A URL fit for logs, status and errors: the password, if any, replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(USERINFO_PASSWORD, "$1:***@").replace(QUERY_PASSWORD, "$1***");
}

const hasPassword = (url: string) => USERINFO_PASSWORD.test(url) || /[?&]password=/i.test(url);

/**
 * Checks a URL given on the command line: argv is readable by every user of the machine, so it may
 * not carry a password. Returns the URL, or throws saying where the password goes instead.
 */
export function checkArgvUrl(url: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== "postgres" && scheme !== "postgresql") {
    const got = scheme === undefined ? "something else" : `${scheme}://…`;
    throw new Error(`--database: Expected a postgres:// or postgresql:// URL, got ${got}`);
  }
  if (hasPassword(url)) {
    throw new Error(
      "--database: Expected a URL without a password (the command line is visible to every user); " +
        "give the password in VIGIL_DATABASE_URL, PGPASSWORD or a 0600 PGPASSFILE instead",
    );
  }
  return url;
}

/** The password a URL carries ("" for none), percent-decoded: what the log must never show. */
export function passwordOf(url: string): string {
  const raw = USERINFO_PASSWORD.exec(url)?.[2] ?? /[?&]password=([^&#]*)/i.exec(url)?.[1] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The sslmode values Vigil takes, with libpq's meaning (psql's): see `libpqUrl`. */
const SSL_MODES = ["disable", "prefer", "require", "verify-ca", "verify-full"] as const;

/**
 * `url` with libpq's sslmode meaning, what psql users expect: `require` encrypts without checking
 * the certificate (with `sslrootcert`: checks it against that CA, not the host name), `verify-ca`
 * checks the CA, `verify-full` the CA and the host name. node-postgres 8 reads `require` as
 * `verify-full` unless `uselibpqcompat=true` (and warns on stderr), so Vigil adds that when the URL
 * sets an sslmode and says nothing of it. Another sslmode is refused, saying which ones work.
 */
export function libpqUrl(url: string): string {
  const mode = /[?&]sslmode=([^&#]*)/i.exec(url)?.[1];
  if (mode === undefined) return url;
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new Error(`Expected sslmode ${SSL_MODES.join(", ")} in the database URL, got ${mode}`);
  }
  if (/[?&]uselibpqcompat=/i.test(url)) return url;
  return `${url}&uselibpqcompat=true`;
}
