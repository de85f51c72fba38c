/**
 * The settings' notification channels (issue #40): each channel one entry — its name, kind, where it
 * sends (as the daemon shows it in `vigil notify ls`: shielded, a secret URL only by its origin),
 * whose entries it tells of, its state, last message and last error — with Test (its answer said in
 * a live region) and Pause/Resume. Adding and removing stay in the CLI: a channel's secrets never
 * travel through the extension. The section is drawn into its own element after the panel's
 * settings, with its own delegated click listener. It asks the daemon only while it is scrolled into
 * view (the panel's first rows never wait for it): when it comes into view, after a change (at most
 * every few seconds), every half minute (a message's outcome comes with no "changed") and after
 * each action.
 * Design: docs/design.md §7.
 */
import { type ChannelView, DEFAULT_NOTIFY_CAUSES } from "../../shared/schemas/notify";
import {
  ATTENTION_REASON_TEXT,
  CHANNEL_STATE_TEXT,
  type ChannelState,
  channelScope,
  channelStateOf,
} from "../../shared/wording";
import { h, morph } from "./dom";
import { timeElement } from "./panel-clock";
import type { PanelPush } from "./panel-port";
import type { PanelRequest } from "./panel-protocol";

/** What the section shows to copy when there is no channel. */
export const NOTIFY_ADD_COMMAND = "vigil notify add ntfy https://ntfy.sh/YOUR-TOPIC";
/** How often the list is asked for again while the panel is visible. */
export const CHANNELS_REFRESH_MS = 30_000;
/** At most one refresh this often for "changed" pushes. */
const CHANGED_PAUSE_MS = 3_000;

const STATE_TONES: Record<ChannelState, string> = {
  paused: "paused",
  failing: "failed",
  works: "met",
  untried: "neutral",
};

/** What the last Test or Pause/Resume of a channel came to, said in its live region. */
type Outcome = { pending: string } | { done: string } | { failed: string };

export interface ChannelsSection {
  onPush(push: PanelPush): void;
  /** Asks the daemon for the channels and draws them. */
  refresh(): Promise<void>;
}

export interface ChannelsDeps {
  root: HTMLElement;
  request: (body: PanelRequest) => Promise<unknown>;
  now?: () => number;
}

export function startNotifyChannels({ root, request, now = Date.now }: ChannelsDeps): ChannelsSection {
  let connected = false;
  let channels: ChannelView[] | null = null;
  let listError: string | null = null;
  const outcomes = new Map<string, Outcome>();
  let changedTimer: ReturnType<typeof setTimeout> | null = null;
  let inView = false;

  const render = () => morph(root, channelsSection({ connected, channels, listError, outcomes }, now()));
  const refresh = async () => {
    if (!connected || !inView) return;
    try {
      channels = (await request({ type: "notifyChannels" })) as ChannelView[];
      listError = null;
    } catch (error) {
      listError = (error as Error).message;
    }
    render();
  };
  const act = async (name: string, body: PanelRequest, pending: string, done: (result: unknown) => Outcome) => {
    outcomes.set(name, { pending });
    render();
    try {
      outcomes.set(name, done(await request(body)));
    } catch (error) {
      outcomes.set(name, { failed: `failed: ${(error as Error).message}` });
    }
    await refresh();
  };

  root.addEventListener("click", (event) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-channel-action]");
    const name = button?.dataset.channel;
    if (!button || !name || button.disabled) return;
    if (button.dataset.channelAction === "test")
      void act(name, { type: "notifyTest", name }, "sending…", (result) => {
        const [answer] = result as Array<{ ok: boolean; error: string | null }>;
        return answer?.ok ? { done: "sent" } : { failed: `failed: ${answer?.error ?? "no answer"}` };
      });
    else {
      const paused = button.dataset.channelAction === "pause";
      void act(name, { type: "notifyPause", name, paused }, paused ? "pausing…" : "resuming…", () => ({
        done: paused ? "paused" : "resumed",
      }));
    }
  });
  new IntersectionObserver((entries) => {
    const was = inView;
    inView = entries.some((entry) => entry.isIntersecting);
    if (inView && !was) void refresh();
  }).observe(root);
  setInterval(() => void refresh(), CHANNELS_REFRESH_MS);
  render();

  return {
    refresh,
    onPush(push) {
      if (push.type === "state") {
        const was = connected;
        connected = push.state.status === "connected";
        render();
        if (connected && !was) void refresh();
      } else if (push.type === "changed" && connected && changedTimer === null) {
        changedTimer = setTimeout(() => {
          changedTimer = null;
          void refresh();
        }, CHANGED_PAUSE_MS);
      }
    },
  };
}

