import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { fileRead, fileStat } from "./file-tools.js";
import { BODY_CAP, type ToolContext } from "./tool.js";

let dir: string;
const fifos: string[] = [];

const context = (signal = new AbortController().signal): ToolContext => ({
  signal,
  timeoutMs: 5000,
  secrets: new Map(),
});

/** Fails a call that never settles (a failure detector, not a timing assertion). */
function orHung<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hung: ${what}`)), 5000);
  });
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync("mkfifo", [path]);
  fifos.push(path);
  return path;
}

/** Lets any reader stuck opening a FIFO go (only ever needed when a read blocked). */
function release(path: string): void {
  for (let i = 0; i < 64; i++) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      return; // ENXIO: no reader is waiting.
    }
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vigil-file-tools-"));
});
afterEach(() => {
  for (const path of fifos.splice(0)) release(path);
  rmSync(dir, { recursive: true, force: true });
});

test("/dev/zero is refused at once, naming the path and what it is", async () => {
  await expect(orHung(fileRead.run({ path: "/dev/zero" }, context()), "/dev/zero")).rejects.toThrow(
    /\/dev\/zero.*Expected a regular file, got a character device/,
  );
}, 20_000);

test("a FIFO with no writer is refused without blocking, naming it", async () => {
  const path = fifo("pipe");
  const error = await orHung(fileRead.run({ path }, context()), "FIFO").catch((e: Error) => e);
  expect(error).toMatchObject({ name: "ToolError" });
  expect((error as Error).message).toContain(path);
  expect((error as Error).message).toContain("Expected a regular file, got a FIFO");
}, 20_000);

test("8 FIFO reads leave the I/O threadpool free: a regular read after them still completes", async () => {
  const path = fifo("pipe");
  const attempts = Array.from({ length: 8 }, () =>
    fileRead.run({ path }, context()).then(
      () => "read",
      (error: Error) => error.message,
    ),
  );
  const regular = join(dir, "ok.txt");
  writeFileSync(regular, "still here");
  await expect(orHung(fileRead.run({ path: regular }, context()), "regular read after FIFOs")).resolves.toEqual({
    exists: true,
    size: 10,
    text: "still here",
  });
  for (const outcome of await orHung(Promise.all(attempts), "FIFO reads"))
    expect(outcome).toContain("Expected a regular file, got a FIFO");
}, 20_000);

test("a directory is refused, naming what it is", async () => {
  const path = join(dir, "sub");
  mkdirSync(path);
  await expect(orHung(fileRead.run({ path }, context()), "directory")).rejects.toThrow(
    /Expected a regular file, got a directory/,
  );
});

test("a large file reports its size and the first 64 KB, without json", async () => {
  const path = join(dir, "big.json");
  const size = BODY_CAP * 3 + 17;
  writeFileSync(path, `[${"1,".repeat((size - 3) / 2)}1]`.padEnd(size, " "));
  const result = (await fileRead.run({ path }, context())) as Record<string, unknown>;
  expect(result.exists).toBe(true);
  expect(result.size).toBe(size);
  expect(result.text).toBe(`${`${"[1,".slice(0, 1)}${"1,".repeat(BODY_CAP)}`.slice(0, BODY_CAP)}…`);
  expect(result).not.toHaveProperty("json");
});

test("a small JSON file is parsed; plain text has no json; a symlink to a file is read through", async () => {
  writeFileSync(join(dir, "state.json"), '{"done":true,"n":3}');
  expect(await fileRead.run({ path: join(dir, "state.json") }, context())).toEqual({
    exists: true,
    size: 19,
    text: '{"done":true,"n":3}',
    json: { done: true, n: 3 },
  });
  writeFileSync(join(dir, "notes.txt"), "not json");
  expect(await fileRead.run({ path: join(dir, "notes.txt") }, context())).toEqual({
    exists: true,
    size: 8,
    text: "not json",
  });
  symlinkSync(join(dir, "state.json"), join(dir, "link.json"));
  expect(await fileRead.run({ path: join(dir, "link.json") }, context())).toMatchObject({ json: { done: true } });
});

test("a missing file is {exists: false}", async () => {
  expect(await fileRead.run({ path: join(dir, "nope") }, context())).toEqual({ exists: false });
});

test("an aborted check does not read", async () => {
  writeFileSync(join(dir, "a.txt"), "x");
  const controller = new AbortController();
  controller.abort();
  await expect(fileRead.run({ path: join(dir, "a.txt") }, context(controller.signal))).rejects.toMatchObject({
    name: "ToolError",
  });
});

test("file__stat looks at a FIFO and /dev/zero without opening them", async () => {
  const path = fifo("pipe");
  await expect(orHung(fileStat.run({ path }, context()), "stat FIFO")).resolves.toMatchObject({
    exists: true,
    isFile: false,
    isDirectory: false,
  });
  await expect(orHung(fileStat.run({ path: "/dev/zero" }, context()), "stat /dev/zero")).resolves.toMatchObject({
    exists: true,
    isFile: false,
  });
}, 20_000);
