/**
 * `vigil setup claude-code|codex|gemini|opencode|copilot [--dry-run] [--remove]`: one command wires an agent to Vigil (MCP
 * server entry, hooks, a launcher); a second run changes nothing; --dry-run prints the change;
 * --remove takes out exactly what setup added.
 * Design: docs/design.md §6, §7.
 */
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { ensureDaemon } from "../daemon-launch.js";
import { AGENTS, type Agent, isAgent, isSetUp } from "../install/agents.js";
import { claudePaths, claudeRemovers, planClaudeCode } from "../install/claude-code.js";
import { codexPaths, codexRemovers, planCodex } from "../install/codex.js";
import { copilotMcpRemover, copilotPaths, copilotRemover, planCopilot } from "../install/copilot.js";
import { geminiPaths, geminiRemover, planGemini } from "../install/gemini.js";
import { planLauncher } from "../install/launcher.js";
import { changed, describeChange, ManagedFiles, type PlannedFile, readText } from "../install/managed-files.js";
import { isOpencodeSetUp, opencodePaths, planOpencode } from "../install/opencode.js";
import { planShellPath, shellPathRemovers } from "../install/shell-path.js";
import { homeOf, print, printError } from "./context.js";
import { usageError } from "./options.js";
import { agentCliWarning } from "./setup-warning.js";

interface Plan {
  files: PlannedFile[];
  notes: string[];
  next: string[];
}

/** The Vigil home to name in hooks and MCP entries: none when it is the default one. */
function namedHome(home: string): string | null {
  return home === join(homedir(), ".vigil") ? null : home;
}

function planSetup(agent: Agent, home: string): Plan {
  const launcher = planLauncher();
  const vigilHome = namedHome(home);
  // The launcher Vigil writes in ~/.local/bin goes on PATH for each login shell the user has.
  const files = launcher.file ? [launcher.file, ...planShellPath(dirname(launcher.path))] : [];
  if (agent === "claude-code") {
    const paths = claudePaths();
    files.push(
      ...planClaudeCode(
        paths,
        { settings: readText(paths.settings), state: readText(paths.state) },
        launcher.path,
        vigilHome,
      ),
    );
    return {
      files,
      notes: [launcher.note],
      next: [
        "Start Claude Code and ask it to wait for something, e.g.",
        '  "run the build in the background and come back when it is green"',
        "It arms a Vigil wait and ends its turn; the wake continues the session by itself.",
      ],
    };
  }
  if (agent === "copilot") {
    const paths = copilotPaths();
    files.push(
      ...planCopilot(paths, { hooks: readText(paths.hooks), mcp: readText(paths.mcp) }, launcher.path, vigilHome),
    );
    return {
      files,
      notes: [launcher.note],
      next: [
        "Start Copilot CLI (restart it if it runs) and ask it to wait for something; it arms a Vigil",
        "wait and ends its turn. A live session takes the wake through its hooks; a closed one is",
        "resumed (copilot --resume) by itself.",
      ],
    };
  }
  if (agent === "opencode") {
    const paths = opencodePaths();
    files.push(...planOpencode(paths, { plugin: readText(paths.plugin) }, launcher.path, vigilHome));
    return {
      files,
      notes: [launcher.note],
      next: [
        "Start OpenCode (restart it if it runs) and ask it to wait for something; it arms a Vigil wait",
        "and ends its turn. An open idle session is prompted with the wake; a closed one is resumed",
        "(opencode run --session) by itself.",
      ],
    };
  }
  if (agent === "gemini") {
    const paths = geminiPaths();
    files.push(...planGemini(paths, { settings: readText(paths.settings) }, launcher.path, vigilHome));
    return {
      files,
      notes: [launcher.note],
      next: [
        "Start Gemini CLI and ask it to wait for something; it arms a Vigil wait and ends its turn.",
        "An open session takes the wake at the end of its turn or with your next prompt; a closed one",
        "is resumed (gemini --resume) by itself.",
      ],
    };
  }
  const paths = codexPaths();
  const plan = planCodex(paths, { config: readText(paths.config) }, launcher.path, vigilHome);
  files.push(...plan.files);
  return {
    files,
    notes: [launcher.note, ...plan.notes],
    next: [
      "Start Codex and ask it to wait for something; a wake to a closed session resumes it",
      "(codex exec resume) by itself.",
    ],
  };
}

