/**
 * The side panel's port to the background worker (a runtime port named "panel"): requests carry an
 * id and are matched to their answers; pushes (link state, "changed") go to one callback. When the
 * worker is stopped (browser idle rules) the port connects again after 500 ms; connecting restarts it.
 * Design: docs/design.md §7.
 */
import type { Browser } from "wxt/browser";
import type { BackgroundToPanel, PanelRequest } from "./panel-protocol";

type Runtime = Pick<typeof import("wxt/browser").browser.runtime, "connect">;

/** What the background sends without being asked. */
export type PanelPush = Extract<BackgroundToPanel, { type: string }>;

const RECONNECT_MS = 500;

export class PanelPort {
  #port: Browser.runtime.Port;
  #seq = 0;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(
    private readonly runtime: Runtime,
    private readonly onPush: (push: PanelPush) => void,
  ) {
    this.#port = this.#connect();
  }

  /** One native request relayed by the background; rejects with the host's error. */
  request(body: PanelRequest): Promise<unknown> {
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#port.postMessage({ id, request: body });
    });
  }

  /** Asks the background to try the native host again now. */
  retry(): void {
    this.#port.postMessage({ type: "retry" });
  }

  #connect(): Browser.runtime.Port {
    const port = this.runtime.connect({ name: "panel" });
    port.onMessage.addListener((message: BackgroundToPanel) => this.#onMessage(message));
    port.onDisconnect.addListener(() => {
      setTimeout(() => {
        this.#port = this.#connect();
      }, RECONNECT_MS);
    });
    return port;
  }

  #onMessage(message: BackgroundToPanel): void {
    if ("type" in message) {
      this.onPush(message);
      return;
    }
    const waiting = this.#pending.get(message.id);
    this.#pending.delete(message.id);
    if (message.ok) waiting?.resolve(message.result);
    else waiting?.reject(new Error(message.error));
  }
}
