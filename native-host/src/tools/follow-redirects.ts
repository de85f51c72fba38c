/**
 * GET with redirects followed here, not by fetch, so each hop is seen before it is sent: at most
 * MAX_REDIRECTS hops, http(s) only, a hop to another origin drops the credentials (as browsers and
 * curl do), and `checkHop` may refuse a hop (GitHub: no token in clear text; a host-free
 * `http__get`: no private address). Shared by `http__get` and the GitHub client.
 * Errors are ToolErrors that name no URL (callers name the URL as written).
 * Design: docs/design.md §4.1, §8.
 */
import { ToolError } from "./tool.js";

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export type HeaderList = Array<[name: string, value: string]>;

export interface FollowOptions {
  /** The headers as configured; `resolve` turns each value into the one sent. */
  headers: HeaderList;
  resolve?: (value: string) => string;
  /** Whether a header is a credential: never sent to another origin than the first. */
  isCredential: (name: string, value: string) => boolean;
  /** Called before every request (the first too) with the headers it will carry; throws to refuse it. */
  checkHop?: (url: URL, headers: HeaderList) => void | Promise<void>;
  signal: AbortSignal;
}

export async function getFollowingRedirects(
  first: URL,
  options: FollowOptions,
): Promise<{ response: Response; url: URL; hops: number }> {
  const resolve = options.resolve ?? ((value: string) => value);
  let url = first;
  let headers = options.headers;
  for (let hops = 0; ; hops += 1) {
    await options.checkHop?.(url, headers);
    const response = await fetch(url, {
      headers: headers.map(([name, value]) => [name, resolve(value)]),
      redirect: "manual",
      signal: options.signal,
    });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { response, url, hops };
    await response.body?.cancel();
    if (hops === MAX_REDIRECTS) throw new ToolError(`more than ${MAX_REDIRECTS} redirects`);
    // 301/302/303 turn a request into a GET, and 307/308 keep its method: a GET either way.
    const next = parseUrl(location, "redirected to an invalid URL", url);
    if (next.protocol !== "http:" && next.protocol !== "https:")
      throw new ToolError(`redirected to a non-http(s) URL (${next.protocol})`);
    if (next.origin !== url.origin) headers = headers.filter(([name, value]) => !options.isCredential(name, value));
    url = next;
  }
}

export function parseUrl(text: string, why: string, base?: URL): URL {
  try {
    return new URL(text, base);
  } catch {
    throw new ToolError(why);
  }
}
