// The LangGraph.js adapter in a graph of LangGraph's own (StateGraph, ToolNode, MemorySaver) on LangChain's fake
// chat model: no model service.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import type { ToolMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

import { gatedTool } from "@actiongate/client/langgraph";
import type { Receipt } from "@actiongate/client";

import { langGraphModel } from "../../examples/scripted-models.js";
import { useFakeNode } from "../fake-node.js";
import { EMAIL, REVIEW, approvingNode, clientOf, proposals } from "./support.js";

describe("langgraph gatedTool", () => {
  const fake = useFakeNode();

  function graph(onProposed?: (r: Receipt) => void) {
    const sendEmail = gatedTool<{ to: string; body: string }>({
      client: clientOf(fake()), name: "send_email", description: "Send an email",
      schema: z.object({ to: z.string(), body: z.string() }),
      taskId: "T-1", provider: "smtp", operation: "send_email", toolSchemaHash: "sha256:demo-send-email-v1",
      summary: (input) => `Email ${input.to}: ${input.body}`, ...(onProposed ? { onProposed } : {}),
    });
    const model = langGraphModel({ callId: "lc-call-1", tool: "send_email", args: EMAIL });
    return new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.bindTools([sendEmail]).invoke(state.messages)] }))
      .addNode("tools", new ToolNode([sendEmail]))
      .addEdge(START, "agent").addEdge("agent", "tools").addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
  }

  it("should propose the graph's tool call and put the settled receipt in the tool message", async () => {
    approvingNode(fake());
    const seen: string[] = [];
    const result = await graph((r) => seen.push(`${r.status} ${r.review_url}`)).invoke(
      { messages: [{ role: "user", content: "Tell ops the disk is full" }] },
      { configurable: { thread_id: "thread-1" } });
    const id = clientOf(fake()).callId("send_email", { frameworkCallId: "lc-call-1" });
    const [sent] = proposals(fake());
    assert.equal(sent!.tool_call_id, id);
    assert.deepEqual(sent!.input, EMAIL);
    assert.deepEqual(seen, [`WAITING_APPROVAL ${REVIEW}${id}`]);
    const message = result.messages.at(-1) as ToolMessage;
    assert.equal(message.tool_call_id, "lc-call-1");
    assert.equal(JSON.parse(message.content as string).status, "SUCCEEDED");
    assert.equal((message.artifact as Receipt).provider_receipt_id, "msg-1");
  });

  it("should propose the same action again when the graph reruns the same checkpointed call", async () => {
    approvingNode(fake());
    const app = graph();
    const config = { configurable: { thread_id: "thread-2" } };
    await app.invoke({ messages: [{ role: "user", content: "go" }] }, config);
    // a rerun from the checkpoint before the tools node (as after a crash mid-call) carries the same tool call id
    const history = [];
    for await (const snapshot of app.getStateHistory(config)) {
      history.push(snapshot);
    }
    const beforeTools = history.find((s) => s.next.includes("tools"))!;
    await app.invoke(null, beforeTools.config);
    const ids = proposals(fake()).map((p) => p.tool_call_id);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1], "a redelivery of the same action, which actiongate runs at most once");
  });
});
