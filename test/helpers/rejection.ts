/** What `run` was rejected with; a test failure naming the value when it resolved instead. */
export async function rejectionOf<E = unknown>(run: Promise<unknown>): Promise<E> {
  const outcome = await run.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`Expected the run to fail, got ${JSON.stringify(outcome.value)}`);
  return outcome.error as E;
}
