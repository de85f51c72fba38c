/**
 * What the GitHub client does with every request and answer, REST and GraphQL alike: no request in
 * clear text (the token goes with it), every answer read with a byte cap, its JSON parsed with an
 * error that says what came. Design: docs/design.md §4.1, §8.
 */
import { isLoopbackHost } from "./private-address.js";
import { readCapped } from "./read-capped.js";
import { ToolError } from "./tool.js";

/** The most bytes one GitHub answer may have (a page of 100 check runs is a few hundred KB). */
export const GITHUB_BODY_CAP = 4 * 1024 * 1024;

/**
 * Refuses a request (or redirect hop) in clear text: GitHub is spoken to over https, and over http
 * only on loopback (a local fake in tests). Called before each is sent, whether a token goes or not.
 */
export function assertNotClearText(url: URL): void {
  if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return;
  throw new ToolError(`expected https://…, got ${url.origin}: a token is never sent in clear text`);
}

/** The body of a GitHub answer, at most GITHUB_BODY_CAP bytes; more is an error (nothing past the cap is read). */
export async function readAnswer(response: Response, what: string, signal: AbortSignal): Promise<Uint8Array> {
  let read: { bytes: Uint8Array; truncated: boolean };
  try {
    read = await readCapped(response.body, signal, GITHUB_BODY_CAP);
  } catch (error) {
    if ((error as Error).name === "TimeoutError" || signal.aborted) throw new ToolError(`${what}: no answer in time`);
    throw new ToolError(`${what}: the answer broke off (${(error as Error).message})`);
  }
  if (read.truncated)
    throw new ToolError(`GitHub answered more than ${GITHUB_BODY_CAP} bytes for ${what}; read ${GITHUB_BODY_CAP}`);
  return read.bytes;
}

export const textOf = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

export function parseJson(bytes: Uint8Array, what: string): unknown {
  const text = textOf(bytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new ToolError(`${what}: expected JSON, got ${JSON.stringify(text.slice(0, 80))}`);
  }
}
