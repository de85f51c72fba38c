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
