/**
 * A small, polite GitHub REST client for the `github__*` tools (design.md §4.1):
 * - conditional requests: the last ETag and body of every URL are kept in memory (per token), a
 *   `304 Not Modified` reuses the body (GitHub does not count it against the rate limit);
 * - the rate limit is read from every answer: a `403`/`429` with `retry-after` or no requests left,
 *   or fewer than LOW_REMAINING left, closes the gate for that host and token until the reset, and
 *   every observation before then fails at once with a ToolError naming the time (its `retryAt`
 *   moves the monitor's next check there) — no request is sent while the gate is closed;
 * - the token: a `${secret:KEY}` reference resolved from the vault, else `gh auth token` for the
 *   host when `gh` is on PATH, else none. Its value is never put in an error or an observation, and
 *   never sent in clear text: every request and redirect hop goes over https (http to loopback
 *   aside, for tests), and a hop to another origin drops it;
 * - every answer is read with a byte cap (GITHUB_BODY_CAP) and the kept ETag bodies are bounded by
 *   their total bytes (ETAG_BUDGET), so a huge or endless answer cannot take the daemon's memory.
 */
import { createHash } from "node:crypto";
import { loadExeca } from "../base/lazy-execa.js";
import { substituteValues } from "../secrets/references.js";
import { ByteBudgetCache } from "./byte-budget-cache.js";
import { getFollowingRedirects, type HeaderList } from "./follow-redirects.js";
import { assertNotClearText, parseJson, readAnswer, textOf } from "./github-answer.js";
import { ToolError } from "./tool.js";

export const DEFAULT_API_URL = "https://api.github.com";
/** The most bytes of answers kept for conditional requests, all URLs and tokens together. */
export const ETAG_BUDGET = 32 * 1024 * 1024;
/** Below this many requests left, no more are sent until the reset. */
export const LOW_REMAINING = 10;
const GH_TIMEOUT_MS = 5000;
const GH_TOKEN_TTL_MS = 5 * 60_000;

export interface GitHubAuth {
  /** The token, or undefined for unauthenticated requests. */
  token: string | undefined;
  /** Where it came from, for errors: "vault key GITHUB_TOKEN", "gh auth token", "no token". */
  source: string;
}

/** The last answer of each URL (per token) with its ETag, kept as the bytes GitHub sent. */
const etags = new ByteBudgetCache<{ etag: string; bytes: Uint8Array; next: string | null }>(ETAG_BUDGET);
const gates = new Map<string, { until: number; reason: string }>();
const ghTokens = new Map<string, { token: string | undefined; at: number }>();

/** A short, one-way name for a token (cache keys only; never shown). */
const fingerprint = (token: string | undefined): string =>
  token ? createHash("sha256").update(token).digest("hex").slice(0, 16) : "anonymous";

export const authKey = (apiUrl: string, auth: GitHubAuth): string => `${apiUrl} ${fingerprint(auth.token)}`;

/** The rate-limit gate of one budget: REST (`core`) and GraphQL are counted apart by GitHub. */
export const gateKeyOf = (apiUrl: string, auth: GitHubAuth, budget: "core" | "graphql"): string =>
  `${authKey(apiUrl, auth)}${budget === "core" ? "" : ` ${budget}`}`;

/** The API URL for a host as `gh` names it: github.com → the default; another host → its Enterprise API. */
export function apiUrlForHost(host: string | undefined): string {
  return !host || host === "github.com" ? DEFAULT_API_URL : `https://${host}/api/v3`;
}

/** The host `gh` knows an API URL by: api.github.com → github.com; https://ghe.example/api/v3 → ghe.example. */
export function ghHostFor(apiUrl: string): string {
  const host = new URL(apiUrl).host;
  return host === "api.github.com" ? "github.com" : host;
}

export async function resolveAuth(
  token: string | undefined,
  apiUrl: string,
  secrets: ReadonlyMap<string, string>,
  signal: AbortSignal,
): Promise<GitHubAuth> {
  if (token !== undefined) {
    const key = /^\$\{secret:([A-Za-z0-9_]+)\}$/.exec(token)?.[1] ?? "?";
    const value = substituteValues(token, secrets);
    if (value === token || value === "") throw new ToolError(`token: vault key ${key} has no value for this monitor`);
    return { token: value, source: `vault key ${key}` };
  }
  const host = ghHostFor(apiUrl);
  const cached = ghTokens.get(host);
  if (cached && Date.now() - cached.at < GH_TOKEN_TTL_MS) return ghAuth(cached.token);
  const execa = await loadExeca();
  const result = await execa("gh", ["auth", "token", "--hostname", host], {
    reject: false,
    timeout: GH_TIMEOUT_MS,
    cancelSignal: signal,
    stdin: "ignore",
    env: { GH_PROMPT_DISABLED: "1" },
  });
  const found = result.exitCode === 0 && typeof result.stdout === "string" ? result.stdout.trim() : "";
  if (found) shieldGhToken(host, found);
  ghTokens.set(host, { token: found || undefined, at: Date.now() });
  return ghAuth(found || undefined);
}

