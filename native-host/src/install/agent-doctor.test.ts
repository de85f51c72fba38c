import { expect, test } from "vitest";
import { programOf } from "./agent-doctor.js";
import { quote } from "./launcher.js";

test("programOf reads back the program setup quoted into a hook command", () => {
  for (const path of ["/home/u/.local/bin/vigil", "/home/o'brien/my bin/vigil"])
    expect(programOf(`${quote(path)} --home /x hook claude stop`)).toBe(path);
});
