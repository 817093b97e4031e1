// An in-process stand-in for a node's HTTP API, for the tests that need no real node: it records every request and
// answers from a script, so retries, refusals and long polls can be played exactly.
import { after, before, beforeEach } from "node:test";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

/** An answer: a status and a JSON body, or "reset" to drop the connection without answering. */
export type Scripted = { status: number; json?: unknown; delayMs?: number } | "reset";
export type Handler = (request: Recorded) => Scripted;

export class FakeNode {
  readonly requests: Recorded[] = [];
  private readonly server: Server;
  private handler: Handler = () => ({ status: 500, json: { error: "unscripted", message: "no answer scripted" } });

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<FakeNode> {
    let node: FakeNode | undefined;
    const server = createServer((req, res) => node!.answer(req, res));
    node = new FakeNode(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers with `handler` from now on. */
  on(handler: Handler): this {
    this.handler = handler;
    return this;
  }

  /** Answers the scripted answers in order, the last one again once they run out. */
  script(...answers: Scripted[]): this {
    let next = 0;
    return this.on(() => answers[Math.min(next++, answers.length - 1)]!);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const recorded: Recorded = { method: req.method ?? "", path: url.pathname, query: url.searchParams,
        headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      this.requests.push(recorded);
      const scripted = this.handler(recorded);
      if (scripted === "reset") {
        req.socket.destroy();
        return;
      }
      const send = (): void => {
        res.writeHead(scripted.status, { "Content-Type": "application/json" });
        res.end(scripted.json === undefined ? "" : JSON.stringify(scripted.json));
      };
      if (scripted.delayMs) {
        setTimeout(send, scripted.delayMs);
      } else {
        send();
      }
    });
  }
}

export const DIGEST_A = "sha256:" + "a".repeat(64);
export const DIGEST_B = "sha256:" + "b".repeat(64);

/** A proposal's answer as the node gives it. */
export function answer(taskId: string, toolCallId: string, status: string, extra: Record<string, unknown> = {})
  : Record<string, unknown> {
  return { task_id: taskId, tool_call_id: toolCallId, status, input_digest: DIGEST_A, action_digest: DIGEST_B,
    action_url: `/v1/actions/${taskId}/${toolCallId}`, ...extra };
}

/** An action's state as GET /v1/actions gives it. */
export function state(taskId: string, toolCallId: string, status: string, extra: Record<string, unknown> = {})
  : Record<string, unknown> {
  return { task_id: taskId, tool_call_id: toolCallId, status, tool_name: "send_email", provider: "smtp",
    operation: "send_email", attempts: [], updated_at: "2026-01-01T00:00:00Z", action_digest: DIGEST_B, ...extra };
}

/** A stand-in node for the tests of the enclosing suite, its requests forgotten before each test. */
export function useFakeNode(): () => FakeNode {
  let node: FakeNode | undefined;
  before(async () => {
    node = await FakeNode.start();
  });
  after(() => node?.close());
  beforeEach(() => {
    node!.requests.length = 0;
  });
  return () => node!;
}
