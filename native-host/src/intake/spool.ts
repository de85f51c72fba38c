/**
 * The signal spool (design.md §5): `$VIGIL_HOME/tmp/signals/`. Writers write NAME.tmp and rename it to
 * NAME.json (atomic), so a half-written file is never read. The file name is the signal's identity
 * (a reused name is heard once). Collected at start, on every rename the folder watch reports
 * (well under a second), and by the sweep every `waitpointSweepMs` as a safety net. Refused files
 * are parked under bad/ with a NAME.json.reason beside them.
 */
import {
  type FSWatcher,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SIGNAL_LIMITS, type SignalBody, SignalBodySchema } from "../../../shared/schemas/inputs.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { type Logger, toError } from "../base/log.js";
import type { SignalOutcome } from "../core/waitpoints.js";

export interface SpoolOptions {
  dir: string;
  sweepMs: number;
  log: Logger;
  intake(body: SignalBody): SignalOutcome;
}

export class Spool {
  #watcher: FSWatcher | null = null;
  #sweep: NodeJS.Timeout | null = null;
  readonly #bad: string;

  constructor(private readonly options: SpoolOptions) {
    this.#bad = join(options.dir, "bad");
  }

  start(): void {
    mkdirSync(this.#bad, { recursive: true, mode: 0o700 });
    this.#watcher = watch(this.options.dir, (_event, name) => {
      if (typeof name === "string" && name.endsWith(".json")) this.collect(name);
    });
    this.#watcher.on("error", (error) =>
      this.options.log.warn(`spool watch failed: ${error.message}; the sweep still collects`),
    );
    this.drain();
    if (this.options.sweepMs > 0) {
      this.#sweep = setInterval(() => this.drain(), this.options.sweepMs);
      this.#sweep.unref();
    }
  }

  stop(): void {
    this.#watcher?.close();
    if (this.#sweep) clearInterval(this.#sweep);
  }

  /** Collects every complete file now (at start, and on each sweep). */
  drain(): number {
    let collected = 0;
    for (const name of readdirSync(this.options.dir).sort()) {
      if (name.endsWith(".json") && this.collect(name)) collected += 1;
    }
    return collected;
  }

  /** Collects one file; false when it was already gone (another event got it first). */
  collect(name: string): boolean {
    const path = join(this.options.dir, name);
    let text: string;
    try {
      if (statSync(path).size > SIGNAL_LIMITS.bodyBytes) {
        this.#park(name, `Expected a file of at most ${SIGNAL_LIMITS.bodyBytes} bytes`);
        return true;
      }
      text = readFileSync(path, "utf8");
    } catch {
      return false;
    }
    let outcome: SignalOutcome;
    try {
      const parsed = SignalBodySchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        this.#park(name, formatZodError(parsed.error));
        return true;
      }
      outcome = this.options.intake({ ...parsed.data, key: `spool:${name}` });
    } catch (error) {
      this.#park(name, `Expected a JSON signal, got: ${toError(error).message}`);
      return true;
    }
    if (outcome.verdict === "accepted" || outcome.verdict === "ended") {
      this.#remove(path);
      this.options.log.info(
        `spool: collected ${name} (${outcome.verdict === "accepted" ? "accepted" : String(outcome.body.error)})`,
      );
    } else {
      this.#park(name, `${outcome.verdict}: ${String(outcome.body.error)}`);
    }
    return true;
  }

  #park(name: string, reason: string): void {
    try {
      renameSync(join(this.options.dir, name), join(this.#bad, name));
      writeFileSync(join(this.#bad, `${name}.reason`), `${reason}\n`);
      this.options.log.warn(`spool: parked ${name} under bad/: ${reason}`);
    } catch {
      // Gone meanwhile: nothing to park.
    }
  }

  #remove(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // Already removed.
    }
  }
}
