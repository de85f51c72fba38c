/**
 * The Needs-you notification routes (issue #40): list, add, pause/resume, remove and test channels,
 * each a thin call into `notify/channels-admin.ts`.
 * Design: docs/design.md §7.
 */
import {
  ChannelNameSchema,
  NotifyAddSchema,
  NotifyPatchSchema,
  NotifyTestSchema,
} from "../../../shared/schemas/notify.js";
import { formatZodError } from "../../../shared/schemas/zod-error.js";
import { HttpError } from "./json-io.js";
import type { ApiServices, Routes } from "./route-context.js";

function channelName(value: string | undefined): string {
  const parsed = ChannelNameSchema.safeParse(value ?? "");
  if (!parsed.success) throw new HttpError(400, formatZodError(parsed.error));
  return parsed.data;
}

export function registerNotifyRoutes(routes: Routes, { notify }: ApiServices): void {
  routes.on("listNotify", async () => ({ status: 200, body: await notify.list() }));
  routes.on("addNotify", async (c) => ({ status: 201, body: await notify.add(await c.body(NotifyAddSchema)) }));
  routes.on("updateNotify", async (c) => {
    const name = channelName(c.params.name);
    const { paused } = await c.body(NotifyPatchSchema);
    return { status: 200, body: await notify.setPaused(name, paused) };
  });
  routes.on("removeNotify", async (c) => {
    await notify.remove(channelName(c.params.name));
    return { status: 200, body: { deleted: true } };
  });
  routes.on("testNotify", async (c) => {
    const { name } = await c.body(NotifyTestSchema);
    return { status: 200, body: await notify.test(name ?? null) };
  });
}
