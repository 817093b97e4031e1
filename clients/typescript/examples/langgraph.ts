// A LangGraph.js graph (model node, LangGraph's ToolNode, a checkpointer) whose send_email tool runs through
// actiongate: the tool proposes, a human approves on actiongate's review page (the URL is printed), and the tool
// message carries the settled receipt. LangChain's FakeStreamingChatModel stands in for the model service.
import type { ToolMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

import type { Receipt } from "@actiongate/client";
import { gatedTool } from "@actiongate/client/langgraph";

import { langGraphModel } from "./scripted-models.js";
import { client, printFinal, printProposed, settings } from "./settings.js";

const sendEmail = gatedTool<{ to: string; subject: string; body: string }>({
  client, name: "send_email", description: "Send an email to one recipient",
  schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  taskId: settings.task, provider: settings.provider, operation: "send_email", toolSchemaHash: settings.schema,
  summary: ({ to, body }) => `Email ${to}: ${body}`,
  onProposed: printProposed,
});
const model = langGraphModel({ callId: settings.call, tool: "send_email",
  args: { to: "ops@example.com", subject: "From LangGraph", body: "disk is full" } }).bindTools([sendEmail]);

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addNode("tools", new ToolNode([sendEmail]))
  .addEdge(START, "agent").addEdge("agent", "tools").addEdge("tools", END)
  .compile({ checkpointer: new MemorySaver() });

const result = await graph.invoke({ messages: [{ role: "user", content: "Tell ops the disk is full" }] },
  { configurable: { thread_id: `thread-${settings.call}` } });
const message = result.messages.at(-1) as ToolMessage;
if (message.status === "error") {
  throw new Error(String(message.content));
}
printFinal(message.artifact as Receipt);
