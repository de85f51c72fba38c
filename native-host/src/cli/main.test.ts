/** The program's shape: its version, `help` with subcommands, and help texts that are each command's own. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { expect, test } from "vitest";
import { packageRoot } from "../base/paths.js";
import { buildProgram, commandPath, helpRequest, packageVersion } from "./main.js";
import { predicateCondition } from "./monitor-commands.js";
import { adapterFrom } from "./session-commands.js";

function all(command: Command): Command[] {
  return [command, ...command.commands.flatMap(all)];
}
const program = buildProgram();
const commands = all(program).filter((c) => c.name() !== "help");

test("the version is package.json's", () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string };
  expect(packageVersion()).toBe(pkg.version);
  expect(program.version()).toBe(pkg.version);
});

test("help COMMAND… names the words after help; anything else is not a help request", () => {
  expect(helpRequest(["help"])).toEqual([]);
  expect(helpRequest(["help", "wait"])).toEqual(["wait"]);
  expect(helpRequest(["--home", "/h", "help", "sessions", "turn"])).toEqual(["sessions", "turn"]);
  expect(helpRequest(["help", "--help"])).toEqual([]);
  expect(helpRequest(["help", "--bogus"])).toEqual(["--bogus"]);
  expect(helpRequest(["wait", "help"])).toBeNull();
  expect(helpRequest(["ls"])).toBeNull();
});

test("every command's help names its own path", () => {
  const turn = commands.find((c) => c.name() === "turn") as Command;
  expect(commandPath(turn)).toBe("vigil sessions turn");
  expect(turn.helpInformation()).toMatch(/^Usage: vigil sessions turn /);
});

test("no two commands share a description, and every command has one", () => {
  const descriptions = commands.map((c) => c.description());
  for (const [i, description] of descriptions.entries())
    expect(description, `${commandPath(commands[i] as Command)} has no description`).not.toBe("");
  expect(new Set(descriptions).size).toBe(descriptions.length);
});

test("every option says what it does", () => {
  for (const command of commands)
    for (const option of command.options)
      expect(option.description, `${commandPath(command)} ${option.flags}`).not.toBe("");
});

test("install, uninstall and doctor each say what they do with a profile folder", () => {
  const help = (name: string) =>
    commands.find((c) => c.name() === name)?.options.find((o) => o.long === "--user-data-dir")?.description;
  expect(help("install")).toContain("writes");
  expect(help("uninstall")).toContain("removes");
  expect(help("doctor")).toContain("checks");
  expect(commands.find((c) => c.name() === "uninstall")?.options.map((o) => o.long)).not.toContain("--extension-id");
});

test("top-level help documents the exit codes", () => {
  let text = "";
  program.configureOutput({ writeOut: (s) => (text += s) });
  program.outputHelp();
  expect(text).toMatch(/Exit codes:\n {2}0 {2}done[^\n]*\n {2}1 {2}refused or failed[\s\S]*\n {2}2 {2}usage/);
});

test("predicates that mean nothing are usage errors", () => {
  expect(() => predicateCondition({ jsonPath: "a" })).toThrow("Expected --gt, --gte, --lt or --lte with --json-path");
  expect(() => predicateCondition({ gte: "3" })).toThrow("Expected --json-path PATH with --gte");
  expect(() => predicateCondition({ jsonPath: "a", gte: "x" })).toThrow("Expected --gte to be a number, got x");
  expect(predicateCondition({ jsonPath: "build.progress", gte: "0.5" })).toEqual({
    path: "json.build.progress",
    operator: "gte",
    value: 0.5,
  });
  expect(predicateCondition({ jsonPath: "", lt: "3" })).toEqual({ path: "json", operator: "lt", value: 3 });
  expect(predicateCondition({})).toBeUndefined();
});

test("adapter flags that mean nothing for the chosen adapter are usage errors", () => {
  expect(() => adapterFrom({ inbox: true, header: ["a=b"] }, [])).toThrow("Expected --header only with --webhook");
  expect(() => adapterFrom({ mcp: true, timeout: "5" }, [])).toThrow("Expected --timeout only with --webhook");
  expect(() => adapterFrom({ inbox: true }, ["prog"])).toThrow("Expected a program after -- only with --command");
  expect(() => adapterFrom({ command: true, timeout: "soon" }, ["prog"])).toThrow(
    "Expected --timeout to be a number of seconds, got soon",
  );
  expect(adapterFrom({ command: true, timeout: "30" }, ["prog", "{wake_id}"])).toEqual({
    kind: "command",
    argv: ["prog", "{wake_id}"],
    timeoutSeconds: 30,
  });
});
