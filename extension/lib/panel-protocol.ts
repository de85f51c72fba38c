/**
 * Between the side panel and the background worker (runtime port named "panel"). The panel sends
 * native requests without ids; the background relays them over the native port and answers.
 * Design: docs/design.md §7.
 */
import type { NativeRequest, WithoutId } from "../../shared/schemas/native-messages";

export type PanelRequest = WithoutId<NativeRequest>;

export type LinkState =
  | { status: "connecting" }
  /** The browser could not start `vigil native-host`: not installed, or not for this extension. */
  | { status: "no_host"; error: string }
  /** The bridge runs but the daemon does not answer. */
  | { status: "daemon_down"; error: string }
  | { status: "connected" };

export type PanelToBackground =
  | { id: number; request: PanelRequest }
  | { type: "retry" }
  /** Send these after UNDO_MS unless undone (lib/held-actions.ts). */
  | { type: "hold"; key: string; requests: PanelRequest[] }
  | { type: "undo"; key: string };

export type BackgroundToPanel =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string }
  | { type: "state"; state: LinkState }
  /** Something changed: in this session, or (without one) the devices or everything. */
  | { type: "changed"; sessionId?: string }
  /** Show this "Needs you" entry (a notification was clicked). */
  | { type: "focus"; key: string }
  /** A held action was sent (error: the first request's that failed). */
  | { type: "sent"; key: string; error: string | null };
