/**
 * One GitHub GraphQL request for the `github__*` tools, through a rate-limit gate like the REST
 * client's (github-api.ts) but of its own: what GraphQL alone tells (review threads and whether
 * they are resolved, the merge queue). A GraphQL request is a POST: it has no ETag, and each one
 * costs points of the separate `graphql` budget, which GitHub reports in the same headers.
 * Design: docs/design.md §4.1.
 */

import { assertNotClearText, parseJson, readAnswer, textOf } from "./github-answer.js";
import { answerError, assertGateOpen, type GitHubAuth, gateKeyOf, gateUntil, noteRateLimit } from "./github-api.js";
import { ToolError } from "./tool.js";

/** The GraphQL endpoint beside a REST API root: api.github.com/graphql, or HOST/api/graphql for Enterprise. */
export function graphqlUrl(apiUrl: string): string {
  const root = apiUrl.replace(/\/+$/, "");
  return /\/api\/v3$/.test(root) ? root.replace(/\/v3$/, "/graphql") : `${root}/graphql`;
}

interface GraphqlBody {
  data?: unknown;
  errors?: Array<{ type?: string; message?: string }>;
}

/**
 * POSTs `query` with `variables` and returns `data`. An answer with `errors` is a ToolError quoting
 * the first (GitHub answers 200 with errors for a missing repository or pull request, and for its
 * GraphQL rate limit, which closes the gate until the reset like a REST one).
 */
export async function githubGraphql(
  apiUrl: string,
  query: string,
  variables: Record<string, unknown>,
  auth: GitHubAuth,
  signal: AbortSignal,
): Promise<unknown> {
  const url = graphqlUrl(apiUrl);
  const gateKey = gateKeyOf(apiUrl, auth, "graphql");
  assertGateOpen(apiUrl, auth, "graphql");
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "vigil" };
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  let response: Response;
  try {
    assertNotClearText(new URL(url));
    // Not followed: GitHub's GraphQL endpoint does not move, and a redirect would carry the token.
    const body = JSON.stringify({ query, variables });
    response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal });
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(`POST ${url}: ${error.message}`);
    if ((error as Error).name === "TimeoutError" || signal.aborted)
      throw new ToolError(`POST ${url}: no answer in time`);
    const code = (error as { cause?: { code?: string } }).cause?.code;
    throw new ToolError(`POST ${url} failed${code ? ` (${code})` : ""}`);
  }
  noteRateLimit(gateKey, response);
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new ToolError(`POST ${url}: GitHub answered ${response.status} (a redirect, not followed)`);
  }
  const bytes = await readAnswer(response, `POST ${url}`, signal);
  if (!response.ok) throw answerError(`POST ${url}`, apiUrl, response, textOf(bytes), auth, gateKey);
  const body = parseJson(bytes, `POST ${url}`) as GraphqlBody;
  const first = body.errors?.[0];
  if (first) {
    const said = `${first.type ? `${first.type}: ` : ""}${first.message ?? "an error"}`;
    if (first.type === "RATE_LIMITED") {
      const reset = Number(response.headers.get("x-ratelimit-reset") ?? Number.NaN);
      const until = gateUntil(
        gateKey,
        Number.isFinite(reset) ? reset * 1000 : Date.now() + 60_000,
        `GitHub GraphQL rate limit reached (${said})`,
      );
      throw new ToolError(`GitHub GraphQL rate limit reached (${said}); retry after ${new Date(until).toISOString()}`, {
        retryAt: until,
      });
    }
    throw new ToolError(`POST ${url}: GitHub answered ${said}`);
  }
  return body.data;
}
