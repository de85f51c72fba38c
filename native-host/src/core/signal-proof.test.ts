import { expect, test } from "vitest";
import { answerProof, proofKeyOf, sameProof, signalProof } from "./signal-proof.js";

const key = proofKeyOf("s3cret");
const fields = { id: "wp_0123456789ab", nonce: "ab".repeat(16), status: "ok", message: "done", key: "cli:1" };

test("a proof holds for the same fields and key, and for nothing altered", () => {
  const proof = signalProof(key, fields);
  expect(proof).toMatch(/^[0-9a-f]{64}$/);
  expect(sameProof(proof, signalProof(key, { ...fields }))).toBe(true);
  for (const altered of [
    { ...fields, status: "fail" },
    { ...fields, message: "done!" },
    { ...fields, nonce: "cd".repeat(16) },
    { ...fields, key: "cli:2" },
    { ...fields, data: "x" },
    { ...fields, member: "a" },
  ])
    expect(sameProof(proof, signalProof(key, altered))).toBe(false);
  expect(sameProof(proof, signalProof(proofKeyOf("other"), fields))).toBe(false);
  expect(sameProof(undefined, proof)).toBe(false);
  expect(sameProof("short", proof)).toBe(false);
});

test("an answer's signature names its nonce, waitpoint and status", () => {
  const signed = answerProof(key, fields.nonce, fields.id, 202);
  expect(answerProof(key, fields.nonce, fields.id, 202)).toBe(signed);
  expect(answerProof(key, fields.nonce, fields.id, 401)).not.toBe(signed);
  expect(answerProof(key, "cd".repeat(16), fields.id, 202)).not.toBe(signed);
  expect(answerProof(key, fields.nonce, "wp_ffffffffffff", 202)).not.toBe(signed);
});
