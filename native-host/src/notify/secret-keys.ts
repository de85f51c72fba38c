/**
 * The vault keys a channel's config needs: its `${secret:KEY}` references and the keys it names
 * (`tokenSecret`, `passwordSecret`, `signingSecret`).
 * Design: docs/design.md §7, §8.
 */
import { secretKeysIn } from "../secrets/references.js";

export const NAMED_SECRET_FIELDS = ["tokenSecret", "passwordSecret", "signingSecret"] as const;

export function secretKeysOf(config: Record<string, unknown>): string[] {
  const keys = new Set<string>();
  for (const value of Object.values(config))
    if (typeof value === "string") for (const k of secretKeysIn(value)) keys.add(k);
  for (const field of NAMED_SECRET_FIELDS) if (typeof config[field] === "string") keys.add(config[field] as string);
  return [...keys];
}
