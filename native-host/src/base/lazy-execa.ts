/**
 * execa, imported on first use rather than at daemon start: its ~130 modules are about a seventh of
 * the daemon's start-up, and only watches and the command adapter need it.
 * Design: docs/design.md §1.
 */
type Execa = typeof import("execa").execa;

let loaded: Execa | undefined;

export async function loadExeca(): Promise<Execa> {
  loaded ??= (await import("execa")).execa;
  return loaded;
}
