/**
 * A scripted fake of the model APIs the real agent CLIs call — Anthropic Messages (Claude Code),
 * OpenAI Responses (Codex), Gemini's generateContent (Gemini CLI) and OpenAI Chat Completions
 * (OpenCode's OpenAI-compatible provider) — streaming SSE like the real ones, on 127.0.0.1.
 *
 * The script is the conversation itself: a user message holding `RUN: <command>` gets a call of the
 * shell tool with that command; a tool result gets the text "done"; anything else gets
 * "ack: <the end of the last user message>". Side requests (no tools offered) get a short text.
 * `hold(predicate)` keeps the answers to matching requests back until released, so a test can keep
 * an agent process alive at a chosen moment.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface SeenRequest {
  api: "anthropic" | "openai" | "gemini" | "chat";
  /** Offered tools: the main conversation (side requests offer none). */
  main: boolean;
  /** Every user-side text in the request, joined (what the model was shown). */
  text: string;
  /** The latest user message's text. */
  last: string;
  /** OpenAI Responses: the output of the tool call this request answers (what a `cat` showed), or null. */
  toolOutput?: string | null;
  /** Claude Code's session header. */
  session: string | undefined;
  body: any;
}

type Reply = { kind: "text"; text: string } | { kind: "tool"; command: string };

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .map((block: any) =>
            typeof block?.text === "string" ? block.text : block?.type === "tool_result" ? textOf(block.content) : "",
          )
          .join("\n")
      : "";

/**
 * The command a user message asks for: `RUN: <command>`, or — as a model does when Vigil's Codex
 * queue notice names the file holding the wakes — the `cat <file>` line it ends with.
 */
const runIn = (text: string) =>
  [...text.matchAll(/RUN: ([^\n]*)/g)].at(-1)?.[1]?.trim() ?? /^(cat \/\S+\/wakes\.txt)$/m.exec(text)?.[1] ?? null;

function anthropicRequest(body: any, headers: IncomingMessage["headers"]): { seen: SeenRequest; reply: Reply } {
  const messages: any[] = body.messages ?? [];
  const main = (body.tools ?? []).some((tool: any) => tool.name === "Bash");
  const users = messages.filter((m) => m.role === "user");
  const last = users.at(-1);
  const lastText = textOf(last?.content);
  const seen: SeenRequest = {
    api: "anthropic",
    main,
    text: [textOf(body.system), ...messages.map((m) => textOf(m.content))].join("\n"),
    last: lastText,
    session: headers["x-claude-code-session-id"] as string | undefined,
    body,
  };
  if (!main) return { seen, reply: { kind: "text", text: "side-answer" } };
  const toolResult = Array.isArray(last?.content) && last.content.some((b: any) => b.type === "tool_result");
  const lastMessage = messages.at(-1);
  if (toolResult && lastMessage === last) return { seen, reply: { kind: "text", text: "done" } };
  const command = runIn(lastText);
  if (command) return { seen, reply: { kind: "tool", command } };
  return { seen, reply: { kind: "text", text: `ack: ${lastText.replace(/\s+/g, " ").slice(-120)}` } };
}

function openaiRequest(body: any): { seen: SeenRequest; reply: Reply } {
  const input: any[] = Array.isArray(body.input) ? body.input : [{ role: "user", content: String(body.input ?? "") }];
  const main = (body.tools ?? []).length > 0;
  const users = input.filter((item) => (item.type === "message" || !item.type) && item.role === "user");
  const lastText = textOf(users.at(-1)?.content);
  const seen: SeenRequest = {
    api: "openai",
    main,
    text: [
      String(body.instructions ?? ""),
      ...input.map((item) => textOf(item.content) || String(item.output ?? "")),
    ].join("\n"),
    last: lastText,
    toolOutput: null,
    session: undefined,
    body,
  };
  const tail = input.at(-1);
  if (tail?.type === "function_call_output") seen.toolOutput = String(tail.output ?? "");
  if (tail?.type === "function_call_output" || tail?.type === "custom_tool_call_output") {
    return { seen, reply: { kind: "text", text: "done" } };
  }
  const command = main ? runIn(lastText) : null;
  if (command) return { seen, reply: { kind: "tool", command } };
  return { seen, reply: { kind: "text", text: main ? `ack: ${lastText.replace(/\s+/g, " ").slice(-120)}` : "side" } };
}

