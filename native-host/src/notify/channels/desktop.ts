/**
 * The daemon's own desktop: `notify-send` on Linux, `osascript` on macOS, run with execa and an
 * argv (never a shell); on macOS the text reaches AppleScript as `argv` items, not as script.
 * Design: docs/design.md §7.
 */
import { loadExeca } from "../../base/lazy-execa.js";
import type { Channel, SendOutcome } from "../channel.js";

/** The program and its arguments that show `title` and `text` on this platform. */
export function desktopCommand(title: string, text: string, urgent: boolean, platform = process.platform) {
  if (platform === "darwin") {
    const script = ["on run argv", "display notification (item 2 of argv) with title (item 1 of argv)", "end run"];
    return { file: "osascript", args: [...script.flatMap((line) => ["-e", line]), title, text] };
  }
  return {
    file: "notify-send",
    args: ["--app-name=Vigil", `--urgency=${urgent ? "critical" : "normal"}`, "--", title, text],
  };
}

export const desktopChannel: Channel = {
  kind: "desktop",
  target: () => "this machine's desktop",
  async send(_config, message, context): Promise<SendOutcome> {
    const execa = await loadExeca();
    const { file, args } = desktopCommand(message.title, message.text, message.urgent);
    const result = await execa(file, args, {
      reject: false,
      timeout: context.timeoutMs,
      cancelSignal: context.signal,
      forceKillAfterDelay: 1000,
      stdin: "ignore",
      all: true,
    });
    if (!result.failed) return { ok: true };
    const said = typeof result.all === "string" && result.all.trim() ? `: ${result.all.trim().slice(0, 200)}` : "";
    if ((result as { code?: string }).code === "ENOENT")
      return { ok: false, retry: false, error: `${file} is not installed on this machine` };
    if (result.timedOut)
      return { ok: false, retry: true, error: `${file} did not finish in ${context.timeoutMs / 1000}s` };
    return { ok: false, retry: true, error: `${file} exited ${result.exitCode ?? "on a signal"}${said}` };
  },
};
