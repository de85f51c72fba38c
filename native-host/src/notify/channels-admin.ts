/**
 * What `vigil notify add|ls|rm|pause|resume|test` and the HTTP API do with channels (issue #40).
 * A channel keeps no secret value: a URL given as it is goes into the vault (its path is often the
 * password: an ntfy topic, a Slack or Discord webhook) and the channel keeps `${secret:KEY}`; a
 * token or password is named by its vault key; a webhook's signing secret is made here, kept in the
 * vault and shown once. Every text shown is shielded.
 * Design: docs/design.md §7, §8.
 */
import type { ChannelAdded, ChannelView, NotifyAdd, NotifyTestResult } from "../../../shared/schemas/notify.js";
import { DEFAULT_NOTIFY_CAUSES } from "../../../shared/schemas/notify.js";
import type { AttentionItem, AttentionReason } from "../../../shared/schemas/views.js";
import { ConflictError, NotFoundError, ValidationError } from "../base/errors.js";
import { iso } from "../base/iso.js";
import { newWebhookSecret } from "../delivery/signature.js";
import { secretKeysIn } from "../secrets/references.js";
import type { Shield } from "../secrets/shield.js";
import type { Vault } from "../secrets/vault.js";
import type { Engine as Store } from "../store/engine.js";
import type { ChannelRow } from "../store/notify.js";
import { isLoopbackHost } from "../tools/private-address.js";
import { channelFor } from "./channels/registry.js";
import { messageOf } from "./message.js";
import type { Notifier } from "./notifier.js";
import { outboundRefusal } from "./outbound.js";
import { secretKeysOf } from "./secret-keys.js";

export interface ChannelsDeps {
  store: Store;
  vault: Vault;
  shield: Shield;
  notifier: Notifier;
  hostId: string;
  now: () => number;
}

/** The vault key a channel's own secret is kept under: `NOTIFY_<NAME>_<WHAT>`. */
export const channelSecretKey = (name: string, what: "URL" | "SIGNING"): string =>
  `NOTIFY_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${what}`.slice(0, 64);

export class NotifyChannels {
  constructor(private readonly deps: ChannelsDeps) {}

  async add(input: NotifyAdd): Promise<ChannelAdded> {
    const { store, vault, hostId, now } = this.deps;
    const name = input.name ?? input.kind;
    if (await store.tables.notify.get(name))
      throw new ConflictError(`Expected a new channel name, got ${name} (taken): pass --name`);
    const { kind, name: _name, sessions, causes, allHosts, ...settings } = input;
    if (input.kind === "email") checkEmail(input);
    const config: Record<string, unknown> = { ...settings };
    // Secrets made or given here go into the vault once the channel is known to be whole.
    const toVault: Array<[string, string]> = [];
    if ("url" in settings && secretKeysIn(settings.url).length === 0) {
      const refusal = outboundRefusal(settings.url);
      if (refusal) throw new ValidationError(`url: ${refusal}`);
      toVault.push([channelSecretKey(name, "URL"), settings.url]);
      config.url = `\${secret:${channelSecretKey(name, "URL")}}`;
    }
    let signingSecret: string | undefined;
    if (input.kind === "webhook" && input.signingSecret === undefined) {
      signingSecret = newWebhookSecret();
      toVault.push([channelSecretKey(name, "SIGNING"), signingSecret]);
      config.signingSecret = channelSecretKey(name, "SIGNING");
    }
    const keys = await vault.keys();
    for (const [key] of toVault) keys.add(key);
    const missing = secretKeysOf(config).find((key) => !keys.has(key));
    if (missing !== undefined)
      throw new ValidationError(`Expected the vault to hold ${missing} (vigil vault set ${missing}), got no such key`);
    for (const [key, value] of toVault) await vault.set(key, value);
    const added = await store.tables.notify.add({
      name,
      kind,
      config,
      sessions,
      causes,
      hostId: allHosts ? null : hostId,
      createdAt: now(),
    });
    if (!added) throw new ConflictError(`Expected a new channel name, got ${name} (taken): pass --name`);
    this.deps.notifier.poke();
    const view = await this.view(name);
    return signingSecret === undefined ? view : { ...view, signingSecret };
  }

