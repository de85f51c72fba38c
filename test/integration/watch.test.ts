import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { TestDaemon, waitFor } from "../helpers/daemon.js";

let daemon: TestDaemon;
let n = 0;

beforeAll(async () => {
  daemon = await TestDaemon.start();
});
afterAll(() => daemon.dispose());

async function watch(command: string) {
  const sid = `w-${++n}`;
  await daemon.api("POST", "/api/sessions", { id: sid });
  const reply = await daemon.api("POST", `/api/sessions/${sid}/monitors`, { source: { kind: "watch", command } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return sid;
}

const wakes = async (sid: string) => (await daemon.api("GET", `/api/sessions/${sid}/wakes`)).body as any[];

describe("watches against a real daemon", () => {
  test("lines printed together are one wake, and the watch keeps running", async () => {
    const sid = await watch("printf 'alpha\\nbeta\\ngamma\\n'; sleep 30");
    const [wake] = await waitFor(async () => {
      const list = await wakes(sid);
      return list.length > 0 ? list : null;
    });
    expect(wake.kind).toBe("events");
    expect(wake.payload.events.map((e: { text: string }) => e.text)).toEqual(["alpha", "beta", "gamma"]);
    expect(wake.text).toContain("Still running: it reported new events and is still watching");
    const view = await daemon.monitor(sid, "mon-1");
    expect(view).toMatchObject({ state: "waiting", eventCount: 3, lastEvent: "gamma" });
    await daemon.api("POST", `/api/sessions/${sid}/monitors/mon-1/control`, { action: "cancel" });
    expect((await daemon.monitor(sid, "mon-1")).state).toBe("cancelled");
    expect(await wakes(sid)).toHaveLength(1);
  });

  test("the process exiting ends the watch with its code; pending lines ride on the ending wake", async () => {
    const sid = await watch("echo last words; exit 3");
    const view = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(view.ending).toMatchObject({ reason: "exited", detail: "exited with code 3" });
    const list = await wakes(sid);
    expect(list).toHaveLength(1);
    expect(list[0].kind).toBe("ending");
    expect(list[0].text).toContain("last words");
  });

  test("more than 60 events in a minute stops the watch and says why", async () => {
    const sid = await watch("i=0; while [ $i -lt 100 ]; do echo line $i; i=$((i+1)); done; sleep 30");
    const view = await daemon.waitForState(sid, "mon-1", ["ready"]);
    expect(view.ending.reason).toBe("rate_limited");
    expect(view.eventCount).toBe(60);
    const ending = (await wakes(sid)).find((w) => w.kind === "ending");
    expect(ending.text).toContain("more than 60 events in a sliding minute");
    const events = (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/events`)).body;
    expect(events.at(-1).text).toBe("line 59");
  });

  test("a line over 2,000 characters is cut", async () => {
    const sid = await watch("printf '%5000s\\n' '' | tr ' ' x; exit 0");
    await daemon.waitForState(sid, "mon-1", ["ready"]);
    const [event] = (await daemon.api("GET", `/api/sessions/${sid}/monitors/mon-1/events`)).body;
    expect(event.text).toBe(`${"x".repeat(2000)} …[line cut at 2000 characters]`);
  });
});
