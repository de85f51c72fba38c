/**
 * The ready-to-paste lines of a wait_create reply (design.md §5, §8). With members, every line
 * carries a bare MEMBER placeholder; attach_to_pid a bare PID placeholder. The agent never composes
 * these. No line holds the secret: agents run a pasted line as `bash -c '<line>'`, whose argv every
 * local user can read with `ps` for as long as the job runs. Lines run as the owner on this machine
 * need none (`vigil signal --id` over the owner-only socket; a file in the 0700 spool); the curl
 * line and a device's shell line read it from a 0600 file, SECRET_FILE, that the agent writes first.
 * The curl line has `--fail-with-body` (curl ≥ 7.76): a refused signal fails the job's step, loudly.
 * It cannot tell who answered (after an unclean stop another user may hold the port and receives the
 * secret): `vigil signal --url` can, and never sends the secret (cli/signal-remote.ts).
 */
import type { HowToSignal } from "../../../shared/schemas/views.js";

export type { HowToSignal };

export interface SignalTarget {
  id: string;
  secret: string;
  members: string[] | null;
  /** How to run the CLI here: `vigil`, or the checkout's bin/vigil.js, with --home when not the default. */
  command: string;
  /** The daemon's signal route. */
  url: string;
  /** $VIGIL_HOME/tmp/signals */
  spoolDir: string;
  heartbeatSeconds?: number;
  /** A device's name: the shell line then writes into that machine's own spool, and is recommended. */
  device?: string | null;
}

const quote = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`);

/** Where the secret goes in lines meant for another user or machine: a 0600 file's path. */
export const SECRET_FILE = "SECRET_FILE";

export function howToSignal(target: SignalTarget): HowToSignal {
  const member = target.members ? " --member MEMBER" : "";
  const memberJson = target.members ? ',"member":"MEMBER"' : "";
  const cli = `${target.command} signal --id ${target.id}${member}`;
  // A fresh name from mktemp (POSIX, BSD and busybox alike) that the spool ignores until the rename.
  const drop = (dir: string, secretJson: string, secretArg: string) =>
    `s=$?; d=${dir}; mkdir -p "$d" && f=$(mktemp "$d/signal.XXXXXXXXXX") && ` +
    `printf '{"id":"${target.id}"${secretJson},"status":"%s","message":"exit=%s"${memberJson}}' ` +
    `${secretArg}"$([ $s -eq 0 ] && echo ok || echo fail)" "$s" > "$f" && mv "$f" "$f.json"`;
  const lines: HowToSignal = {
    // `vigil signal` after it in that shell runs this Vigil (this home), whether or not `vigil` is on PATH.
    env: `export VIGIL_SIGNAL_ID=${target.id}${target.members ? " VIGIL_SIGNAL_MEMBER=MEMBER" : ""}; vigil() { ${target.command} "$@"; }`,
    cli: `${cli} --exit-code $?`,
    curl:
      `{ printf '{"id":"${target.id}","secret":"'; head -n 1 ${SECRET_FILE} | tr -d '\\r\\n'; ` +
      `printf '","status":"ok","message":"done"${memberJson}}'; } | ` +
      `curl -sS --fail-with-body -XPOST ${target.url} -H 'content-type: application/json' --data-binary @-`,
    shell: target.device
      ? drop('"$HOME/.vigil/tmp/signals"', ',"secret":"%s"', `"$(head -n 1 ${SECRET_FILE} | tr -d '\\r\\n')" `)
      : drop(quote(target.spoolDir), "", ""),
    attach_to_pid: `(while kill -0 PID 2>/dev/null; do sleep 5; done; ${cli} --status ok --message "pid PID exited") &`,
    recommended: target.device ? "shell" : "cli",
    secret_note: target.device
      ? `The shell line runs on device ${target.device} and reads the secret (shown only now) from ${SECRET_FILE}: save it there first, in a file only you can read (your file-writing tool, or type it into \`umask 077; cat > FILE\`), and put that path in place of ${SECRET_FILE} — never the secret itself on a command line, where every local user can read it with ps.`
      : `The cli, env, shell and attach_to_pid lines run as you on this machine and need no secret. Only the curl line, for another user or machine, does: save the secret (shown only now) in a file only that user can read (your file-writing tool, or type it into \`umask 077; cat > FILE\`) and put its path in place of ${SECRET_FILE} — never the secret itself on a command line, where every local user can read it with ps.`,
  };
  if (target.heartbeatSeconds !== undefined) {
    const every = Math.max(1, Math.floor(target.heartbeatSeconds / 2));
    lines.heartbeat = `(while kill -0 PID 2>/dev/null; do ${cli} --status progress --message alive; sleep ${every}; done) &`;
  }
  if (target.members) {
    lines.member_note = `Replace MEMBER with the reporting job's name, one of: ${target.members.join(", ")}. A signal without a listed member is refused.`;
  }
  return lines;
}