  async list(): Promise<ChannelView[]> {
    const { store } = this.deps;
    const [rows, counts, hosts, secrets] = await Promise.all([
      store.tables.notify.list(),
      store.tables.notify.pendingCounts(),
      store.tables.hosts.brief(),
      store.tables.vault.entries(),
    ]);
    const names = new Map(hosts.map((host) => [host.id, host.name]));
    const values = new Map(secrets);
    return rows.map((row) => this.#viewOf(row, counts.get(row.name) ?? 0, names, values));
  }

  /** For `vigil status`: how many channels, and the failing ones with their error. */
  async summary(): Promise<{
    channels: number;
    failing: Array<{ name: string; error: string; since: string | null }>;
  }> {
    const channels = await this.list();
    const failing = channels.flatMap((c) =>
      c.lastError === null ? [] : [{ name: c.name, error: c.lastError, since: c.lastErrorAt }],
    );
    return { channels: channels.length, failing };
  }

  async view(name: string): Promise<ChannelView> {
    const found = (await this.list()).find((channel) => channel.name === name);
    if (!found) throw new NotFoundError(`Expected the name of a notification channel, got ${name} (vigil notify ls)`);
    return found;
  }

  async remove(name: string): Promise<void> {
    if (!(await this.deps.store.tables.notify.remove(name)))
      throw new NotFoundError(`Expected the name of a notification channel, got ${name} (vigil notify ls)`);
  }

  async setPaused(name: string, paused: boolean): Promise<ChannelView> {
    if (!(await this.deps.store.tables.notify.setPaused(name, paused)))
      throw new NotFoundError(`Expected the name of a notification channel, got ${name} (vigil notify ls)`);
    if (!paused) this.deps.notifier.poke();
    return this.view(name);
  }

  /** Sends a test message to one channel (or each), now; nothing is queued or counted against the rate. */
  async test(name: string | null): Promise<NotifyTestResult[]> {
    const { store, shield, now } = this.deps;
    const rows = name === null ? await store.tables.notify.list() : [await store.tables.notify.get(name)];
    if (rows[0] === undefined)
      throw new NotFoundError(
        name === null
          ? "Expected a notification channel to test, got none (vigil notify add …)"
          : `Expected the name of a notification channel, got ${name} (vigil notify ls)`,
      );
    const secrets = new Map(await store.tables.vault.entries());
    return Promise.all(
      (rows as ChannelRow[]).map(async (row) => {
        const outcome = await this.deps.notifier.send(row, testMessage(now()), `ntf_test_${now()}`, secrets);
        const error = outcome.ok ? null : shield.text(outcome.error);
        return { name: row.name, ok: outcome.ok, error };
      }),
    );
  }

  #viewOf(
    row: ChannelRow,
    pending: number,
    hosts: ReadonlyMap<string, string>,
    secrets: ReadonlyMap<string, string>,
  ): ChannelView {
    const { shield } = this.deps;
    return {
      name: row.name,
      kind: row.kind as ChannelView["kind"],
      target: shield.text(channelFor(row.kind).target(row.config, secrets)),
      sessions: row.sessions,
      causes: (row.causes.length > 0 ? row.causes : DEFAULT_NOTIFY_CAUSES) as AttentionReason[],
      paused: row.paused,
      host: row.hostId === null ? null : (hosts.get(row.hostId) ?? row.hostId),
      createdAt: iso(row.createdAt) as string,
      lastSentAt: iso(row.lastSentAt),
      lastError: row.lastError === null ? null : shield.text(row.lastError),
      lastErrorAt: iso(row.lastErrorAt),
      pending,
    };
  }
}

/** A password goes only over TLS (or to this machine); a from and a to are needed. */
function checkEmail(input: Extract<NotifyAdd, { kind: "email" }>): void {
  const host = new URL(input.smtp).hostname;
  const credentials = input.user !== undefined || input.passwordSecret !== undefined;
  if (input.security === "none" && credentials && !isLoopbackHost(host))
    throw new ValidationError(
      `Expected --starttls or --tls with a user or password, got neither for ${host}: a password is never sent in clear text`,
    );
  if (input.passwordSecret !== undefined && input.user === undefined)
    throw new ValidationError("Expected --user with --password-secret, got no user");
}

function testMessage(now: number): ReturnType<typeof messageOf> {
  const item: AttentionItem = {
    reason: "monitor_error",
    rank: 0,
    title: "a test from vigil notify test",
    headline: "Vigil test: this channel works. Real messages tell what needs you.",
    label: "test",
    primary: null,
    detail: "Vigil test: this channel works. Real messages tell what needs you.",
    since: iso(now) as string,
    actions: [],
  };
  return { ...messageOf([item], now), title: "Vigil: test message", urgent: false };
}