/** Gemini `contents`: a user turn's text parts (function responses are not what the user said). */
const geminiText = (parts: unknown): string =>
  Array.isArray(parts)
    ? parts
        .map((part: any) =>
          typeof part?.text === "string"
            ? part.text
            : part?.functionResponse
              ? JSON.stringify(part.functionResponse.response ?? {})
              : "",
        )
        .join("\n")
    : "";

/** `main`: the conversation streams (Gemini CLI's side requests — routing, checks — do not). */
function geminiRequest(body: any, main: boolean): { seen: SeenRequest; reply: Reply } {
  const contents: any[] = body.contents ?? [];
  const userTexts = contents.filter(
    (c) => c.role === "user" && (c.parts ?? []).some((p: any) => typeof p?.text === "string"),
  );
  const lastText = geminiText(userTexts.at(-1)?.parts);
  const seen: SeenRequest = {
    api: "gemini",
    main,
    text: [geminiText(body.systemInstruction?.parts), ...contents.map((c) => geminiText(c.parts))].join("\n"),
    last: lastText,
    session: undefined,
    body,
  };
  const tail = contents.at(-1);
  if ((tail?.parts ?? []).some((p: any) => p?.functionResponse)) return { seen, reply: { kind: "text", text: "done" } };
  const command = main ? runIn(lastText) : null;
  if (command) return { seen, reply: { kind: "tool", command } };
  return { seen, reply: { kind: "text", text: main ? `ack: ${lastText.replace(/\s+/g, " ").slice(-120)}` : "side" } };
}

/** One Gemini response: a function call of the shell tool, or text. */
function geminiResponse(reply: Reply): unknown {
  const part =
    reply.kind === "tool"
      ? { functionCall: { name: "run_shell_command", args: { command: reply.command, description: "scripted" } } }
      : { text: reply.text };
  return {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-fake",
  };
}

/** OpenAI Chat Completions (OpenCode's OpenAI-compatible provider): the conversation offers the `bash` tool. */
function chatRequest(body: any): { seen: SeenRequest; reply: Reply } {
  const messages: any[] = body.messages ?? [];
  const main = (body.tools ?? []).some((tool: any) => tool.function?.name === "bash");
  const lastText = textOf(messages.filter((m) => m.role === "user").at(-1)?.content);
  const seen: SeenRequest = {
    api: "chat",
    main,
    text: messages.map((m) => textOf(m.content)).join("\n"),
    last: lastText,
    session: undefined,
    body,
  };
  if (messages.at(-1)?.role === "tool") return { seen, reply: { kind: "text", text: "done" } };
  const command = main ? runIn(lastText) : null;
  if (command) return { seen, reply: { kind: "tool", command } };
  return { seen, reply: { kind: "text", text: main ? `ack: ${lastText.replace(/\s+/g, " ").slice(-120)}` : "side" } };
}

function chatStream(res: ServerResponse, reply: Reply): void {
  const n = ++counter;
  const chunk = (delta: unknown, finish: string | null) => ({
    id: `chatcmpl-fake-${n}`,
    object: "chat.completion.chunk",
    created: 0,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const delta =
    reply.kind === "tool"
      ? {
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: `call_fake_${n}`,
              type: "function",
              function: {
                name: "bash",
                arguments: JSON.stringify({ command: reply.command, description: "scripted" }),
              },
            },
          ],
        }
      : { role: "assistant", content: reply.text };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const data of [
    chunk(delta, null),
    {
      ...chunk({}, reply.kind === "tool" ? "tool_calls" : "stop"),
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    },
  ])
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function sse(res: ServerResponse, events: Array<[string, unknown]>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

let counter = 0;

function anthropicStream(res: ServerResponse, model: string, reply: Reply): void {
  const n = ++counter;
  const block =
    reply.kind === "tool"
      ? [
          { type: "tool_use", id: `toolu_fake_${n}`, name: "Bash", input: {} },
          {
            type: "input_json_delta",
            partial_json: JSON.stringify({ command: reply.command, description: "scripted" }),
          },
        ]
      : [
          { type: "text", text: "" },
          { type: "text_delta", text: reply.text },
        ];
  sse(res, [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: `msg_fake_${n}`,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      },
    ],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: block[0] }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: block[1] }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: reply.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

