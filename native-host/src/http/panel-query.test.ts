/** The panel route's query: defaults, the waitpoint kind, and 400s that say what was expected. */
import { describe, expect, test } from "vitest";
import { excerpt } from "../engine/panel-page.js";
import { panelQuery } from "./panel-query.js";

describe("panelQuery", () => {
  test("defaults: the first 200 of all, no filters", () => {
    expect(panelQuery({})).toEqual({
      offset: 0,
      limit: 200,
      filter: "all",
      sessionId: null,
      kind: null,
      device: null,
      host: null,
      q: null,
    });
  });

  test("a waitpoint is the signal kind; the search is trimmed and lower-cased", () => {
    expect(
      panelQuery({ kind: "waitpoint", q: "  CI Run ", filter: "needs", session: "s1", device: "gpu1", host: "ci-7" }),
    ).toMatchObject({
      host: "ci-7",
      kind: "signal",
      q: "ci run",
      filter: "needs",
      sessionId: "s1",
      device: "gpu1",
    });
  });

  test.each([
    [{ filter: "late" }, 'filter: Expected one of all, needs, active, ended, got "late"'],
    [{ kind: "cron" }, 'kind: Expected one of command, watch, browser, tool, event, time, waitpoint, got "cron"'],
    [{ q: "x".repeat(201) }, "q: Expected at most 200 characters, got 201"],
    [{ limit: "501" }, 'limit: Expected a whole number from 1 to 500, got "501"'],
  ])("%j is refused: %s", (query, message) => {
    expect(() => panelQuery(query)).toThrow(message);
  });

  test("a session that is not an id is refused", () => {
    expect(() => panelQuery({ session: "../x" })).toThrow(/^session: /);
  });

  test("a host that is not a host name is refused", () => {
    expect(() => panelQuery({ host: "-x y" })).toThrow(/^host: Expected a host name of letters/);
  });
});

describe("excerpt", () => {
  test("short text as it is; long text cut to 300 with …; anything else as JSON", () => {
    expect(excerpt("ok")).toBe("ok");
    expect(excerpt("x".repeat(400))).toBe(`${"x".repeat(299)}…`);
    expect(excerpt({ status: 200, body: "y".repeat(500) })?.length).toBe(300);
    expect(excerpt(null)).toBeNull();
  });
});