interface SectionState {
  connected: boolean;
  channels: ChannelView[] | null;
  listError: string | null;
  outcomes: ReadonlyMap<string, Outcome>;
}

/** The section: hidden while the daemon is out of reach (the panel's notice says so). */
export function channelsSection(state: SectionState, now: number): HTMLElement {
  const { connected, channels, listError } = state;
  const intro = h(
    "p",
    { class: "muted" },
    "Where Vigil tells you what needs you when you are away. Add or remove a channel with ",
    h("code", {}, "vigil notify"),
    " (its secrets stay in the daemon's vault).",
  );
  let body: HTMLElement | null = null;
  if (listError) body = h("p", { class: "error" }, `Could not list the channels: ${listError}`);
  else if (channels?.length === 0)
    body = h(
      "p",
      { "data-testid": "no-channels" },
      "No notification channel yet. Add one: ",
      h("code", { class: "copy" }, NOTIFY_ADD_COMMAND),
    );
  else if (channels)
    body = h(
      "ul",
      { class: "channel-list" },
      channels.map((channel) => channelEntry(channel, state.outcomes.get(channel.name), now)),
    );
  return h(
    "section",
    { id: "channels", class: "settings channels", "aria-labelledby": "channels-title", hidden: !connected },
    h("h2", { id: "channels-title" }, "Notification channels"),
    intro,
    body,
  );
}

function channelEntry(channel: ChannelView, outcome: Outcome | undefined, now: number): HTMLElement {
  const state = channelStateOf(channel);
  const defaults =
    channel.causes.length === DEFAULT_NOTIFY_CAUSES.length &&
    DEFAULT_NOTIFY_CAUSES.every((cause) => channel.causes.includes(cause));
  const causes = defaults
    ? "what needs you"
    : channel.causes.map((cause) => ATTENTION_REASON_TEXT[cause]).join(", ") || "no cause";
  const busy = outcome !== undefined && "pending" in outcome;
  const key = (what: string) => `channel:${channel.name}:${what}`;
  return h(
    "li",
    { class: "channel", "data-channel": channel.name, "data-state": state },
    h(
      "div",
      { class: "row" },
      h("span", { class: "name" }, channel.name),
      h("span", { class: "kind" }, channel.kind),
      h("span", { class: "chip", "data-tone": STATE_TONES[state] }, CHANNEL_STATE_TEXT[state]),
    ),
    h("div", { class: "target" }, channel.target),
    h(
      "div",
      { class: "details" },
      `${[...channelScope(channel), causes].join(" · ")} · `,
      timeElement(channel.lastSentAt, now, "last message ") ?? "no message sent",
      channel.pending > 0 ? ` · ${channel.pending} waiting` : "",
    ),
    channel.lastError
      ? h(
          "p",
          { class: "error" },
          timeElement(channel.lastErrorAt, now, "last error ") ?? "last error",
          `: ${channel.lastError}`,
        )
      : null,
    h(
      "div",
      { class: "actions" },
      h(
        "button",
        {
          type: "button",
          "data-channel-action": "test",
          "data-channel": channel.name,
          "data-key": key("test"),
          disabled: busy,
        },
        "Test",
      ),
      h(
        "button",
        {
          type: "button",
          "data-channel-action": channel.paused ? "resume" : "pause",
          "data-channel": channel.name,
          "data-key": key("pause"),
          disabled: busy,
        },
        channel.paused ? "Resume" : "Pause",
      ),
      h(
        "span",
        {
          class: "outcome",
          role: "status",
          "aria-live": "polite",
          "data-tone": outcome && "failed" in outcome ? "failed" : undefined,
        },
        outcome ? ("pending" in outcome ? outcome.pending : "done" in outcome ? outcome.done : outcome.failed) : "",
      ),
    ),
  );
}
