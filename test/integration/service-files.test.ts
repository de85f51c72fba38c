/**
 * The service's files as their own tools read them: the systemd unit through `systemd-analyze
 * --user verify` (this machine has the binary though systemd is not PID 1), the plist through
 * xmllint against Apple's plist DTD (plutil is macOS-only). Each runs on the golden file and on
 * the unit or plist rendered for this machine (real node, real bin/vigil.js), and each is shown to
 * catch a broken file, so a pass means something.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { renderPlist } from "../../native-host/src/install/service-launchd.js";
import type { ServiceSpec } from "../../native-host/src/install/service-spec.js";
import { renderEnvFile, renderUnit } from "../../native-host/src/install/service-systemd.js";
import { GOLDEN_LAUNCHD, GOLDEN_SPEC, GOLDEN_SYSTEMD } from "../golden/service-inputs.js";
import { findOrInstall } from "../helpers/apt.js";
import { BIN } from "../helpers/daemon.js";

const GOLDEN = join(import.meta.dirname, "..", "golden");
const golden = (name: string) => readFileSync(join(GOLDEN, name), "utf8");

let tmp: string;
let spec: ServiceSpec;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "vigil-service-files-"));
  mkdirSync(join(tmp, "run"), { mode: 0o700 });
  spec = {
    node: process.execPath,
    script: BIN,
    home: join(tmp, "vigil home"),
    path: "/usr/local/bin:/usr/bin:/bin",
    env: [{ name: "ANTHROPIC_API_KEY", value: "sk-ant-verify" }],
  };
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].find((path) => existsSync(path));

describe(`the systemd unit${systemdAnalyze ? ", checked by systemd-analyze verify" : " (systemd-analyze is NOT installed here: only its golden file and its own shape are checked)"}`, () => {
  /** `systemd-analyze --user verify` on a unit in its own folder: exit code and what it printed. */
  async function verify(unit: string) {
    const dir = mkdtempSync(join(tmp, "unit-"));
    const file = join(dir, "vigil.service");
    writeFileSync(file, unit);
    const result = await execa(systemdAnalyze as string, ["--user", "verify", file], {
      reject: false,
      env: { XDG_RUNTIME_DIR: join(tmp, "run"), SYSTEMD_LOG_COLOR: "0" },
    });
    return { exitCode: result.exitCode, said: `${result.stdout}${result.stderr}`.trim() };
  }

  test("the golden file is what the fixed inputs render", () => {
    expect(renderUnit(GOLDEN_SPEC, GOLDEN_SYSTEMD)).toBe(golden("vigil.service"));
    if (!systemdAnalyze)
      process.stderr.write(
        "vigil: systemd-analyze is not installed: the unit was checked against its golden file only\n",
      );
  });

  test.runIf(systemdAnalyze)("the unit rendered for this machine passes with no warning", async () => {
    const files = { unit: join(tmp, "vigil.service"), envFile: join(tmp, "service.env") };
    writeFileSync(files.envFile, renderEnvFile(spec), { mode: 0o600 });
    expect(await verify(renderUnit(spec, files))).toEqual({ exitCode: 0, said: "" });
  });

  test.runIf(systemdAnalyze)("the golden unit passes but for its node, which this machine lacks", async () => {
    const { said } = await verify(golden("vigil.service"));
    const warnings = said.split("\n").filter((line) => line !== "" && !line.includes(GOLDEN_SPEC.node));
    expect(warnings).toEqual([]);
  });

  test.runIf(systemdAnalyze)("a broken unit is caught (so a pass means something)", async () => {
    const broken = renderUnit(spec, { unit: "", envFile: "" }).replace("Restart=on-failure", "Restart=sometimes");
    expect((await verify(broken)).said).toContain("Failed to parse service restart specifier");
  });
});

describe("the launchd plist, checked by xmllint against Apple's plist DTD (plutil is macOS-only)", () => {
  let xmllint: string;
  beforeAll(() => {
    xmllint = findOrInstall({ name: "xmllint", paths: ["/usr/bin/xmllint"], aptPackage: "libxml2-utils" });
  }, 240_000);

  function lint(plist: string) {
    const file = join(mkdtempSync(join(tmp, "plist-")), "vigil.daemon.plist");
    writeFileSync(file, plist);
    try {
      execFileSync(xmllint, ["--noout", "--nonet", "--dtdvalid", join(GOLDEN, "PropertyList-1.0.dtd"), file], {
        stdio: "pipe",
      });
      return "";
    } catch (error) {
      return String((error as { stderr?: Buffer }).stderr ?? error);
    }
  }

  test("the golden plist is what the fixed inputs render, and is valid", () => {
    expect(renderPlist(GOLDEN_SPEC, GOLDEN_LAUNCHD)).toBe(golden("vigil.plist"));
    expect(lint(golden("vigil.plist"))).toBe("");
  });

  test("the plist rendered for this machine, values with XML's special characters included, is valid", () => {
    const odd = { ...spec, env: [{ name: "K", value: `a<b>&"c"'d` }] };
    expect(lint(renderPlist(odd, GOLDEN_LAUNCHD))).toBe("");
  });

  test("a broken plist is caught (so a pass means something)", () => {
    expect(lint(golden("vigil.plist").replace("<key>RunAtLoad</key>\n", ""))).toContain("does not follow the DTD");
    expect(lint(golden("vigil.plist").replace("</dict>\n</plist>", "</plist>"))).not.toBe("");
  });
});
