/**
 * The ready-to-paste lines of a wait_create reply (design.md §5). With members, every line carries a
 * bare MEMBER placeholder; attach_to_pid a bare PID placeholder. The agent never composes these.
 * The secret never reaches a program's argv (which every local user can read with `ps`): the CLI
 * lines hand it over as a `VIGIL_SIGNAL_SECRET=` assignment (the process environment, readable by
 * its owner only), the curl line on stdin through the shell's builtin printf.
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

export function howToSignal(target: SignalTarget): HowToSignal {
  const member = target.members ? " --member MEMBER" : "";
  const memberJson = target.members ? ',"member":"MEMBER"' : "";
  const cli = `VIGIL_SIGNAL_SECRET=${target.secret} ${target.command} signal --id ${target.id}${member}`;
  const lines: HowToSignal = {
    env: `export VIGIL_SIGNAL_ID=${target.id} VIGIL_SIGNAL_SECRET=${target.secret}${target.members ? " VIGIL_SIGNAL_MEMBER=MEMBER" : ""}`,
    cli: `${cli} --exit-code $?`,
    curl:
      `printf '%s' '{"id":"${target.id}","secret":"${target.secret}","status":"ok","message":"done"${memberJson}}' | ` +
      `curl -sS -XPOST ${target.url} -H 'content-type: application/json' --data-binary @-`,
    shell:
      `s=$?; d=${target.device ? '"$HOME/.vigil/tmp/signals"' : quote(target.spoolDir)}; f="$d/$(date +%s%N)-$$-$RANDOM"; mkdir -p "$d"; ` +
      `printf '{"id":"${target.id}","secret":"${target.secret}","status":"%s","message":"exit=%s"${memberJson}}' ` +
      `"$([ $s -eq 0 ] && echo ok || echo fail)" "$s" > "$f.tmp" && mv "$f.tmp" "$f.json"`,
    attach_to_pid: `(while kill -0 PID 2>/dev/null; do sleep 5; done; ${cli} --status ok --message "pid PID exited") &`,
    recommended: target.device ? "shell" : "cli",
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
