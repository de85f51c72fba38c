/**
 * The one bounded reader of every answer Vigil fetches (`http__get`, the GitHub client): a body is
 * read as a stream and never buffered past its cap, so a server answering forever costs at most
 * `cap` bytes. Design: docs/design.md §4.1, §8.
 */

/** Reads at most `cap` + 1 bytes, then cancels the stream; an abort ends the read at once. */
export async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  signal: AbortSignal,
  cap: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (stream === null) return { bytes: new Uint8Array(0), truncated: false };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const onAbort = () => void reader.cancel(signal.reason).catch(() => {});
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (size <= cap) {
      signal.throwIfAborted();
      const { done, value } = await reader.read();
      signal.throwIfAborted();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    if (size > cap) await reader.cancel();
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  const bytes = Buffer.concat(chunks, size);
  return size > cap ? { bytes: bytes.subarray(0, cap), truncated: true } : { bytes, truncated: false };
}
