/**
 * The side panel's port to the background worker (a runtime port named "panel"): requests carry an
 * id and are matched to their answers; pushes (link state, "changed") go to one callback. When the
 * worker is stopped (browser idle rules) the requests still open fail at once and the port connects
 * again after 500 ms; connecting restarts it.
 * Design: docs/design.md §7.
 */
import type { Browser } from "wxt/browser";
import type { BackgroundToPanel, PanelRequest, PanelToBackground } from "./panel-protocol";

type Runtime = Pick<typeof import("wxt/browser").browser.runtime, "connect">;

/** What the background sends without being asked. */
export type PanelPush = Extract<BackgroundToPanel, { type: string }>;

const RECONNECT_MS = 500;

export class PanelPort {
  #port: Browser.runtime.Port;
  #seq = 0;
  /** How often the port was connected again (the browser suite reads it). */
  reconnects = 0;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(
    private readonly runtime: Runtime,
    private readonly onPush: (push: PanelPush) => void,
  ) {
    this.#port = this.#connect();
  }

  /** Requests not answered yet (the browser suite reads it). */
  get pending(): number {
    return this.#pending.size;
  }

  /** One native request relayed by the background; rejects with the host's error. */
  request(body: PanelRequest): Promise<unknown> {
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      try {
        this.#port.postMessage({ id, request: body });
      } catch (error) {
        this.#pending.delete(id);
        reject(new Error(`The extension's background is restarting: ${(error as Error).message}`));
      }
    });
  }

  /** Hands an undoable action to the background, which sends it once its Undo time is up. */
  hold(key: string, requests: PanelRequest[]): void {
    this.#port.postMessage({ type: "hold", key, requests } satisfies PanelToBackground);
  }

  /** Takes a held action back, unsent. */
  undo(key: string): void {
    this.#port.postMessage({ type: "undo", key } satisfies PanelToBackground);
  }

  /** Asks the background to try the native host again now. */
  retry(): void {
    this.#port.postMessage({ type: "retry" });
  }

  #connect(): Browser.runtime.Port {
    const port = this.runtime.connect({ name: "panel" });
    port.onMessage.addListener((message: BackgroundToPanel) => this.#onMessage(message));
    port.onDisconnect.addListener(() => {
      // Answers to the old port never come (Firefox suspends an idle event page): say so now, so
      // nothing waits forever; the new port's "state" push fetches the list again.
      for (const [id, waiting] of this.#pending) {
        this.#pending.delete(id);
        waiting.reject(new Error("The extension's background restarted before it answered"));
      }
      setTimeout(() => {
        this.reconnects++;
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
