import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { GOLDEN_LAUNCHD, GOLDEN_SPEC, GOLDEN_SYSTEMD } from "../../../test/golden/service-inputs.js";
import { LAUNCHD_LABEL, launchdManager, renderPlist } from "./service-launchd.js";
import { HIDDEN, installedScript, namedVariables, servicePath, withHiddenValues } from "./service-spec.js";
import { renderEnvFile, renderUnit, systemdManager } from "./service-systemd.js";

const golden = (name: string) =>
  readFileSync(join(import.meta.dirname, "..", "..", "..", "test", "golden", name), "utf8");

describe("the files match the golden ones (test/golden/)", () => {
  test("the systemd unit", () => {
    expect(renderUnit(GOLDEN_SPEC, GOLDEN_SYSTEMD)).toBe(golden("vigil.service"));
  });
  test("its environment file", () => {
    expect(renderEnvFile(GOLDEN_SPEC)).toBe(golden("service.env"));
  });
  test("the launchd plist", () => {
    expect(renderPlist(GOLDEN_SPEC, GOLDEN_LAUNCHD)).toBe(golden("vigil.plist"));
  });
});

describe("the systemd unit", () => {
  const unit = renderUnit(GOLDEN_SPEC, GOLDEN_SYSTEMD);
  test("runs node on bin/vigil.js with --home before serve, restarts on failure, logs to the journal", () => {
    expect(unit).toContain(
      'ExecStart=/usr/local/bin/node /usr/local/lib/node_modules/vigil/bin/vigil.js --home "/home/ada/vigil home" serve --port 0\n',
    );
    for (const line of ["Restart=on-failure", "RestartSec=5", "StandardOutput=journal", "WantedBy=default.target"])
      expect(unit).toContain(`${line}\n`);
    expect(unit).toContain("EnvironmentFile=/home/ada/.config/vigil/service.env\n");
  });
  test("holds no value --env names", () => {
    for (const { value } of GOLDEN_SPEC.env) expect(unit).not.toContain(value);
  });
  test("doubles % (a specifier) and $ (a variable), and quotes a word with spaces or quotes", () => {
    const odd = renderUnit({ ...GOLDEN_SPEC, home: '/h/100% "$x"', path: "/a b:/c%d", env: [] }, GOLDEN_SYSTEMD);
    expect(odd).toContain('--home "/h/100%% \\"$$x\\"" serve --port 0\n');
    expect(odd).toContain('Environment="PATH=/a b:/c%%d"\n');
    expect(odd).not.toContain("EnvironmentFile=");
  });
  test("the environment file quotes each value as systemd reads it", () => {
    expect(renderEnvFile(GOLDEN_SPEC)).toContain('OPENAI_API_KEY="sk-\\"quoted\\"-\\$HOME-\\`x\\`-\\\\"\n');
  });
});

describe("the launchd plist", () => {
  test("holds the values (launchd reads no env file) escaped as XML, and the home before serve", () => {
    const plist = renderPlist({ ...GOLDEN_SPEC, env: [{ name: "K", value: "a<b&c>" }] }, GOLDEN_LAUNCHD);
    expect(plist).toContain("\t\t<key>K</key>\n\t\t<string>a&lt;b&amp;c&gt;</string>\n");
    expect(plist).toMatch(
      /<string>--home<\/string>\n\t\t<string>\/home\/ada\/vigil home<\/string>\n\t\t<string>serve</,
    );
  });
  test("--dry-run's spec shows names only", () => {
    const plist = renderPlist(withHiddenValues(GOLDEN_SPEC), GOLDEN_LAUNCHD);
    for (const { value } of GOLDEN_SPEC.env) expect(plist).not.toContain(value);
    expect(plist).toContain(
      `<key>ANTHROPIC_API_KEY</key>\n\t\t<string>${HIDDEN.replace("<", "&lt;").replace(">", "&gt;")}`,
    );
  });
});

describe("reading the manager's view", () => {
  test("systemctl show: active with its pid, or not loaded", () => {
    const { parseStatus } = systemdManager(GOLDEN_SYSTEMD);
    expect(
      parseStatus(0, "LoadState=loaded\nActiveState=active\nSubState=running\nMainPID=4242\nUnitFileState=enabled\n"),
    ).toEqual({ loaded: true, active: true, pid: 4242, detail: "active (running), pid 4242, enabled at login" });
    expect(parseStatus(0, "LoadState=not-found\nActiveState=inactive\nSubState=dead\nMainPID=0\n")).toMatchObject({
      loaded: false,
      active: false,
      pid: null,
      detail: "not loaded (not-found)",
    });
  });
  test("launchctl print: running with its pid, or not loaded", () => {
    const { parseStatus } = launchdManager(501, GOLDEN_LAUNCHD);
    const printed = `gui/501/${LAUNCHD_LABEL} = {\n\tactive count = 1\n\tstate = running\n\tpid = 777\n\tendpoints = {\n\t\tstate = x\n\t}\n}\n`;
    expect(parseStatus(0, printed)).toEqual({ loaded: true, active: true, pid: 777, detail: "running, pid 777" });
    expect(parseStatus(113, "")).toMatchObject({ loaded: false, active: false, pid: null });
  });
});

describe("what --env and PATH take", () => {
  const env = { ANTHROPIC_API_KEY: "sk-1", EMPTY: "", MULTI: "a\nb" };
  test("a named variable's value is copied", () => {
    expect(namedVariables(["ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"], env)).toEqual([
      { name: "ANTHROPIC_API_KEY", value: "sk-1" },
    ]);
  });
  test.each([
    [
      "NOT_SET",
      "Expected $NOT_SET to be set in this shell (--env copies its current value into the service), got nothing",
    ],
    ["EMPTY", "Expected $EMPTY to be set in this shell (--env copies its current value into the service), got nothing"],
    ["MULTI", "Expected $MULTI to be one line, got a value with a line break or NUL"],
    ["PATH", "Expected --env to name a variable other than PATH (the service always gets PATH)"],
    ["A-B", "Expected --env to name an environment variable (letters, digits, _), got A-B"],
  ])("--env %s is refused, naming no value", (name, message) => {
    expect(() => namedVariables([name], env)).toThrow(message);
  });
  test("PATH keeps absolute entries once, without npm's temporary ones", () => {
    expect(
      servicePath({ PATH: "/usr/bin:relative:/root/.npm/_npx/1/node_modules/.bin:/bin:/usr/bin::./x", HOME: "/root" }),
    ).toBe("/usr/bin:/bin");
  });
  test("the service runs an installed vigil, never the copy npx keeps in npm's cache", () => {
    expect(installedScript("/usr/local/lib/node_modules/vigil")).toBe("/usr/local/lib/node_modules/vigil/bin/vigil.js");
    expect(() => installedScript("/home/ada/.npm/_npx/0a1b/node_modules/vigil")).toThrow(
      "Expected an installed vigil for the service to run (npm install -g vigil), got the copy npx runs from npm's cache (/home/ada/.npm/_npx/0a1b/node_modules/vigil/bin/vigil.js), which npm may remove",
    );
  });
});