/** Where each token `gh auth token` gives is sent to be shielded (the daemon's exposure shield). */
let shieldToken: ((key: string, value: string) => void) | undefined;

/**
 * Every token `gh auth token` gives is masked like a vault value from then on (`[secret:gh auth
 * token for HOST]`) in every text and JSON the daemon stores, shows, logs or delivers.
 */
export function shieldGhTokensWith(shield: ((key: string, value: string) => void) | undefined): void {
  shieldToken = shield;
}

/** The tokens of each host already shielded, so a new one (after `gh auth login`) gets its own key. */
const shieldedGhTokens = new Map<string, string[]>();

function shieldGhToken(host: string, token: string): void {
  const known = shieldedGhTokens.get(host) ?? [];
  if (known.includes(token)) return;
  known.push(token);
  shieldedGhTokens.set(host, known);
  shieldToken?.(`gh auth token for ${host}${known.length > 1 ? ` (${known.length})` : ""}`, token);
}

const ghAuth = (token: string | undefined): GitHubAuth =>
  token ? { token, source: "gh auth token" } : { token: undefined, source: "no token" };

export interface GitHubAnswer {
  body: unknown;
  /** The `rel="next"` page's URL from the `Link` header, if any. */
  next: string | null;
  /** The answer was a 304: the body is the one kept from before. */
  notModified: boolean;
}

/**
 * Throws while the rate-limit gate of this host and token is closed. Asked once per observation,
 * before its first request: an observation a low count closed the gate in the middle of still ends.
 */
export function assertGateOpen(apiUrl: string, auth: GitHubAuth, budget: "core" | "graphql" = "core"): void {
  const gate = gates.get(gateKeyOf(apiUrl, auth, budget));
  if (gate && Date.now() < gate.until) {
    throw new ToolError(`${gate.reason}; no request is sent before ${new Date(gate.until).toISOString()}`, {
      retryAt: gate.until,
    });
  }
}

/** GET `path` (from the API root) as JSON; throws ToolError saying what GitHub answered. */
export async function githubGet(
  apiUrl: string,
  path: string,
  auth: GitHubAuth,
  signal: AbortSignal,
): Promise<GitHubAnswer> {
  const gateKey = authKey(apiUrl, auth);
  const url = /^https?:\/\//.test(path) ? path : `${apiUrl.replace(/\/+$/, "")}${path}`;
  const cacheKey = `${fingerprint(auth.token)} ${url}`;
  const kept = etags.get(cacheKey);
  const headers: HeaderList = [
    ["accept", "application/vnd.github+json"],
    ["x-github-api-version", "2022-11-28"],
    ["user-agent", "vigil"],
  ];
  if (auth.token) headers.push(["authorization", `Bearer ${auth.token}`]);
  if (kept) headers.push(["if-none-match", kept.etag]);
  let response: Response;
  try {
    ({ response } = await getFollowingRedirects(new URL(url), {
      headers,
      isCredential: (name) => name === "authorization",
      checkHop: assertNotClearText,
      signal,
    }));
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(`GET ${url}: ${error.message}`);
    if ((error as Error).name === "TimeoutError" || signal.aborted)
      throw new ToolError(`GET ${url}: no answer in time`);
    const code = (error as { cause?: { code?: string } }).cause?.code;
    throw new ToolError(`GET ${url} failed${code ? ` (${code})` : ""}`);
  }
  noteRateLimit(gateKey, response);
  if (response.status === 304 && kept) {
    await response.body?.cancel();
    return { body: parseJson(kept.bytes, `GET ${url}`), next: kept.next, notModified: true };
  }
  const bytes = await readAnswer(response, `GET ${url}`, signal);
  if (!response.ok) throw answerError(`GET ${url}`, apiUrl, response, textOf(bytes), auth, gateKey);
  const body = parseJson(bytes, `GET ${url}`);
  const next = nextLink(response.headers.get("link"));
  const etag = response.headers.get("etag");
  if (etag) etags.set(cacheKey, { etag, bytes, next }, bytes.byteLength);
  return { body, next, notModified: false };
}

/** The bytes of answers kept for conditional requests (never above ETAG_BUDGET). */
export const keptAnswerBytes = (): number => etags.bytes;

