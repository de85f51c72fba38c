/**
 * `vigil notify add|ls|rm|test|pause|resume`: where the person is told what needs them (issue #40).
 * Design: docs/design.md §7.
 */
import type { Command } from "commander";
import { type ChannelView, NOTIFY_KINDS, type NotifyAdd, type NotifyKind } from "../../../shared/schemas/notify.js";
import {
  ATTENTION_REASON_TEXT,
  CHANNEL_STATE_TEXT,
  channelScope,
  channelStateOf,
  countOf,
  relativeTimeDetailed,
} from "../../../shared/wording.js";
import { ApiClient } from "../api/client.js";
import { homeOf, print, printJson } from "./context.js";
import { usageError } from "./options.js";

interface AddOptions {
  name?: string;
  session: string[];
  cause: string[];
  allHosts?: boolean;
  tokenSecret?: string;
  signingSecret?: string;
  smtp?: string;
  from?: string;
  to?: string;
  user?: string;
  passwordSecret?: string;
  starttls?: boolean;
  tls?: boolean;
  plain?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const URL_KINDS = new Set<NotifyKind>(["ntfy", "slack", "discord", "webhook"]);

/** The API body for `vigil notify add KIND [URL] …`; a missing or extra part is a usage error. */
export function addBody(kind: string, url: string | undefined, options: AddOptions): Record<string, unknown> {
  if (!(NOTIFY_KINDS as readonly string[]).includes(kind))
    throw usageError(`Expected a kind (${NOTIFY_KINDS.join(", ")}), got ${kind}`);
  const common = {
    kind,
    ...(options.name ? { name: options.name } : {}),
    sessions: options.session,
    causes: options.cause,
    allHosts: options.allHosts === true,
  };
  if (URL_KINDS.has(kind as NotifyKind)) {
    if (!url) throw usageError(`Expected vigil notify add ${kind} URL, got no URL`);
    return {
      ...common,
      url,
      ...(kind === "ntfy" && options.tokenSecret ? { tokenSecret: options.tokenSecret } : {}),
      ...(kind === "webhook" && options.signingSecret ? { signingSecret: options.signingSecret } : {}),
    };
  }
  if (url) throw usageError(`Expected no URL for ${kind}, got ${url}`);
  if (kind === "desktop") return common;
  if (!options.smtp || !options.from || !options.to)
    throw usageError("Expected vigil notify add email --smtp smtp://HOST:PORT --from ADDR --to ADDR");
  if ([options.starttls, options.tls, options.plain].filter(Boolean).length > 1)
    throw usageError("Expected one of --starttls, --tls, --plain, got several");
  const security = options.tls ? "tls" : options.plain ? "none" : "starttls";
  return {
    ...common,
    smtp: options.smtp,
    from: options.from,
    to: options.to,
    security,
    ...(options.user ? { user: options.user } : {}),
    ...(options.passwordSecret ? { passwordSecret: options.passwordSecret } : {}),
  };
}

/** One channel for `vigil notify ls`: name, kind, target, filters, last message, last error. */
export function channelLines(channel: ChannelView, now: number): string[] {
  const kind = channelStateOf(channel);
  // A failing channel stands out in a terminal.
  const state = kind === "failing" ? "FAILING" : CHANNEL_STATE_TEXT[kind];
  const scope = channelScope(channel);
  const lines = [`${channel.name} · ${channel.kind} · ${channel.target} · ${state}`, `  for ${scope.join(" · ")}`];
  lines.push(`  causes: ${channel.causes.map((cause) => ATTENTION_REASON_TEXT[cause]).join(", ")}`);
  const last = channel.lastSentAt ? `last message ${relativeTimeDetailed(channel.lastSentAt, now)}` : "no message sent";
  lines.push(`  ${last} · ${countOf(channel.pending, "message")} waiting`);
  if (channel.lastError)
    lines.push(`  last error ${relativeTimeDetailed(channel.lastErrorAt, now)}: ${channel.lastError}`);
  return lines;
}

export function registerNotifyCommands(program: Command): void {
  const notify = program
    .command("notify")
    .description("tell the person what needs them: ntfy, Slack, Discord, a webhook, the desktop, e-mail");
  notify
    .command("add <kind> [url]")
    .description("add a channel (ntfy, slack, discord and webhook take a URL; desktop; email --smtp …)")
    .option("--name <name>", "the channel's name (default: its kind)")
    .option("--session <id>", "only this session's entries (repeatable)", collect, [])
    .option("--cause <cause>", "only these causes (repeatable; vigil notify ls lists the default)", collect, [])
    .option("--all-hosts", "team mode: every host's sessions (one host sends each entry once)")
    .option("--token-secret <key>", "ntfy: the vault key of an access token (sent as Authorization: Bearer)")
    .option(
      "--signing-secret <key>",
      "webhook: the vault key of a whsec_… secret (default: one is made and shown once)",
    )
    .option("--smtp <url>", "email: smtp://HOST:PORT")
    .option("--from <addr>", "email: the sender")
    .option("--to <addr>", "email: the recipient")
    .option("--user <user>", "email: the SMTP user")
    .option("--password-secret <key>", "email: the vault key of the SMTP password")
    .option("--starttls", "email: STARTTLS, required (the default)")
    .option("--tls", "email: TLS from the start (port 465)")
    .option("--plain", "email: no TLS (only without a password, or to this machine)")
    .action(async (kind: string, url: string | undefined, options: AddOptions, command: Command) => {
      const body = addBody(kind, url, options) as NotifyAdd;
      const added = await new ApiClient(homeOf(command)).call("addNotify", { body });
      print(`added ${added.name} (${added.kind} → ${added.target})`);
      if (added.signingSecret)
        print(
          `signing secret (shown once; kept in the vault as its key): ${added.signingSecret}\nverify each message's webhook-signature with it (Standard Webhooks)`,
        );
      print(`try it: vigil notify test ${added.name}`);
    });
  notify
    .command("ls")
    .description("each channel: its filters, its last message and its last error")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }, command: Command) => {
      const list = await new ApiClient(homeOf(command)).call("listNotify");
      if (options.json) return printJson(list);
      if (list.length === 0)
        return print("no notification channels (add one: vigil notify add ntfy https://ntfy.sh/TOPIC)");
      const now = Date.now();
      for (const channel of list) print(channelLines(channel, now).join("\n"));
    });
  notify
    .command("rm <name>")
    .description("remove a channel and the messages waiting for it")
    .action(async (name: string, _options: unknown, command: Command) => {
      await new ApiClient(homeOf(command)).call("removeNotify", { params: { name } });
      print(`removed ${name}`);
    });
  notify
    .command("test [name]")
    .description("send a test message now to one channel, or to each")
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const results = await new ApiClient(homeOf(command)).call("testNotify", { body: name ? { name } : {} });
      for (const result of results)
        print(result.ok ? `${result.name}: sent` : `${result.name}: FAILED: ${result.error}`);
      if (results.some((result) => !result.ok)) process.exitCode = 1;
    });
  for (const [verb, paused] of [
    ["pause", true],
    ["resume", false],
  ] as const) {
    notify
      .command(`${verb} <name>`)
      .description(paused ? "stop sending to a channel (nothing is queued meanwhile)" : "send to a channel again")
      .action(async (name: string, _options: unknown, command: Command) => {
        const view = await new ApiClient(homeOf(command)).call("updateNotify", { params: { name }, body: { paused } });
        print(`${view.name} ${view.paused ? "paused" : "resumed"}`);
      });
  }
}
