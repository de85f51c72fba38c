/**
 * The `regex` operator's engine: RE2 (its pure-JS port re2js, so the extension could run it too),
 * whose matching time is linear in the text whatever the pattern — as GitLab and Cloudflare run
 * patterns they did not write. A backtracking engine takes 2^40 steps for `^(a+)+$` on 40 a's and
 * a "!", and patterns come from agents (prompt-injected ones included) while the text comes from
 * servers (issue 25, finding 2).
 *
 * What RE2 cannot run in linear time — backreferences, lookahead, lookbehind — is refused when the
 * condition is armed, with the engine's reason (`regexRefusal`, called by the condition schema).
 * The text matched is at most REGEX_TEXT_CAP characters: its tail, like a command's kept output.
 * Design: docs/design.md §4.2, §8.
 */
import { RE2JS } from "re2js";

/** The longest pattern accepted (RE2 itself refuses repeats over 1000, nested or not). */
export const REGEX_PATTERN_MAX = 1000;

/**
 * Characters of text a pattern is matched against: the last 65,536. As much as any source keeps —
 * a command keeps the last 16,000 characters of each stream, a tool's body at most 64 KiB — so only
 * browser text and event payloads can be cut, and a match costs a few ms at most.
 */
export const REGEX_TEXT_CAP = 64 * 1024;

/** Compiled patterns, reused from check to check; the oldest is dropped past CACHE_SIZE. */
const CACHE_SIZE = 256;
const compiled = new Map<string, RE2JS>();

/** Why the engine cannot run this pattern, in words a person can act on. */
function reasonOf(pattern: string, error: unknown): string {
  const engine = (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, "");
  if (/\(\?<?[=!]/.test(pattern)) return `lookahead and lookbehind are not supported (${engine})`;
  if (/\\[1-9k]/.test(pattern)) return `backreferences are not supported (${engine})`;
  return engine;
}

function compile(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = RE2JS.compile(pattern);
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, regex);
  }
  return regex;
}

/** Null when the pattern can be armed; otherwise what was expected and what came. */
export function regexRefusal(pattern: string): string | null {
  const shown = JSON.stringify(pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern);
  if (pattern.length > REGEX_PATTERN_MAX) {
    return `Expected a regex of at most ${REGEX_PATTERN_MAX} characters, got ${pattern.length}`;
  }
  try {
    compile(pattern);
    return null;
  } catch (error) {
    return `Expected a regex in RE2 syntax (matched in linear time: no backreferences, lookahead or lookbehind), got ${shown}: ${reasonOf(pattern, error)}`;
  }
}

/**
 * Whether the pattern matches anywhere in the last REGEX_TEXT_CAP characters of the text. Throws
 * for a pattern `regexRefusal` refuses (arming never lets one through).
 */
export function regexMatches(pattern: string, text: string): boolean {
  let tail = text.length > REGEX_TEXT_CAP ? text.slice(-REGEX_TEXT_CAP) : text;
  // A cut inside a surrogate pair leaves half a character: it goes too.
  if (tail !== text && /^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  return compile(pattern).test(tail);
}
