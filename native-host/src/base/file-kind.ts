/**
 * What a path is, in words, for refusals that must name a kind and never quote content ("Expected
 * a regular file, got a FIFO"): the spool and `file__read` both refuse by kind.
 * Design: docs/design.md §5, §8.
 */
import type { Stats } from "node:fs";

export function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "something that is not a file";
}
