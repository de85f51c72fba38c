/**
 * Why a wake needs review (design.md §6): the two causes delivery records as a wake's last error,
 * which the panel's "Needs you" list tells apart. Here, below delivery, so the core can read them.
 */

/** The daemon stopped while delivering: whether the wake arrived is unknown. */
export const INTERRUPTED =
  "delivery interrupted: the daemon stopped while delivering, so whether it arrived is unknown; it was not repeated (retry it on purpose if that is safe)";

/** A hook took the wake but the session's transcript never showed it. */
export const HANDOVER_UNSEEN =
  "the agent's hook took it, but the session's transcript never showed it (the agent may have dropped it); it was not repeated (retry it on purpose if that is safe)";

/**
 * A check its host refused to run (engine/seals.ts): the row's seal is not this host's over what it
 * runs — written by a peer into the shared database, or made before seals on PostgreSQL.
 */
export const UNSEALED_CHECK =
  "refused: this host did not arm this check (its seal does not verify); arm it again through this host's daemon";

/** A wake whose session's adapter its host refused to run or send to: nothing ran, the wake waits for review. */
export const UNSEALED_ADAPTER =
  "refused: this host did not set this session's adapter (its seal does not verify); nothing was run or sent; set the adapter again through this host's daemon, then retry the wake";

/** Whether an error is one of the refusals above (the panel's "Needs you" reason `unsealed`). */
export const isUnsealed = (error: string | null): boolean =>
  error !== null && (error.startsWith(UNSEALED_CHECK) || error.startsWith(UNSEALED_ADAPTER));
