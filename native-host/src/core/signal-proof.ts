/**
 * The signal route's proof mode (design.md §5, §8; issue #37 lower 9): `vigil signal --url` never
 * sends the waitpoint's secret. Whoever holds the port (the daemon, or another local user who bound
 * it after an unclean stop) receives only a random nonce and an HMAC of the signal keyed by
 * sha256(secret), the one thing the daemon stores; the daemon checks it and signs its answer with the
 * same key. A squatter can neither learn the secret nor sign an answer, so the client refuses an
 * answer it cannot verify. A captured proof replayed to the daemon is its idempotency key's
 * duplicate: the signal is stored once, as its sender meant it, and it cannot be altered (the proof
 * covers every field).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The response header that carries the daemon's signed answer. */
export const ANSWER_PROOF_HEADER = "vigil-answer-proof";

/** What a proof covers: every field of the signal but the proof itself. */
export interface ProvenFields {
  id: string;
  nonce: string;
  status: string;
  member?: string | undefined;
  message?: string | undefined;
  data?: unknown;
  key?: string | undefined;
}

/** The key both sides hold: sha256 of the secret (the client computes it, the daemon stored it). */
export const proofKeyOf = (secret: string): Buffer => createHash("sha256").update(secret).digest();

const mac = (key: Buffer, label: string, parts: unknown[]) =>
  createHmac("sha256", key)
    .update(`${label}\n${JSON.stringify(parts)}`)
    .digest("hex");

/** The client's proof that it holds the secret, bound to this nonce and every field it sends. */
export function signalProof(key: Buffer, fields: ProvenFields): string {
  const { id, nonce, status, member, message, data, key: idempotencyKey } = fields;
  return mac(key, "vigil-signal-proof-v1", [
    id,
    nonce,
    status,
    member ?? null,
    message ?? null,
    data === undefined ? null : data,
    idempotencyKey ?? null,
  ]);
}

/** The daemon's signature of its answer (the HTTP status) to the request that carried this nonce. */
export const answerProof = (key: Buffer, nonce: string, id: string, status: number): string =>
  mac(key, "vigil-signal-answer-v1", [nonce, id, status]);

/** Constant-time comparison of two hex MACs (false for anything malformed). */
export function sameProof(given: string | undefined, expected: string): boolean {
  if (given === undefined || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given, "utf8"), Buffer.from(expected, "utf8"));
}
