/**
 * ntfy (ntfy.sh or a self-hosted server): POST the text to the topic URL, with `Title`, `Priority`
 * and `Tags` headers (https://docs.ntfy.sh/publish/); a token from the vault as `Authorization:
 * Bearer`. A header that is not ASCII is sent RFC 2047-encoded, which ntfy decodes.
 * Design: docs/design.md §7.
 */
import { substituteValues } from "../../secrets/references.js";
import type { Channel } from "../channel.js";
import { originOf, postOutbound } from "../outbound.js";

/** An HTTP header value: as it is when ASCII, else `=?UTF-8?B?…?=`. */
export const headerText = (text: string): string =>
  /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;

export const ntfyChannel: Channel = {
  kind: "ntfy",
  target: (config, secrets) => originOf(substituteValues(String(config.url), secrets)),
  async send(config, message, context) {
    const headers: Record<string, string> = {
      "content-type": "text/plain; charset=utf-8",
      title: headerText(message.title),
      priority: message.urgent ? "high" : "default",
      tags: message.urgent ? "rotating_light" : "warning",
    };
    if (typeof config.tokenSecret === "string") {
      const token = context.secrets.get(config.tokenSecret);
      if (token === undefined)
        return { ok: false, retry: false, error: `the vault has no ${config.tokenSecret} (the ntfy token)` };
      headers.authorization = `Bearer ${token}`;
    }
    return postOutbound(
      substituteValues(String(config.url), context.secrets),
      { headers, body: message.text },
      context,
    );
  },
};
