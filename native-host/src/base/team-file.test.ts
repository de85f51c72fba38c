import { chmodSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { defaultSessionOf, readTeamFile, teamFilePath, writeTeamFile } from "./team-file.js";

const home = () => mkdtempSync(join(tmpdir(), "vigil-team-file-"));

test("a home without a team: no file, the default session is 'default'", () => {
  const h = home();
  expect(readTeamFile(h)).toBeNull();
  expect(defaultSessionOf(h)).toBe("default");
});

test("a team home: the file is 0600, read back whole, and the default session is this host's", () => {
  const h = home();
  writeTeamFile(h, { databaseUrl: "postgres://vigil@db.internal/vigil", hostName: "ci-7" });
  expect(statSync(teamFilePath(h)).mode & 0o777).toBe(0o600);
  expect(readTeamFile(h)).toEqual({ databaseUrl: "postgres://vigil@db.internal/vigil", hostName: "ci-7" });
  expect(defaultSessionOf(h)).toBe("default-ci-7");
  // Loosened by hand: written 0600 again.
  chmodSync(teamFilePath(h), 0o644);
  writeTeamFile(h, { databaseUrl: "postgres://vigil@db.internal/vigil", hostName: "ci-7" });
  expect(statSync(teamFilePath(h)).mode & 0o777).toBe(0o600);
});

test.each([
  ["{not json", /team\.json: Expected JSON, got unreadable text/],
  ['{"databaseUrl":"mysql://x","hostName":"a"}', /team\.json: .*Expected a postgres:\/\/ or postgresql:\/\/ URL/],
  ['{"databaseUrl":"postgres://x/y","hostName":"no spaces"}', /team\.json: .*Expected a host name of letters/],
])("a damaged file (%s) is an error naming it; the CLI's default session falls back to 'default'", (text, message) => {
  const h = home();
  writeFileSync(teamFilePath(h), text);
  expect(() => readTeamFile(h)).toThrow(message);
  expect(defaultSessionOf(h)).toBe("default");
});
