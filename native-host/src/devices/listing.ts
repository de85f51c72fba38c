/**
 * The fixed scripts the daemon runs on a device over its SSH connection, and the reading of what
 * they print (design.md §5). Nothing read on the device ever becomes part of a command: the scripts
 * are constants, and the file names and reasons the daemon sends back travel on the script's stdin
 * as data, one per line, after they passed SAFE_NAME.
 *
 * LIST prints, for each complete `*.json` of `~/.vigil/tmp/signals` (at most 100 a round):
 * `F <bytes> <name>\n<content>\n` for a regular file of at most 64 KB, else `S <why> <name>\n`;
 * then `S UNSAFE:<count> -\n` when it skipped names (any name SAFE_NAME refuses, such as one holding
 * a newline, is counted on the device and never printed, so no name can break the frame), then
 * `END\n`. It frames a copy of each file (in `~/.vigil/tmp`), so a file written meanwhile cannot
 * either. ACT reads `rm\nNAME\n` (delete) or `bad\nNAME\nREASON\n` (park under bad/ with
 * NAME.reason), prints `+` for each name no longer in the spool or `-` for one still there, and
 * `DONE\n`. WATCH runs `inotifywait` on the spool until its stdin closes (the daemon's side went
 * away) and prints a line per `*.json` renamed into it; each line only makes the daemon collect
 * (after the gap between rounds), its text is never read. Without `inotifywait` on the device it
 * exits NO_INOTIFY and the daemon polls.
 */
import { SIGNAL_LIMITS } from "../../../shared/schemas/inputs.js";

/** Signal file names the daemon acts on (what how_to_signal's shell line makes); others are left alone. */
export const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,200}\.json$/;

const SPOOL = 'd="$HOME/.vigil/tmp/signals"; mkdir -p "$d/bad" && cd "$d" || exit 3';

export const LIST_SCRIPT = `${SPOOL}
LC_ALL=C; export LC_ALL
t="$d/../.vigil-list.$$"
trap "rm -f -- \\"\\$t\\"" EXIT
i=0
u=0
for f in *.json; do
  [ -e "$f" ] || [ -L "$f" ] || continue
  case "$f" in
    [!A-Za-z0-9_]* | *[!A-Za-z0-9._-]*) u=$((u + 1)); continue ;;
  esac
  if [ "\${#f}" -gt 206 ]; then u=$((u + 1)); continue; fi
  if [ -L "$f" ]; then printf "S LINK %s\\n" "$f"; continue; fi
  if [ ! -f "$f" ]; then printf "S NOTFILE %s\\n" "$f"; continue; fi
  n=$(wc -c < "$f") || continue
  n=$((n + 0))
  if [ "$n" -gt ${SIGNAL_LIMITS.bodyBytes} ]; then printf "S BIG:%s %s\\n" "$n" "$f"; continue; fi
  cat -- "$f" > "$t" || continue
  n=$(wc -c < "$t") || continue
  n=$((n + 0))
  if [ "$n" -gt ${SIGNAL_LIMITS.bodyBytes} ]; then printf "S BIG:%s %s\\n" "$n" "$f"; continue; fi
  printf "F %s %s\\n" "$n" "$f"
  cat -- "$t"
  printf "\\n"
  i=$((i + 1))
  [ "$i" -ge 100 ] && break
done
[ "$u" -gt 0 ] && printf "S UNSAFE:%s -\\n" "$u"
printf "END\\n"`;

export const ACT_SCRIPT = `${SPOOL}
while IFS= read -r op && IFS= read -r f; do
  case "$op" in
    rm) rm -f -- "$f" ;;
    bad) IFS= read -r why; rm -f -- "bad/$f.reason"; mv -f -- "$f" "bad/$f" && printf "%s\\n" "$why" > "bad/$f.reason" ;;
  esac
  if [ -e "$f" ] || [ -L "$f" ]; then printf "%s\\n" -; else printf "%s\\n" +; fi
done
printf "DONE\\n"`;

/** WATCH's exit status when the device has no `inotifywait` on its PATH. */
export const NO_INOTIFY = 4;

/*
 * Only a file renamed into the spool counts (`moved_to`, and with `--include`, inotify-tools 3.20+,
 * only names ending in `.json`): the shell line writes `NAME.json.tmp` and renames it, so writes,
 * temporary files and the daemon's own removals start no round. An older inotifywait without
 * `--include` reports every rename; the collector's gap between rounds (collector.ts) bounds those.
 * Not `-q`: inotifywait's own "Watches established." is then a line too, so a round runs once the
 * watch is in place and nothing dropped before it is left for the sweep. A background job's stdin
 * is /dev/null in sh, so the script's stdin (the SSH channel) is kept on fd 3 for the `cat` that
 * waits for it to close, then ends inotifywait.
 */
