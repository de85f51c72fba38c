/** The REST routes of SPEC §11, each a thin call into the engine. */
import {
  ControlSchema,
  formatZodError,
  MonitorCreateSchema,
  SessionCreateSchema,
  VaultKeySchema,
  VaultSetSchema,
} from "../../../shared/schemas.js";
import type { Engine } from "../engine/engine.js";
import type { SessionRow } from "../store/sessions.js";
import { HttpError } from "./json-io.js";
import type { Routes } from "./server.js";

const sessionView = (session: SessionRow) => ({
  id: session.id,
  label: session.label,
  root: session.root,
  adapter: session.adapter,
  createdAt: new Date(session.createdAt).toISOString(),
});

function param(value: string | undefined, name: string): string {
  if (!value) throw new HttpError(400, `Expected a ${name} in the path`);
  return value;
}

export function registerRoutes(routes: Routes, engine: Engine): void {
  routes.on("GET", "/healthz", () => ({ status: 200, body: { ok: true } }), { public: true });

  routes.on("GET", "/api/status", () => ({
    status: 200,
    body: {
      pid: process.pid,
      sessions: engine.sessions().length,
      runningChecks: engine.runningChecks,
      nextTimerAt: engine.nextTimerAt === null ? null : new Date(engine.nextTimerAt).toISOString(),
    },
  }));

  // ---- sessions
  routes.on("POST", "/api/sessions", async (c) => {
    const { session, created } = engine.createSession(await c.body(SessionCreateSchema));
    return { status: created ? 201 : 200, body: sessionView(session) };
  });
  routes.on("GET", "/api/sessions", () => ({ status: 200, body: engine.sessions().map(sessionView) }));
  routes.on("GET", "/api/sessions/:sid", (c) => ({
    status: 200,
    body: sessionView(engine.session(param(c.params.sid, "session id"))),
  }));
  routes.on("DELETE", "/api/sessions/:sid", (c) => {
    engine.deleteSession(param(c.params.sid, "session id"));
    return { status: 200, body: { deleted: true } };
  });

  // ---- monitors
  routes.on("POST", "/api/sessions/:sid/monitors", async (c) => {
    const sid = param(c.params.sid, "session id");
    engine.session(sid);
    return { status: 201, body: engine.createMonitor(sid, await c.body(MonitorCreateSchema)) };
  });
  routes.on("GET", "/api/sessions/:sid/monitors", (c) => ({
    status: 200,
    body: engine.monitors(param(c.params.sid, "session id")),
  }));
  routes.on("GET", "/api/sessions/:sid/monitors/:mid", (c) => {
    const record = engine.monitor(param(c.params.sid, "session id"), param(c.params.mid, "monitor id"));
    return { status: 200, body: engine.view(record) };
  });
  routes.on("GET", "/api/sessions/:sid/monitors/:mid/events", (c) => ({
    status: 200,
    body: engine.events(param(c.params.sid, "session id"), param(c.params.mid, "monitor id")),
  }));
  routes.on("POST", "/api/sessions/:sid/monitors/:mid/control", async (c) => {
    const sid = param(c.params.sid, "session id");
    const mid = param(c.params.mid, "monitor id");
    engine.monitor(sid, mid);
    const { action } = await c.body(ControlSchema);
    return { status: 200, body: engine.control(sid, mid, action) };
  });

  // ---- wakes
  routes.on("GET", "/api/sessions/:sid/wakes", (c) => ({
    status: 200,
    body: engine.wakes(param(c.params.sid, "session id")),
  }));

  // ---- vault (names and usage only; values go in, never out)
  routes.on("GET", "/api/vault", () => ({ status: 200, body: engine.secrets() }));
  routes.on("PUT", "/api/vault/:key", async (c) => {
    const key = VaultKeySchema.safeParse(c.params.key);
    if (!key.success) throw new HttpError(400, `key: ${formatZodError(key.error)}`);
    const { value } = await c.body(VaultSetSchema);
    engine.setSecret(key.data, value);
    return { status: 200, body: { key: key.data, set: true } };
  });
  routes.on("DELETE", "/api/vault/:key", (c) => {
    engine.deleteSecret(param(c.params.key, "vault key"));
    return { status: 200, body: { deleted: true } };
  });
}
