/** The REST routes of design.md §11, each a thin call into the engine. */

import type { z } from "zod";
import { ROUTES, routeText } from "../../../shared/api-routes.js";
import { MonitorRefSchema, SessionIdSchema, WaitpointIdSchema, WakeIdSchema } from "../../../shared/schemas/ids.js";
import {
  ControlSchema,
  DeviceAddSchema,
  DeviceNameSchema,
  EventPostSchema,
  HostNameSchema,
  MonitorCreateSchema,
  OwnerSignalSchema,
  SessionCreateSchema,
  SessionPatchSchema,
  SIGNAL_LIMITS,
  TurnSchema,
  VaultKeySchema,
  VaultSetSchema,
  WaitCreateSchema,
  WebhookSignalSchema,
} from "../../../shared/schemas/inputs.js";
import { BrowserObserveSchema } from "../../../shared/schemas/sources.js";
import type { SessionView } from "../../../shared/schemas/views.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { toError } from "../base/log.js";
import { BrowserError, NOT_CONNECTED } from "../browser/link.js";
import { ANSWER_PROOF_HEADER, answerProof } from "../core/signal-proof.js";
import type { SignalOutcome } from "../core/waitpoints.js";
import { MAX_CLAIM_WAIT_SECONDS } from "../delivery/delivery.js";
import { forgetHost, hostViews } from "../engine/host.js";
import { panelPage } from "../engine/panel-page.js";
import type { HostBrief } from "../store/hosts.js";
import type { SessionRow } from "../store/sessions.js";
import { unreachableText } from "../store/unreachable.js";
import { HttpError } from "./json-io.js";
import { panelQuery } from "./panel-query.js";
import type { ApiServices, Reply, Routes } from "./route-context.js";
import { errorBody, SIGNAL_STATUS } from "./status.js";

const sessionView = (
  session: SessionRow,
  hosts: ReadonlyMap<string, HostBrief>,
  extra: { webhookSecret?: string } = {},
): SessionView => ({
  id: session.id,
  label: session.label,
  root: session.root,
  adapter: session.adapter,
  busyUntil:
    session.busyUntil !== null && session.busyUntil > Date.now() ? new Date(session.busyUntil).toISOString() : null,
  createdAt: new Date(session.createdAt).toISOString(),
  host: session.hostId === null ? null : (hosts.get(session.hostId)?.name ?? null),
  ...extra,
});

/** Who took the wakes, as the wake records it (an agent's own hook is the delivery proof). */
const CLAIM_VIA: Record<string, string> = {
  mcp: "mcp push (unacknowledged)",
  "claude-stop": "Claude Code Stop hook",
  "claude-prompt": "Claude Code prompt hook",
  "claude-rewake": "Claude Code rewake hook",
  "codex-stop": "Codex Stop hook",
  "codex-prompt": "Codex prompt hook",
  "gemini-stop": "Gemini CLI AfterAgent hook",
  "gemini-prompt": "Gemini CLI BeforeAgent hook",
  "opencode-idle": "OpenCode plugin (idle session prompted)",
  "copilot-stop": "Copilot CLI agentStop hook",
  "copilot-prompt": "Copilot CLI userPromptSubmitted hook",
};

function waitSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > MAX_CLAIM_WAIT_SECONDS) {
    throw new HttpError(400, `wait: Expected 0–${MAX_CLAIM_WAIT_SECONDS} seconds, got ${raw}`);
  }
  return value;
}

/**
 * A path parameter, checked against its id's pattern before anything is looked up: a value that is
 * not one ("..", "mon-1/..", a wake id where a waitpoint id goes) is a 400 saying what was expected.
 */
function param(value: string | undefined, schema: z.ZodType<string>): string {
  const parsed = schema.safeParse(value ?? "");
  if (!parsed.success) throw new HttpError(400, formatZodError(parsed.error));
  return parsed.data;
}

