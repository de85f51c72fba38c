import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { DEFAULT_SETTINGS, loadSettings, parseEnv } from "./config.js";

const home = () => mkdtempSync(join(tmpdir(), "vigil-settings-"));

test("defaults, then the environment, then settings.json wins", () => {
  const dir = home();
  expect(loadSettings(dir, {})).toEqual(DEFAULT_SETTINGS);
  expect(loadSettings(dir, { VIGIL_WAITPOINT_SWEEP_MS: "0" }).waitpointSweepMs).toBe(0);
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ waitpointSweepMs: 5000 }));
  expect(loadSettings(dir, { VIGIL_WAITPOINT_SWEEP_MS: "0", VIGIL_WAITPOINT_MAX_WAKES_PER_HOUR: "3" })).toEqual({
    ...DEFAULT_SETTINGS,
    waitpointSweepMs: 5000,
    waitpointMaxWakesPerHour: 3,
  });
});

test("bad settings say which key and what came", () => {
  const dir = home();
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ waitpointSweepMs: -1 }));
  expect(() => loadSettings(dir, {})).toThrow(/settings.json: waitpointSweepMs: Too small/);
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ sweep: 1 }));
  expect(() => loadSettings(dir, {})).toThrow(/Unrecognized key: "sweep"/);
  writeFileSync(join(dir, "settings.json"), "{oops");
  expect(() => loadSettings(dir, {})).toThrow(/Expected JSON, got malformed JSON/);
  expect(() => loadSettings(home(), { VIGIL_WAITPOINT_TTL_MS: "abc" })).toThrow(
    /VIGIL_WAITPOINT_TTL_MS: .* \(got abc\)/,
  );
});

test("team mode's pool size and statement timeout: settings.json or the environment, validated", () => {
  const dir = home();
  expect(loadSettings(dir, {})).toMatchObject({ databasePoolMax: 10, databaseStatementTimeoutMs: 0 });
  expect(
    loadSettings(dir, { VIGIL_DATABASE_POOL_MAX: "4", VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: "15000" }),
  ).toMatchObject({ databasePoolMax: 4, databaseStatementTimeoutMs: 15_000 });
  expect(() => loadSettings(dir, { VIGIL_DATABASE_POOL_MAX: "0" })).toThrow(
    /^VIGIL_DATABASE_POOL_MAX: databasePoolMax: Too small: expected number to be >=1 \(got 0\)/,
  );
  expect(() => loadSettings(dir, { VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: "soon" })).toThrow(
    /^VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: .* \(got soon\)/,
  );
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ databasePoolMax: 500 }));
  expect(() => loadSettings(dir, {})).toThrow(/settings.json: databasePoolMax: Too big: expected number to be <=100/);
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ databasePoolMax: 3, databaseStatementTimeoutMs: 2000 }));
  expect(loadSettings(dir, { VIGIL_DATABASE_POOL_MAX: "7" })).toMatchObject({
    databasePoolMax: 3,
    databaseStatementTimeoutMs: 2000,
  });
});

test("environment variables are validated: a bad value names the variable and what came", () => {
  expect(parseEnv({ VIGIL_PORT: "8080", VIGIL_LOG_LEVEL: "warn", PATH: "/bin" })).toEqual({
    VIGIL_PORT: 8080,
    VIGIL_LOG_LEVEL: "warn",
  });
  expect(parseEnv({ VIGIL_PORT: "" })).toEqual({});
  expect(() => parseEnv({ VIGIL_PORT: "99999" })).toThrow(/^VIGIL_PORT: .* \(got "99999"\)/);
  expect(() => parseEnv({ VIGIL_LOG_LEVEL: "loud" })).toThrow(/^VIGIL_LOG_LEVEL: .*"loud"/);
  expect(() => parseEnv({ VIGIL_INTERVAL_FLOOR_SECONDS: "abc" })).toThrow(/^VIGIL_INTERVAL_FLOOR_SECONDS:/);
  expect(() => parseEnv({ VIGIL_INTERVAL_FLOOR_SECONDS: "0" })).toThrow(/^VIGIL_INTERVAL_FLOOR_SECONDS:/);
});
