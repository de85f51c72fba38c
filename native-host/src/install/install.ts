/**
 * `vigil install` / `uninstall` / `doctor` (design.md §1, §8): the native-messaging host manifests the
 * browsers read, and a launcher script they run. Linux and macOS folders; a test profile's
 * `--user-data-dir DIR` gets `DIR/NativeMessagingHosts/`.
 */
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { chromiumOrigin, EXTENSION_ID, GECKO_ID } from "../../../shared/extension-identity.js";
import { NATIVE_HOST_NAME } from "../../../shared/schemas/native-messages.js";
import { ValidationError } from "../base/errors.js";
import { vigilCommand } from "../base/how-to-run.js";
import { packageRoot } from "../base/paths.js";

export const BROWSERS = ["chrome", "chromium", "edge", "brave", "firefox"] as const;
export type BrowserName = (typeof BROWSERS)[number];

const LINUX: Record<BrowserName, string> = {
  chrome: ".config/google-chrome/NativeMessagingHosts",
  chromium: ".config/chromium/NativeMessagingHosts",
  edge: ".config/microsoft-edge/NativeMessagingHosts",
  brave: ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
  firefox: ".mozilla/native-messaging-hosts",
};
const MAC: Record<BrowserName, string> = {
  chrome: "Library/Application Support/Google/Chrome/NativeMessagingHosts",
  chromium: "Library/Application Support/Chromium/NativeMessagingHosts",
  edge: "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
  brave: "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
  firefox: "Library/Application Support/Mozilla/NativeMessagingHosts",
};

export interface InstallTarget {
  browser: BrowserName;
  /** Where the manifest goes. */
  file: string;
}

export function parseBrowsers(value: string): BrowserName[] {
  if (value === "all") return [...BROWSERS];
  const names = value.split(",").map((name) => name.trim());
  for (const name of names) {
    if (!(BROWSERS as readonly string[]).includes(name))
      throw new ValidationError(`--browser: Expected ${BROWSERS.join(", ")} or all, got ${name}`);
  }
  return names as BrowserName[];
}

export function targets(
  browsers: BrowserName[],
  options: { userDataDir?: string; home?: string; platform?: NodeJS.Platform } = {},
): InstallTarget[] {
  const platform = options.platform ?? process.platform;
  const file = `${NATIVE_HOST_NAME}.json`;
  if (options.userDataDir) {
    if (browsers.includes("firefox"))
      throw new ValidationError(
        "--user-data-dir: Firefox has no per-profile folder for native hosts; install for firefox without it",
      );
    return browsers.map((browser) => ({
      browser,
      file: join(options.userDataDir as string, "NativeMessagingHosts", file),
    }));
  }
  const folders = platform === "darwin" ? MAC : platform === "linux" ? LINUX : null;
  if (!folders)
    throw new ValidationError(
      `vigil install supports Linux and macOS, not ${platform}; on Windows the manifest is registered in the registry (see docs/panel.md)`,
    );
  const home = options.home ?? homedir();
  return browsers.map((browser) => ({ browser, file: join(home, folders[browser], file) }));
}

/**
 * The browsers this machine uses: those whose profile folder exists (or that already have Vigil's
 * manifest). What `vigil install` and `doctor` act on without --browser.
 */
export function detectedTargets(options: { home?: string; platform?: NodeJS.Platform } = {}): InstallTarget[] {
  return targets([...BROWSERS], options).filter(
    (target) => existsSync(target.file) || existsSync(join(target.file, "..", "..")),
  );
}

export const launcherPath = (vigilHome: string) => join(vigilHome, "native-host");

/** The script the browser starts: absolute node and bin paths, since browsers start hosts with a bare PATH. */
export function launcherScript(vigilHome: string, node = process.execPath): string {
  const bin = join(packageRoot, "bin", "vigil.js");
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  return [
    "#!/bin/sh",
    "# Written by `vigil install`: the browser runs this to reach the Vigil daemon (native messaging).",
    `exec ${quote(node)} ${quote(bin)} --home ${quote(vigilHome)} native-host "$@"`,
    "",
  ].join("\n");
}

export interface Finding {
  ok: boolean;
  what: string;
  /** What to do about it, when not ok. */
  fix?: string;
}

