/**
 * E-mail through the person's SMTP server, with nodemailer: STARTTLS (required) by default, or TLS
 * from the start (`--tls`, usually port 465); a password from the vault. A password is never sent
 * over a connection without TLS: `security: "none"` is refused with a user or a password.
 * Design: docs/design.md §7, §8.
 */
import type { Channel, SendOutcome } from "../channel.js";

/** SMTP answers 4xx (and a dropped connection) are worth another try; 5xx are the server's refusal. */
const isTemporary = (error: { responseCode?: number; code?: string }): boolean =>
  error.responseCode === undefined ? true : error.responseCode < 500;

export const emailChannel: Channel = {
  kind: "email",
  target: (config) => `${String(config.smtp)} → ${String(config.to)}`,
  async send(config, message, context): Promise<SendOutcome> {
    const smtp = new URL(String(config.smtp));
    const security = String(config.security ?? "starttls");
    let pass: string | undefined;
    if (typeof config.passwordSecret === "string") {
      pass = context.secrets.get(config.passwordSecret);
      if (pass === undefined)
        return { ok: false, retry: false, error: `the vault has no ${config.passwordSecret} (the SMTP password)` };
    }
    const nodemailer = await import("nodemailer");
    const transport = nodemailer.createTransport({
      host: smtp.hostname,
      port: Number(smtp.port),
      secure: security === "tls",
      requireTLS: security === "starttls",
      ignoreTLS: security === "none",
      connectionTimeout: context.timeoutMs,
      greetingTimeout: context.timeoutMs,
      socketTimeout: context.timeoutMs,
      ...(typeof config.user === "string" ? { auth: { user: config.user, pass: pass ?? "" } } : {}),
    });
    const abort = () => transport.close();
    context.signal.addEventListener("abort", abort, { once: true });
    try {
      await transport.sendMail({
        from: String(config.from),
        to: String(config.to),
        subject: message.title,
        text: message.text,
        headers: { "X-Vigil-Message": context.messageId },
      });
      return { ok: true };
    } catch (error) {
      const err = error as Error & { responseCode?: number; code?: string };
      const code = err.responseCode ?? err.code;
      return {
        ok: false,
        retry: isTemporary(err),
        error: `SMTP ${smtp.host}: ${err.message.split("\n")[0]?.slice(0, 200)}${code ? ` (${code})` : ""}`,
      };
    } finally {
      context.signal.removeEventListener("abort", abort);
      transport.close();
    }
  },
};