/** 202 for an accepted signal; a refusal in the one error shape, its code the verdict (`wrong_secret`, `ended`, …). */
function signalReply(outcome: SignalOutcome, asked?: { id: string; nonce?: string }): Reply {
  const status = SIGNAL_STATUS[outcome.verdict];
  const headers: Record<string, string> = {};
  if (outcome.retryAfterSeconds !== undefined) headers["retry-after"] = String(outcome.retryAfterSeconds);
  // A proven signal's answer is signed with the key its proof was made with (core/signal-proof.ts).
  if (outcome.proofKey !== undefined && asked?.nonce !== undefined) {
    headers[ANSWER_PROOF_HEADER] = answerProof(Buffer.from(outcome.proofKey, "hex"), asked.nonce, asked.id, status);
  }
  if (outcome.verdict === "accepted") return { status, body: outcome.body, headers };
  const { error, ...details } = outcome.body;
  return { status, body: errorBody(status, String(error), { ...details, code: outcome.verdict }), headers };
}

/** One round trip to the store now (its clock: a one-row query), in ms to 0.1 ms. */
async function roundTripMs(store: ApiServices["store"]): Promise<number> {
  const started = performance.now();
  await store.tables.hosts.clock();
  return Math.round((performance.now() - started) * 10) / 10;
}