function openaiStream(res: ServerResponse, reply: Reply): void {
  const n = ++counter;
  const item =
    reply.kind === "tool"
      ? {
          type: "function_call",
          id: `fc_fake_${n}`,
          call_id: `call_fake_${n}`,
          name: "exec_command",
          arguments: JSON.stringify({ cmd: reply.command, login: false }),
        }
      : {
          type: "message",
          role: "assistant",
          id: `msg_fake_${n}`,
          status: "completed",
          content: [{ type: "output_text", text: reply.text, annotations: [] }],
        };
  sse(res, [
    ["response.created", { type: "response.created", response: { id: `resp_fake_${n}` } }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    [
      "response.completed",
      {
        type: "response.completed",
        response: {
          id: `resp_fake_${n}`,
          usage: {
            input_tokens: 10,
            input_tokens_details: null,
            output_tokens: 5,
            output_tokens_details: null,
            total_tokens: 15,
          },
        },
      },
    ],
  ]);
}

export interface FakeModelApi {
  url: string;
  requests: SeenRequest[];
  /** Main-conversation requests only. */
  main(): SeenRequest[];
  /** Holds back answers to requests matching `predicate` until the returned release() is called. */
  hold(predicate: (request: SeenRequest) => boolean): { release(): void; held(): number };
  close(): Promise<void>;
}

export async function startFakeModelApi(): Promise<FakeModelApi> {
  const requests: SeenRequest[] = [];
  const holds: Array<{ predicate: (r: SeenRequest) => boolean; released: boolean; waiting: Array<() => void> }> = [];
  const heldBack = async (seen: SeenRequest) => {
    for (const hold of holds) {
      if (!hold.released && hold.predicate(seen)) await new Promise<void>((resolve) => hold.waiting.push(resolve));
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const path = (req.url ?? "/").split("?")[0] as string;
      let body: any = {};
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      } catch {
        body = {};
      }
      const json = (value: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (req.method === "POST" && path.endsWith("/messages/count_tokens")) return json({ input_tokens: 10 });
      if (req.method === "GET" && path.endsWith("/models")) {
        return json({ object: "list", data: [{ id: "fake-model", object: "model" }], models: [] });
      }
      if (req.method === "POST" && path.endsWith(":countTokens")) return json({ totalTokens: 10 });
      if (req.method === "POST" && /:(stream)?[gG]enerateContent$/.test(path)) {
        const { seen, reply } = geminiRequest(body, path.endsWith(":streamGenerateContent"));
        requests.push(seen);
        await heldBack(seen);
        if (path.endsWith(":streamGenerateContent")) {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
          res.end(`data: ${JSON.stringify(geminiResponse(reply))}\n\n`);
          return;
        }
        // Side requests (routing, next-speaker checks) ask for JSON: one object that satisfies each.
        const verdict = { complexity_reasoning: "fake", complexity_score: 10, reasoning: "fake", next_speaker: "user" };
        return json(geminiResponse(seen.main ? reply : { kind: "text", text: JSON.stringify(verdict) }));
      }
      if (req.method === "POST" && path.endsWith("/chat/completions")) {
        const { seen, reply } = chatRequest(body);
        requests.push(seen);
        await heldBack(seen);
        return chatStream(res, reply);
      }
      const isAnthropic = req.method === "POST" && path.endsWith("/messages");
      const isOpenai = req.method === "POST" && path.endsWith("/responses");
      if (!isAnthropic && !isOpenai) return json({});
      const { seen, reply } = isAnthropic ? anthropicRequest(body, req.headers) : openaiRequest(body);
      requests.push(seen);
      await heldBack(seen);
      if (isAnthropic) {
        if (body.stream) anthropicStream(res, body.model ?? "claude-fake", reply);
        else
          json({
            id: `msg_fake_${++counter}`,
            type: "message",
            role: "assistant",
            model: body.model,
            content: [{ type: "text", text: reply.kind === "text" ? reply.text : "" }],
            stop_reason: "end_turn",
            usage: { input_tokens: 10, output_tokens: 5 },
          });
      } else openaiStream(res, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    main: () => requests.filter((r) => r.main),
    hold(predicate) {
      const hold = { predicate, released: false, waiting: [] as Array<() => void> };
      holds.push(hold);
      return {
        release() {
          hold.released = true;
          for (const resume of hold.waiting.splice(0)) resume();
        },
        held: () => hold.waiting.length,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const hold of holds) {
          hold.released = true;
          for (const resume of hold.waiting.splice(0)) resume();
        }
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
