/**
 * The one client of the daemon's HTTP API, used by the CLI, the hooks, the MCP server and the native
 * bridge. It calls the daemon over its owner-only Unix socket ($VIGIL_HOME/api.sock): no token is
 * sent, and nothing another user runs can stand in for the daemon (design.md §8). Every request is
 * named by its route in shared/api-routes.ts, so no caller builds a URL by hand.
 * Design: docs/design.md §1, §7.
 */
import { type PathParams, pathOf, ROUTES, type RouteName, type RouteTypes } from "../../../shared/api-routes.js";
import { envConfig } from "../base/config.js";
import { vigilCommandLine } from "../base/how-to-run.js";
import { homePaths } from "../base/paths.js";
import { type SocketReply, SocketRequestError, socketRequest } from "../base/socket-request.js";

/** A failure the CLI reports as one line on stderr with this exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

type NoParams = Record<never, string>;

/** What one call takes: its path parameters (when the path has any), its body (when it takes one). */
export type CallOptions<K extends RouteName> = (PathParams<K> extends NoParams
  ? { params?: PathParams<K> }
  : { params: PathParams<K> }) &
  (RouteTypes[K]["body"] extends undefined ? { body?: undefined } : { body: RouteTypes[K]["body"] }) & {
    query?: Record<string, string | number | undefined>;
    signal?: AbortSignal;
  };

type Args<K extends RouteName> =
  PathParams<K> extends NoParams
    ? RouteTypes[K]["body"] extends undefined
      ? [options?: CallOptions<K>]
      : [options: CallOptions<K>]
    : [options: CallOptions<K>];

/** How long one call may take unless it long-polls (`?wait=S` adds S). */
export const CALL_TIMEOUT_MS = 30_000;

export class ApiClient {
  /** Where the daemon listens for its owner: $VIGIL_HOME/api.sock. */
  readonly socketPath: string;
  readonly #home: string;

  constructor(home: string) {
    this.#home = home;
    this.socketPath = homePaths(home).apiSocket;
  }

  /** Calls one route; a refusal becomes a CliError carrying the daemon's message. */
  async call<K extends RouteName>(name: K, ...[options]: Args<K>): Promise<RouteTypes[K]["reply"]> {
    const route = ROUTES[name];
    const opts = (options ?? {}) as {
      params?: Record<string, string>;
      body?: unknown;
      query?: Record<string, string | number | undefined>;
      signal?: AbortSignal;
    };
    const wait = Number(opts.query?.wait ?? 0);
    let reply: SocketReply;
    try {
      reply = await socketRequest({
        socketPath: this.socketPath,
        method: route.method,
        path: pathOf(route, opts.params, opts.query),
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        timeoutMs: clientTimeoutMs() + (Number.isFinite(wait) ? wait * 1000 : 0),
        signal: opts.signal,
      });
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      throw unreachable(this.#home, this.socketPath, error);
    }
    let parsed: unknown;
    try {
      parsed = reply.text ? (JSON.parse(reply.text) as unknown) : undefined;
    } catch {
      throw new CliError(`Expected JSON from the daemon, got ${JSON.stringify(reply.text.slice(0, 80))}`);
    }
    if (reply.status < 200 || reply.status > 299) {
      const message =
        (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${reply.status}`;
      throw new CliError(message);
    }
    return parsed as RouteTypes[K]["reply"];
  }
}

/** The call's deadline: VIGIL_CLIENT_TIMEOUT_MS, else 30 s. */
export function clientTimeoutMs(): number {
  return envConfig().VIGIL_CLIENT_TIMEOUT_MS ?? CALL_TIMEOUT_MS;
}

/** "Not running" when nothing listens; otherwise what went wrong, and where to look. */
export function unreachable(home: string, socketPath: string, error: unknown): CliError {
  if (error instanceof SocketRequestError && error.notListening) {
    return new CliError(
      `The Vigil daemon is not running for ${home} (${error.message} at ${socketPath}). Start it with: ${vigilCommandLine("serve", home)}`,
    );
  }
  if (error instanceof SocketRequestError && error.forbidden) {
    return new CliError(`Cannot connect to the Vigil daemon's socket ${socketPath}: ${error.message}`);
  }
  return new CliError(
    `The Vigil daemon for ${home} did not answer (${(error as Error).message}); see ${homePaths(home).log}`,
  );
}