/** The launcher exists, is executable, and the node and bin it names (its quoted paths) exist. */
export function checkLauncher(launcher: string): Finding {
  const fix = `${vigilCommand()} install`;
  if (!existsSync(launcher)) return { ok: false, what: `launcher ${launcher} is missing`, fix };
  try {
    accessSync(launcher, constants.X_OK);
  } catch {
    return { ok: false, what: `launcher ${launcher} is not executable`, fix };
  }
  const quoted = [...readFileSync(launcher, "utf8").matchAll(/'([^']*)'/g)].map((m) => m[1] as string);
  const missing = quoted.slice(0, 2).filter((path) => !existsSync(path));
  if (missing.length > 0)
    return { ok: false, what: `launcher ${launcher} runs ${missing.join(" and ")}, which no longer exist`, fix };
  return { ok: true, what: `launcher ${launcher} runs ${quoted[1]} with ${quoted[0]}` };
}

export function manifestFor(
  browser: BrowserName,
  launcher: string,
  extensionId = EXTENSION_ID,
): Record<string, unknown> {
  const template = readFileSync(
    join(packageRoot, "manifest-templates", browser === "firefox" ? "firefox.json" : "chromium.json"),
    "utf8",
  );
  const filled = template
    .replaceAll("{{launcher}}", JSON.stringify(launcher).slice(1, -1))
    .replaceAll("{{extensionId}}", extensionId)
    .replaceAll("{{geckoId}}", GECKO_ID);
  return JSON.parse(filled) as Record<string, unknown>;
}

export function install(options: {
  vigilHome: string;
  targets: InstallTarget[];
  extensionId?: string;
}): Array<InstallTarget & { launcher: string }> {
  const launcher = launcherPath(options.vigilHome);
  mkdirSync(options.vigilHome, { recursive: true, mode: 0o700 });
  writeFileSync(launcher, launcherScript(options.vigilHome), { mode: 0o755 });
  chmodSync(launcher, 0o755);
  return options.targets.map((target) => {
    mkdirSync(join(target.file, ".."), { recursive: true });
    const manifest = manifestFor(target.browser, launcher, options.extensionId);
    writeFileSync(target.file, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o644 });
    return { ...target, launcher };
  });
}

/** Removes the manifests Vigil wrote (a file naming another program is left alone). */
export function uninstall(targetList: InstallTarget[]): Array<InstallTarget & { removed: boolean; note?: string }> {
  return targetList.map((target) => {
    if (!existsSync(target.file)) return { ...target, removed: false, note: "not installed" };
    try {
      const manifest = JSON.parse(readFileSync(target.file, "utf8")) as { name?: string };
      if (manifest.name !== NATIVE_HOST_NAME) return { ...target, removed: false, note: "not Vigil's; left alone" };
    } catch {
      // An unreadable file under our name is ours to replace.
    }
    rmSync(target.file, { force: true });
    return { ...target, removed: true };
  });
}

/** Checks one installed manifest the way the browser would (design.md §8); findings for doctor. */
export function checkManifest(target: InstallTarget, extensionId = EXTENSION_ID): Finding {
  const what = `${target.browser}: ${target.file}`;
  const reinstall = `${vigilCommand()} install --browser ${target.browser}`;
  if (!existsSync(target.file)) return { ok: false, what: `${what} is missing`, fix: reinstall };
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(target.file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, what: `${what} is not JSON (${(error as Error).message})`, fix: reinstall };
  }
  if (manifest.name !== NATIVE_HOST_NAME)
    return { ok: false, what: `${what} names ${String(manifest.name)}, not ${NATIVE_HOST_NAME}`, fix: reinstall };
  const path = String(manifest.path ?? "");
  if (!path.startsWith("/")) return { ok: false, what: `${what}: path ${path} is not absolute`, fix: reinstall };
  if (!existsSync(path)) return { ok: false, what: `${what}: its launcher ${path} does not exist`, fix: reinstall };
  const allowed =
    target.browser === "firefox"
      ? ((manifest.allowed_extensions as string[] | undefined) ?? []).includes(GECKO_ID)
      : ((manifest.allowed_origins as string[] | undefined) ?? []).includes(chromiumOrigin(extensionId));
  if (!allowed)
    return {
      ok: false,
      what: `${what} does not allow the Vigil extension (${target.browser === "firefox" ? GECKO_ID : chromiumOrigin(extensionId)})`,
      fix: reinstall,
    };
  return { ok: true, what: `${what} allows the Vigil extension and runs ${path}` };
}
