/**
 * `${secret:KEY}` references in commands (design.md §3). The stored and shown command keeps the
 * reference; the executed one reads `$VIGIL_SECRET_KEY` from its environment.
 */
const REFERENCE = /\$\{secret:([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;

export function secretKeysIn(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((match) => match[1] as string))];
}

export const envNameFor = (key: string): string => `VIGIL_SECRET_${key}`;

/** For a shell: the reference becomes the variable, quoted so the value stays one word. */
export function rewriteForShell(command: string): string {
  return command.replace(REFERENCE, (_, key: string) => `"$${envNameFor(key)}"`);
}

/** For a non-shell context (a header, a URL): the value itself, resolved at the last moment. */
export function substituteValues(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(REFERENCE, (whole, key: string) => values.get(key) ?? whole);
}