function planRemoval(agent: Agent, managed: ManagedFiles): PlannedFile[] {
  const restore = (path: string, without: (text: string) => string | null): PlannedFile => {
    const before = readText(path);
    const after = (text: string | null) => managed.restoreText(path, text, without);
    return { path, before, after: after(before), remerge: after };
  };
  const launcher = planLauncher(process.env, true);
  const files: PlannedFile[] = [];
  if (agent === "claude-code") {
    const paths = claudePaths();
    files.push(restore(paths.settings, claudeRemovers.settings), restore(paths.state, claudeRemovers.state));
  } else if (agent === "gemini") {
    files.push(restore(geminiPaths().settings, geminiRemover));
  } else if (agent === "copilot") {
    const paths = copilotPaths();
    files.push(restore(paths.hooks, copilotRemover), restore(paths.mcp, copilotMcpRemover));
  } else if (agent === "opencode") {
    // The plugin file is wholly Vigil's: it goes (unless it is no longer the one setup wrote).
    files.push(restore(opencodePaths().plugin, (text) => (isOpencodeSetUp(text) ? null : text)));
  } else {
    const paths = codexPaths();
    files.push(...codexRemovers(paths).map(([path, without]) => restore(path, without)));
  }
  // The launcher serves every agent: it goes only when no other agent is set up.
  if (launcher.file && !AGENTS.some((other) => other !== agent && isSetUp(other)))
    files.push(
      { ...launcher.file, after: null },
      ...shellPathRemovers().map(([path, without]) => restore(path, without)),
    );
  return files;
}

export function registerSetupCommands(program: Command): void {
  program
    .command("setup <agent>")
    .description(
      "wire Claude Code (claude-code), Codex (codex), Gemini CLI (gemini), OpenCode (opencode) or GitHub Copilot CLI (copilot) to Vigil: hooks or plugin, MCP server, launcher",
    )
    .option("--dry-run", "print the change, write nothing")
    .option("--remove", "take out exactly what setup added")
    .action(async (agent: string, options: { dryRun?: boolean; remove?: boolean }, command: Command) => {
      if (!isAgent(agent)) {
        throw usageError(`Expected an agent: ${AGENTS.slice(0, -1).join(", ")} or ${AGENTS.at(-1)}, got ${agent}`);
      }
      const home = homeOf(command);
      const managed = new ManagedFiles(join(home, "setup"));
      const plan: Plan = options.remove
        ? { files: planRemoval(agent, managed), notes: [], next: [] }
        : planSetup(agent, home);
      // Setup still writes the config when the agent is not installed (it may be installed next),
      // but says so, and does not tell the person to start an agent that is not there.
      const warning = options.remove ? null : await agentCliWarning(agent);
      const todo = changed(plan.files);
      if (options.dryRun) {
        if (todo.length === 0) print(`${agent}: nothing to change`);
        for (const file of todo) print(describeChange(file));
        for (const line of warning?.lines ?? []) printError(line);
        return;
      }
      managed.apply(todo);
      if (options.remove) for (const file of plan.files) managed.forget(file.path);
      if (todo.length === 0) print(`${agent}: already ${options.remove ? "removed" : "set up"}; nothing changed`);
      for (const file of todo) {
        print(`${file.after === null ? "removed" : file.before === null ? "created" : "updated"} ${file.path}`);
      }
      for (const note of plan.notes.filter(Boolean)) print(note);
      if (!options.remove) {
        // Started here, the daemon resumes closed sessions with this shell's environment (API keys,
        // PATH to the agent), not with the filtered one an agent gives its hooks.
        const url = await ensureDaemon(home);
        print(`the Vigil daemon runs at ${url}`);
      }
      for (const line of warning?.lines ?? []) printError(line);
      if (todo.length > 0) for (const line of warning?.next ?? plan.next) print(line);
    });
}