export const WATCH_SCRIPT = `command -v inotifywait >/dev/null 2>&1 || exit ${NO_INOTIFY}
${SPOOL}
exec 3<&0
set -- -m -e moved_to --format .
case "$(inotifywait --help 2>&1)" in *--include*) set -- "$@" --include "[.]json$" ;; esac
inotifywait "$@" . </dev/null 2>&1 3<&- &
w=$!
{ cat <&3 >/dev/null; kill "$w"; } >/dev/null 2>&1 &
c=$!
exec 3<&-
wait "$w"
s=$?
kill "$c" 2>/dev/null
exit "$s"`;

/** The remote command: the script in single quotes for `sh -c` (whatever the login shell is). */
export function remoteCommand(script: string): string {
  if (script.includes("'")) throw new Error("A device script must not contain a single quote");
  return `sh -c '${script}'`;
}

export type Entry = { kind: "file"; name: string; bytes: Buffer } | { kind: "refused"; name: string; reason: string };

const WHY: Record<string, string> = {
  LINK: "Expected a regular file, got a symbolic link",
  NOTFILE: "Expected a regular file, got something that is not a file",
};

/**
 * Reads LIST's output. Throws on anything out of frame (the round is dropped, nothing is acted on);
 * names that fail SAFE_NAME are reported in `unsafe` and never acted on.
 */
export function parseListing(out: Buffer): { entries: Entry[]; unsafe: number } {
  const entries: Entry[] = [];
  let unsafe = 0;
  let at = 0;
  for (;;) {
    const eol = out.indexOf(0x0a, at);
    if (eol === -1) throw new Error("The device's listing ended before END");
    const line = out.toString("utf8", at, eol);
    at = eol + 1;
    if (line === "END") {
      if (at !== out.length) throw new Error("The device's listing has text after END");
      return { entries, unsafe };
    }
    const header = /^([FS]) (\S+) (.+)$/.exec(line);
    if (!header) throw new Error("The device's listing has a line out of frame");
    const [, type, field, name] = header as unknown as [string, string, string, string];
    if (type === "F") {
      if (!/^\d{1,6}$/.test(field) || Number(field) > SIGNAL_LIMITS.bodyBytes)
        throw new Error("The device's listing has a bad length");
      const end = at + Number(field);
      if (end >= out.length || out[end] !== 0x0a) throw new Error("A file changed while the device listed it");
      const bytes = out.subarray(at, end);
      at = end + 1;
      if (SAFE_NAME.test(name)) entries.push({ kind: "file", name, bytes });
      else unsafe += 1;
      continue;
    }
    const skipped = /^UNSAFE:(\d{1,9})$/.exec(field);
    if (skipped) {
      unsafe += Number(skipped[1]);
      continue;
    }
    const big = /^BIG:(\d+)$/.exec(field);
    const reason = big
      ? `Expected a file of at most ${SIGNAL_LIMITS.bodyBytes} bytes, got ${big[1]}`
      : (WHY[field] ?? "Expected a regular file");
    if (SAFE_NAME.test(name)) entries.push({ kind: "refused", name, reason });
    else unsafe += 1;
  }
}

export type Action = { op: "rm"; name: string } | { op: "bad"; name: string; reason: string };

/** ACT's stdin: names passed SAFE_NAME; a reason is one line. */
export function encodeActions(actions: Action[]): string {
  return actions
    .map((a) => (a.op === "rm" ? `rm\n${a.name}\n` : `bad\n${a.name}\n${a.reason.replace(/[\r\n]+/g, " ")}\n`))
    .join("");
}

/**
 * Reads ACT's output: for each action in order, whether its name is gone from the spool (removed,
 * or parked). Throws when the device did not answer every action and `DONE`.
 */
export function parseActed(out: Buffer, count: number): boolean[] {
  const lines = out.toString("utf8").split("\n");
  if (lines.length !== count + 2 || lines[count] !== "DONE" || lines[count + 1] !== "")
    throw new Error("The device did not finish removing collected files");
  return lines.slice(0, count).map((line) => {
    if (line !== "+" && line !== "-") throw new Error("The device's answer to removing files is out of frame");
    return line === "+";
  });
}
