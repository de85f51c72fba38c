/**
 * The background worker's one native port to `vigil native-host` (design.md §1): reconnects with
 * backoff, matches replies to requests, answers the daemon's requests through a handler, and
 * reports the link's state (no host installed, daemon down, connected) to whoever listens.
 */
import {
  type HostReply,
  type HostRequest,
  HostRequestSchema,
  NATIVE_HOST_NAME,
  type NativeReply,
} from "../../shared/schemas/native-messages";
import type { LinkState, PanelRequest } from "./panel-protocol";

/** The parts of `browser.runtime.Port` used here (so tests can hand in a fake). */
export interface NativePortLike {
  postMessage(message: unknown): void;
  disconnect(): void;
  onMessage: { addListener(listener: (message: unknown) => void): void };
  onDisconnect: { addListener(listener: (port: NativePortLike) => void): void };
  /** Firefox puts the reason a port closed here (Chromium: `runtime.lastError`). */
  error?: { message?: string } | null;
}

export interface HostConnectionDeps {
  connectNative(name: string): NativePortLike;
  /** The reason the last port closed (`browser.runtime.lastError`; Firefox sets `port.error` instead). */
  lastError(): string | undefined;
  onHostRequest(request: HostRequest): Promise<HostReply>;
  onState(state: LinkState): void;
  /** A session changed, or (null) the devices did. */
  onChanged(sessionId: string | null): void;
  setTimer?(callback: () => void, ms: number): unknown;
  clearTimer?(handle: unknown): void;
}

export const BACKOFF = { firstMs: 1000, maxMs: 30_000 } as const;
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * The browser's words when the host manifest is missing, misnamed or not for this extension:
 * Chromium says "Specified native messaging host not found." / "Access to the specified native
 * messaging host is forbidden."; Firefox says "No such native application dev.vigil.host" for both.
 */
const NO_HOST = /not found|forbidden|no such native application/i;

export class HostConnection {
  #port: NativePortLike | null = null;
  #state: LinkState = { status: "connecting" };
  #delayMs: number = BACKOFF.firstMs;
  #retry: unknown = null;
  #seq = 0;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: unknown }>();
  readonly #setTimer: (callback: () => void, ms: number) => unknown;
  readonly #clearTimer: (handle: unknown) => void;

  constructor(private readonly deps: HostConnectionDeps) {
    this.#setTimer = deps.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
    this.#clearTimer = deps.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  }

  get state(): LinkState {
    return this.#state;
  }

  /** The delay before the next reconnect attempt (doubles up to 30 s; resets once connected). */
  get retryDelayMs(): number {
    return this.#delayMs;
  }

  start(): void {
    if (this.#port || this.#retry !== null) return;
    this.#connect();
  }

  /** Reconnect now (the panel's "Retry" button), without waiting out the backoff. */
  retryNow(): void {
    if (this.#retry !== null) this.#clearTimer(this.#retry);
    this.#retry = null;
    if (!this.#port) this.#connect();
  }

  /** A side-panel request relayed to the host; rejects with the host's error text. */
  request(request: PanelRequest): Promise<unknown> {
    const port = this.#port;
    if (!port) return Promise.reject(new Error(this.#describe()));
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      const timer = this.#setTimer(() => {
        this.#pending.delete(id);
        reject(new Error("The Vigil host did not answer in time"));
      }, REQUEST_TIMEOUT_MS);
      this.#pending.set(id, { resolve, reject, timer });
      port.postMessage({ ...request, id });
    });
  }

  #describe(): string {
    const state = this.#state;
    return "error" in state ? state.error : "Not connected to the Vigil host yet";
  }

  #setState(state: LinkState): void {
    this.#state = state;
    this.deps.onState(state);
  }

  #connect(): void {
    this.#retry = null;
    let port: NativePortLike;
    try {
      port = this.deps.connectNative(NATIVE_HOST_NAME);
    } catch (error) {
      this.#closed(String((error as Error).message ?? error));
      return;
    }
    this.#port = port;
    port.onMessage.addListener((message) => this.#onMessage(message));
    port.onDisconnect.addListener((closed) => {
      if (this.#port === port) this.#closed(closed?.error?.message || this.deps.lastError() || "The Vigil host exited");
    });
  }

  #closed(reason: string): void {
    this.#port = null;
    for (const [id, pending] of this.#pending) {
      this.#clearTimer(pending.timer);
      pending.reject(new Error(reason));
      this.#pending.delete(id);
    }
    this.#setState(
      NO_HOST.test(reason)
        ? {
            status: "no_host",
            error: `${/[.!?]$/.test(reason) ? reason : `${reason}.`} Install the native host: run \`npx vigil install\` in the Vigil checkout, then reopen this panel.`,
          }
        : { status: "daemon_down", error: `The Vigil host stopped (${reason}). Start it with: vigil serve` },
    );
    this.#retry = this.#setTimer(() => this.#connect(), this.#delayMs);
    this.#delayMs = Math.min(this.#delayMs * 2, BACKOFF.maxMs);
  }

  #onMessage(message: unknown): void {
    if (message === null || typeof message !== "object") return;
    const m = message as Record<string, unknown>;
    // Connection state and "changed" pushes from the bridge.
    if (m.type === "daemon" && m.id === undefined) {
      if (m.connected === true) {
        this.#delayMs = BACKOFF.firstMs;
        this.#setState({ status: "connected" });
      } else {
        this.#setState({
          status: "daemon_down",
          error: typeof m.error === "string" ? m.error : "The Vigil daemon is not running. Start it with: vigil serve",
        });
      }
      return;
    }
    if (m.type === "changed" && m.id === undefined) {
      this.deps.onChanged(typeof m.sessionId === "string" ? m.sessionId : null);
      return;
    }
    // The daemon asking (observe, tabs): ids start with "h".
    if (typeof m.id === "string" && m.id.startsWith("h") && "type" in m) {
      void this.#answer(message);
      return;
    }
    // A reply to one of our requests.
    if (typeof m.id === "number" && "ok" in m) {
      const pending = this.#pending.get(m.id);
      if (!pending) return;
      this.#pending.delete(m.id);
      this.#clearTimer(pending.timer);
      const reply = message as NativeReply;
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(reply.error));
    }
  }

  async #answer(message: unknown): Promise<void> {
    const id = String((message as { id: unknown }).id);
    const parsed = HostRequestSchema.safeParse(message);
    let reply: HostReply;
    if (!parsed.success) {
      reply = { id, ok: false, error: `The extension does not understand this request: ${parsed.error.message}` };
    } else {
      try {
        reply = await this.deps.onHostRequest(parsed.data);
      } catch (error) {
        reply = { id, ok: false, error: String((error as Error).message ?? error), code: "failed" };
      }
    }
    this.#port?.postMessage(reply);
  }
}