/** The URL of `rel="next"` in a `Link` header. */
function nextLink(link: string | null): string | null {
  return link ? (/<([^>]+)>;\s*rel="next"/.exec(link)?.[1] ?? null) : null;
}

/** Pages GitHub may split a list into that are read (100 items each). */
export const MAX_PAGES = 10;

/**
 * Every page of a list, following `Link: rel="next"` up to MAX_PAGES, and only to the API's own
 * origin (the token goes with each request). `items` picks the list out of one page's body.
 */
export async function githubGetAll<T>(
  apiUrl: string,
  path: string,
  auth: GitHubAuth,
  signal: AbortSignal,
  items: (body: unknown) => T[],
): Promise<T[]> {
  const origin = new URL(apiUrl).origin;
  const all: T[] = [];
  let page: string | null = path;
  for (let n = 0; page !== null && n < MAX_PAGES; n += 1) {
    const answer = await githubGet(apiUrl, page, auth, signal);
    all.push(...items(answer.body));
    page = answer.next;
    if (page !== null) {
      const url = new URL(page, apiUrl);
      if (url.origin !== origin) throw new ToolError(`GitHub's next page is on another origin (${url.origin})`);
      page = url.href;
    }
  }
  return all;
}

/** Closes the gate until the reset when few requests are left (the answer itself is still used). */
export function noteRateLimit(gateKey: string, response: Response): void {
  const remaining = Number(response.headers.get("x-ratelimit-remaining") ?? Number.NaN);
  const reset = Number(response.headers.get("x-ratelimit-reset") ?? Number.NaN);
  if (Number.isFinite(remaining) && Number.isFinite(reset) && remaining < LOW_REMAINING && response.ok) {
    const resource = response.headers.get("x-ratelimit-resource");
    const which = resource && resource !== "core" ? `${resource}: ` : "";
    gates.set(gateKey, {
      until: reset * 1000,
      reason: `GitHub rate limit nearly spent (${which}${remaining} requests left)`,
    });
  }
}

/** What a refusal says: a rate limit closes the gate (until `retry-after` or the reset); 401, 404 and the rest are named. */
export function answerError(
  what: string,
  apiUrl: string,
  response: Response,
  text: string,
  auth: GitHubAuth,
  gateKey: string,
): ToolError {
  let message = "";
  try {
    message = String((JSON.parse(text) as { message?: unknown }).message ?? "");
  } catch {
    message = text.slice(0, 120);
  }
  const said = message ? `: ${message}` : "";
  const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
  const remaining = response.headers.get("x-ratelimit-remaining");
  const reset = Number(response.headers.get("x-ratelimit-reset") ?? Number.NaN);
  if ((response.status === 403 || response.status === 429) && (Number.isFinite(retryAfter) || remaining === "0")) {
    const until = Number.isFinite(retryAfter)
      ? Date.now() + retryAfter * 1000
      : Number.isFinite(reset)
        ? reset * 1000
        : Date.now() + 60_000;
    const reason = `GitHub rate limit reached (${response.status}${said})`;
    gates.set(gateKey, { until, reason });
    return new ToolError(`${reason}; retry after ${new Date(until).toISOString()}`, { retryAt: until });
  }
  if (response.status === 401) {
    if (auth.source === "gh auth token") ghTokens.delete(ghHostFor(apiUrl));
    return new ToolError(`GitHub refused the token (${auth.source}): 401${said}; ${renewal(auth.source)}`);
  }
  if (response.status === 404) {
    return new ToolError(
      `${what}: 404${said} (no such repository or pull request, or ${auth.source === "no token" ? "no token to see a private one" : `${auth.source} cannot see it`})`,
    );
  }
  return new ToolError(`${what}: ${response.status}${said}`);
}

/** What puts a refused token right, for the error an agent reads hours later. */
function renewal(source: string): string {
  if (source === "gh auth token") return "log in again with `gh auth login` (gh is asked again at the next check)";
  const key = /^vault key (\S+)$/.exec(source)?.[1];
  if (key)
    return `store a new token with \`vigil vault set ${key}\`: monitors armed after that use it, this one once the daemon restarts`;
  return "give a token: `vigil vault set GITHUB_TOKEN`, or log in with `gh auth login`";
}

/** Closes the gate of `gateKey` until `until` (ms) for `reason`; returns `until`. */
export function gateUntil(gateKey: string, until: number, reason: string): number {
  gates.set(gateKey, { until, reason });
  return until;
}

/** Forgets every kept ETag, gate and `gh` token (tests). */
export function resetGitHubClient(): void {
  etags.clear();
  gates.clear();
  ghTokens.clear();
  shieldedGhTokens.clear();
}
