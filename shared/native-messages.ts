/**
 * Messages between the extension and `vigil native-host` (SPEC §1, §8): one request type per
 * handler, each validated here; every reply echoes the request id.
 */
import { z } from "zod";

export const NATIVE_HOST_NAME = "dev.vigil.host";
/** Chrome refuses host → browser messages over 1 MB. */
export const MAX_HOST_TO_BROWSER_BYTES = 1024 * 1024;
/** Requests from the browser are small; anything larger is refused (and skipped). */
export const MAX_BROWSER_TO_HOST_BYTES = 1024 * 1024;

const RequestId = z.union([z.string().min(1).max(100), z.number().int()]);

export const NativeRequestSchema = z.discriminatedUnion("type", [
  z.strictObject({ id: RequestId, type: z.literal("ping") }),
  z.strictObject({ id: RequestId, type: z.literal("status") }),
  z.strictObject({
    id: RequestId,
    type: z.literal("list"),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(500).default(200),
  }),
  z.strictObject({
    id: RequestId,
    type: z.literal("control"),
    sessionId: z.string().min(1),
    monitorId: z.string().min(1),
    action: z.enum(["pause", "resume", "cancel"]),
  }),
  z.strictObject({
    id: RequestId,
    type: z.literal("waitpoint"),
    sessionId: z.string().min(1),
    waitpointId: z.string().min(1),
  }),
]);
export type NativeRequest = z.infer<typeof NativeRequestSchema>;
export type NativeRequestType = NativeRequest["type"];

export type NativeReply =
  | { id: string | number | null; ok: true; result: unknown }
  | { id: string | number | null; ok: false; error: string };
