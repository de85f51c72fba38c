/**
 * Group commit (design.md §5, #30; PostgreSQL #41): items that arrive while a commit is running
 * wait for it and then share the next one, so a burst costs a few transactions rather than one per
 * item, on either engine. Each item's promise settles only after the commit that holds it, so an
 * answer given on it (a 202) survives a crash. One commit runs at a time, or `concurrency`.
 *
 * An item that makes the shared commit fail must not cost the others their answer: when a batch
 * fails (and `isolate` says the failure may be one item's, not the database's), each of its items
 * is committed again on its own, and only the bad one gets the error.
 */
export interface GroupCommitOptions {
  /** Items per commit at most (the rest wait for the next). */
  maxBatch?: number;
  /**
   * Commits in flight at most (default 1). On PostgreSQL a commit waits for its WAL flush; a second
   * batch can do its statements meanwhile, and the server flushes both at once.
   */
  concurrency?: number;
  /** Whether a failed batch is worth committing item by item (false: the database is away, say). */
  isolate?: (error: unknown) => boolean;
}

interface Pending<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, O> {
  #queue: Array<Pending<I, O>> = [];
  #active = 0;
  #scheduled = false;
  readonly #maxBatch: number;
  readonly #concurrency: number;
  readonly #isolate: (error: unknown) => boolean;

  /** `commit` stores the items in one commit and gives one outcome per item, in order. */
  constructor(
    private readonly commit: (items: readonly I[]) => Promise<O[]>,
    options: GroupCommitOptions = {},
  ) {
    this.#maxBatch = options.maxBatch ?? 512;
    this.#concurrency = options.concurrency ?? 1;
    this.#isolate = options.isolate ?? (() => true);
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#kick();
    });
  }

  /** Another committer starts at the end of this turn (the rest of its arrivals join its batch), if one may. */
  #kick(): void {
    if (this.#scheduled || this.#active >= this.#concurrency) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#active++;
    try {
      while (this.#queue.length > 0) await this.#commitBatch(this.#queue.splice(0, this.#maxBatch));
    } finally {
      this.#active--;
    }
  }

  async #commitBatch(batch: Array<Pending<I, O>>): Promise<void> {
    let outcomes: O[];
    try {
      outcomes = await this.commit(batch.map((pending) => pending.item));
    } catch (error) {
      if (batch.length === 1 || !this.#isolate(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      for (const pending of batch) await this.#commitBatch([pending]);
      return;
    }
    batch.forEach((pending, i) => {
      pending.resolve(outcomes[i] as O);
    });
  }
}
