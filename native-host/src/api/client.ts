/** How the CLI reaches the daemon: `$VIGIL_HOME/daemon.json` for the address, `token` for auth. */
import { readFileSync } from "node:fs";
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

  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw new CliError(
        `Cannot reach the Vigil daemon at ${this.baseUrl} (${(error as Error).message}). Is it running? Start it with: vigil serve`,
      );
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const message = (parsed as { error?: string } | undefined)?.error ?? `HTTP ${response.status}`;
      throw new CliError(message);
    }
    return parsed as T;
  }
}
