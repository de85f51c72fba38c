/**
 * `vigil signal --url`: a signal to a daemon over TCP, in the route's proof mode (design.md §5, §8;
 * core/signal-proof.ts). The secret never leaves this process: the request carries a fresh nonce
 * and an HMAC of the signal keyed by sha256(secret), and only an answer signed with that key counts.
 * Whoever else holds the port (another local user, after the daemon was killed) learns neither the
 * secret nor anything it could replay as another signal, and its answer is refused. A signed 429
 * (the waitpoint's signal budget) is sent again after its Retry-After, with the same key, so a
 * job's final "ok" is not lost and never stored twice.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ROUTES } from "../../../shared/api-routes.js";
import { CliError, clientTimeoutMs } from "../api/client.js";
import { socketRequest } from "../base/socket-request.js";
import { ANSWER_PROOF_HEADER, answerProof, proofKeyOf, signalProof } from "../core/signal-proof.js";

/** Tries in all when the daemon keeps answering 429, and the longest Retry-After honoured. */
export const REMOTE_SIGNAL_TRIES = 8;
const MAX_RETRY_AFTER_S = 60;

export interface RemoteSignal {
  id: string;
  status: string;
  message?: string;
  member?: string;
  data?: string;
}

export interface RemoteAnswer {
  status: number;
  /** The daemon's error message, or undefined on 202. */
  message?: string;
}

function messageOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message;
  } catch {
    return text.slice(0, 200) || undefined;
  }
}

/**
 * Sends the signal until the daemon gives a signed answer other than 429 (or the tries run out).
 * Throws a CliError when the answer is not signed by the daemon holding this waitpoint. A thrown
 * SocketRequestError: no answer at all.
 */
export async function signalRemote(url: URL, signal: RemoteSignal, secret: string): Promise<RemoteAnswer> {
  const key = proofKeyOf(secret);
  const path = (url.pathname === "/" ? ROUTES.signal.path : url.pathname) + url.search;
  // One key for every try: a try that was stored after all makes the next a duplicate.
  const idempotencyKey = `cli:${randomBytes(12).toString("hex")}`;
  for (let attempt = 1; ; attempt++) {
    const nonce = randomBytes(16).toString("hex");
    const fields = { ...signal, key: idempotencyKey, nonce };
    const reply = await socketRequest({
      origin: url.origin,
      method: "POST",
      path,
      body: JSON.stringify({ ...fields, proof: signalProof(key, fields) }),
      timeoutMs: clientTimeoutMs(),
    });
    const signed = reply.headers[ANSWER_PROOF_HEADER];
    if (signed !== answerProof(key, nonce, signal.id, reply.status)) {
      throw new CliError(
        `the server at ${url.origin} could not prove it is the Vigil daemon holding this waitpoint: the signal was not delivered (it answered ${reply.status} without a valid ${ANSWER_PROOF_HEADER}; the secret was not sent)`,
      );
    }
    const message = messageOf(reply.text);
    if (reply.status !== 429 || attempt >= REMOTE_SIGNAL_TRIES) return { status: reply.status, message };
    const seconds = Number(reply.headers["retry-after"]);
    const wait = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_S) : 1;
    await sleep(wait * 1000);
  }
}
