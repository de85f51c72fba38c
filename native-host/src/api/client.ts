/**
 * The one client of the daemon's HTTP API, used by the CLI, the MCP server and the native bridge.
 * It finds the daemon through `$VIGIL_HOME/daemon.json` and authenticates with `token`; every
 * request is named by its route in shared/api-routes.ts, so no caller builds a URL by hand.
 * Design: docs/design.md §1, §7.
 */
import { readFileSync } from "node:fs";
import { type PathParams, pathOf, ROUTES, type RouteName, type RouteTypes } from "../../../shared/api-routes.js";
import { readDaemonInfo } from "../base/home.js";
import { homePaths } from "../base/paths.js";

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

export class ApiClient {
  readonly baseUrl: string;
  readonly #token: string;

  constructor(home: string) {
    const paths = homePaths(home);
    const info = readDaemonInfo(paths);
    if (!info)
      throw new CliError(`The Vigil daemon is not running for ${home} (no daemon.json). Start it with: vigil serve`);
    this.baseUrl = info.url;
    try {
      this.#token = readFileSync(paths.token, "utf8").trim();
    } catch {
      throw new CliError(`Cannot read the API token at ${paths.token}`);
    }
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
    const url = `${this.baseUrl}${pathOf(route, opts.params, opts.query)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: route.method,
        headers: { authorization: `Bearer ${this.#token}`, "content-type": "application/json" },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: opts.signal,
      });
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      throw new CliError(
        `Cannot reach the Vigil daemon at ${this.baseUrl} (${(error as Error).message}). Is it running? Start it with: vigil serve`,
      );
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const message =
        (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${response.status}`;
      throw new CliError(message);
    }
    return parsed as RouteTypes[K]["reply"];
  }
}