export function registerRoutes(routes: Routes, services: ApiServices): void {
  const { engine, delivery, waitpoints, vault, browser, devices } = services;
  const { queries } = engine;
  routes.on("health", () => ({ status: 200, body: { ok: true } }));

  routes.on("status", async () => {
    // What the daemon knows itself is answered while the database is away (team mode), saying so.
    let database: string | null = null;
    let sessions: number | null = null;
    let databaseRoundTripMs: number | null = null;
    try {
      sessions = (await queries.sessions()).length;
      if (services.store.engine === "postgres") databaseRoundTripMs = await roundTripMs(services.store);
    } catch (error) {
      database = unreachableText(error);
      if (database === null) throw error;
    }
    return {
      status: 200,
      body: {
        pid: process.pid,
        sessions,
        database,
        databaseRoundTripMs,
        runningChecks: engine.runningChecks,
        browserConnected: browser.connected,
        checkLag: engine.checkLag.summary(),
        // The one read of the store in the check load is left out while the database is away.
        checks: await engine.checkLoad(database === null),
        nextTimerAt: engine.nextTimerAt === null ? null : new Date(engine.nextTimerAt).toISOString(),
        host: { id: services.host.id, name: services.host.name },
        store: services.store.engine,
        team: services.team?.status() ?? null,
        ...(database === null ? { notify: await services.notify.summary() } : {}),
      },
    };
  });
  routes.on("listHosts", async () => ({
    status: 200,
    body: hostViews(await services.store.tables.hosts.list(), services.host.id, services.now()),
  }));
  routes.on("removeHost", async (c) => {
    await forgetHost(services.store, param(c.params.name, HostNameSchema), services.host.id, services.now());
    return { status: 200, body: { deleted: true } };
  });

  /**
   * What the side panel and `vigil ls --all` show (engine/panel-page.ts): one page of monitors and
   * waitpoints under the panel's filters, the counts, the sessions, the devices and "Needs you".
   */
  routes.on("panel", async (c) => ({
    status: 200,
    body: await panelPage(
      {
        store: services.store,
        queries,
        waitpointViews: (records) => waitpoints.views(records),
        devices: () => devices.list(),
        checks: () => engine.checkLoad(),
        shield: services.shield,
        now: services.now,
        self: services.host.id,
      },
      panelQuery(c.query),
    ),
  }));

  // ---- sessions
  routes.on("createSession", async (c) => {
    const input = await c.body(SessionCreateSchema);
    const { session, created } = await engine.createSession(input);
    if (input.sandbox !== undefined) await engine.setSessionSandbox(session.id, input.sandbox);
    const extra = input.adapter ? await delivery.setAdapter(session.id, input.adapter) : {};
    return {
      status: created ? 201 : 200,
      body: sessionView(await queries.session(session.id), await queries.hosts(), extra),
    };
  });
  routes.on("updateSession", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    const patch = await c.body(SessionPatchSchema);
    if (patch.label !== undefined) await engine.setSessionLabel(sid, patch.label);
    if (patch.sandbox !== undefined) await engine.setSessionSandbox(sid, patch.sandbox);
    const extra = patch.adapter ? await delivery.setAdapter(sid, patch.adapter) : {};
    return { status: 200, body: sessionView(await queries.session(sid), await queries.hosts(), extra) };
  });
  routes.on("setTurn", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    const { state, leaseSeconds } = await c.body(TurnSchema);
    return { status: 200, body: sessionView(await delivery.setTurn(sid, state, leaseSeconds), await queries.hosts()) };
  });
  routes.on("listSessions", async () => {
    const [sessions, hosts] = await Promise.all([queries.sessions(), queries.hosts()]);
    return { status: 200, body: sessions.map((session) => sessionView(session, hosts)) };
  });
  routes.on("getSession", async (c) => ({
    status: 200,
    body: sessionView(await queries.session(param(c.params.sid, SessionIdSchema)), await queries.hosts()),
  }));
  routes.on("deleteSession", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    await delivery.abandonSession(sid);
    await engine.deleteSession(sid);
    return { status: 200, body: { deleted: true } };
  });

  // ---- monitors
  routes.on("createMonitor", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    return { status: 201, body: await engine.createMonitor(sid, await c.body(MonitorCreateSchema)) };
  });
  routes.on("postEvent", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    return { status: 202, body: await engine.postEvent(sid, await c.body(EventPostSchema)) };
  });
  routes.on("listMonitors", async (c) => ({
    status: 200,
    body: await queries.monitors(param(c.params.sid, SessionIdSchema)),
  }));
  routes.on("getMonitor", async (c) => {
    const record = await queries.monitor(param(c.params.sid, SessionIdSchema), param(c.params.mid, MonitorRefSchema));
    return { status: 200, body: await queries.view(record) };
  });
  routes.on("monitorEvents", async (c) => ({
    status: 200,
    body: await queries.events(param(c.params.sid, SessionIdSchema), param(c.params.mid, MonitorRefSchema)),
  }));
  routes.on("monitorChecks", async (c) => ({
    status: 200,
    body: await queries.checks(param(c.params.sid, SessionIdSchema), param(c.params.mid, MonitorRefSchema)),
  }));
  routes.on("clearEnded", async (c) => ({
    status: 200,
    body: await engine.clearEnded(param(c.params.sid, SessionIdSchema)),
  }));
  routes.on("controlMonitor", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    const mid = param(c.params.mid, MonitorRefSchema);
    await queries.monitor(sid, mid);
    const { action } = await c.body(ControlSchema);
    return { status: 200, body: await engine.control(sid, mid, action) };
  });

  // ---- wakes
  routes.on("listWakes", async (c) => ({
    status: 200,
    body: await queries.wakes(param(c.params.sid, SessionIdSchema)),
  }));
  routes.on("claimWakes", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    const via = CLAIM_VIA[c.query.via ?? ""] ?? "inbox claim";
    // An agent's own hook: its wakes count once the agent's transcript shows them.
    const handover = /^(claude|codex|gemini|copilot)-/.test(c.query.via ?? "");
    const wakes = await delivery.claim(sid, {
      waitMs: waitSeconds(c.query.wait) * 1000,
      via,
      signal: c.signal,
      handover,
    });
    return { status: 200, body: { wakes } };
  });
  routes.on("waitReady", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    const ready = await delivery.waitReady(sid, { waitMs: waitSeconds(c.query.wait) * 1000, signal: c.signal });
    return { status: 200, body: { ready } };
  });
  routes.on("getWake", async (c) => ({
    status: 200,
    body: await queries.wake(param(c.params.sid, SessionIdSchema), param(c.params.wid, WakeIdSchema)),
  }));
  routes.on("findWake", async (c) => ({
    status: 200,
    body: await queries.wakeAnywhere(param(c.params.wid, WakeIdSchema)),
  }));
  routes.on("retryWake", async (c) => ({
    status: 200,
    body: await delivery.retry(param(c.params.sid, SessionIdSchema), param(c.params.wid, WakeIdSchema)),
  }));
  routes.on("dismissWake", async (c) => ({
    status: 200,
    body: await engine.dismissWake(param(c.params.sid, SessionIdSchema), param(c.params.wid, WakeIdSchema)),
  }));

  // ---- waitpoints (design.md §5)
  routes.on("createWaitpoint", async (c) => {
    const sid = param(c.params.sid, SessionIdSchema);
    await queries.session(sid);
    return { status: 201, body: await waitpoints.create(sid, await c.body(WaitCreateSchema)) };
  });
  routes.on("listWaitpoints", async (c) => ({
    status: 200,
    body: await waitpoints.list(param(c.params.sid, SessionIdSchema)),
  }));
  routes.on("getWaitpoint", async (c) => {
    const record = await waitpoints.record(
      param(c.params.sid, SessionIdSchema),
      param(c.params.wid, WaitpointIdSchema),
    );
    return { status: 200, body: await waitpoints.view(record) };
  });
  routes.on("cancelWaitpoint", async (c) => {
    const record = await waitpoints.record(
      param(c.params.sid, SessionIdSchema),
      param(c.params.wid, WaitpointIdSchema),
    );
    await engine.control(record.sessionId, record.id, "cancel");
    return { status: 200, body: await waitpoints.view(await queries.monitor(record.sessionId, record.id)) };
  });
  routes.on("signal", async (c) => {
    const body = await c.body(WebhookSignalSchema, SIGNAL_LIMITS.bodyBytes);
    return signalReply(await waitpoints.signalBatched(body), body);
  });
  routes.on("signalOwner", async (c) => {
    const body = await c.body(OwnerSignalSchema, SIGNAL_LIMITS.bodyBytes);
    const id = param(c.params.wid, WaitpointIdSchema);
    // Without its secret, only this host's waitpoints (another host's: the secret, as anyone).
    const target = body.secret === undefined ? await services.store.tables.waitpoints.target(id) : undefined;
    if (target) await engine.checkSessionHost(target.sessionId, routeText(ROUTES.signalOwner));
    return signalReply(await waitpoints.signal({ ...body, id }, "http", { owner: true }));
  });

  // ---- devices (design.md §5): machines whose spool is collected over SSH
  routes.on("listDevices", async () => ({ status: 200, body: await devices.list() }));
  routes.on("addDevice", async (c) => ({ status: 201, body: await devices.add(await c.body(DeviceAddSchema)) }));
  routes.on("removeDevice", async (c) => {
    await devices.remove(param(c.params.name, DeviceNameSchema));
    return { status: 200, body: { deleted: true } };
  });

  // ---- browser: the connected extension's tabs, read-only (503 when none is connected)
  routes.on("browserTabs", async () => {
    if (!browser.connected) throw new HttpError(503, NOT_CONNECTED);
    try {
      return { status: 200, body: await browser.request({ type: "tabs" }, { timeoutMs: 5000 }) };
    } catch (error) {
      throw new HttpError(503, toError(error).message);
    }
  });
  /** One observation now (to try a selector before arming): 200, 503 without a browser, 422 otherwise. */
  routes.on("browserObserve", async (c) => {
    const body = await c.body(BrowserObserveSchema);
    try {
      return {
        status: 200,
        body: await browser.request({ type: "observe", ...body }, { timeoutMs: 10_000 }),
      };
    } catch (error) {
      const code = error instanceof BrowserError ? error.code : "failed";
      throw new HttpError(code === "not_connected" ? 503 : 422, toError(error).message);
    }
  });

  // ---- vault (names and usage only; values go in, never out)
  routes.on("listVault", async () => ({ status: 200, body: await vault.list() }));
  routes.on("setVault", async (c) => {
    const key = VaultKeySchema.safeParse(c.params.key);
    if (!key.success) throw new HttpError(400, `key: ${formatZodError(key.error)}`);
    const { value } = await c.body(VaultSetSchema);
    await vault.set(key.data, value);
    return { status: 200, body: { key: key.data, set: true } };
  });
  routes.on("deleteVault", async (c) => {
    await vault.delete(param(c.params.key, VaultKeySchema));
    return { status: 200, body: { deleted: true } };
  });
}
