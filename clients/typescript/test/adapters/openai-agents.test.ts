// The OpenAI Agents SDK adapter, the agent run by the SDK's own Runner on a scripted Model: no model service.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Agent, run, setTracingDisabled } from "@openai/agents";
import { z } from "zod";

import { gatedTool } from "@actiongate/client/openai-agents";

import { AgentsScriptedModel } from "../../examples/scripted-models.js";
import { answer, useFakeNode } from "../fake-node.js";
import { EMAIL, REVIEW, approvingNode, clientOf, proposals } from "./support.js";

setTracingDisabled(true);

describe("openai-agents gatedTool", () => {
  const fake = useFakeNode();

  function agent(model: AgentsScriptedModel, onProposed?: (r: { status: string; review_url?: string }) => void) {
    const sendEmail = gatedTool({
      client: clientOf(fake()), name: "send_email", description: "Send an email",
      parameters: z.object({ to: z.string(), body: z.string() }),
      taskId: "T-1", provider: "smtp", operation: "send_email", toolSchemaHash: "sha256:demo-send-email-v1",
      summary: (input) => `Email ${input.to}: ${input.body}`, ...(onProposed ? { onProposed } : {}),
    });
    return new Agent({ name: "assistant", instructions: "Send what you are asked to.", model, tools: [sendEmail] });
  }

  it("should propose the agent's call and return the settled receipt as the tool's output", async () => {
    approvingNode(fake());
    const model = new AgentsScriptedModel({ callId: "call_1", tool: "send_email", args: EMAIL }, "Sent.");
    const seen: string[] = [];
    const result = await run(agent(model, (r) => seen.push(`${r.status} ${r.review_url}`)), "Tell ops the disk is full");
    const id = clientOf(fake()).callId("send_email", { frameworkCallId: "call_1" });
    const [sent] = proposals(fake());
    assert.equal(sent!.tool_call_id, id);
    assert.deepEqual(sent!.input, EMAIL);
    assert.equal(sent!.summary, "Email ops@example.com: disk is full");
    assert.deepEqual(seen, [`WAITING_APPROVAL ${REVIEW}${id}`]);
    assert.equal(result.interruptions?.length ?? 0, 0, "no in-process approval: actiongate's review page decides");
    assert.equal(result.finalOutput, "Sent.");
    const output = result.newItems.find((item) => item.type === "tool_call_output_item");
    assert.ok(output, "the tool ran");
    assert.equal((output.output as { status: string }).status, "SUCCEEDED");
    assert.match(JSON.stringify(model.requests[1]!.input), /SUCCEEDED/, "the model read the receipt");
  });

  it("should tell the model a rejected proposal's reason code, and act on nothing", async () => {
    fake().on((r) => ({ status: 200, json: answer("T-1", JSON.parse(r.body).tool_call_id, "REJECTED",
      { reason_code: "PROFILE_NOT_GRANTED" }) }));
    const model = new AgentsScriptedModel({ callId: "call_2", tool: "send_email", args: EMAIL });
    await run(agent(model), "go");
    assert.equal(proposals(fake()).length, 1);
    assert.equal(fake().requests.length, 1, "no wait after a refusal");
    assert.match(JSON.stringify(model.requests[1]!.input), /rejected: PROFILE_NOT_GRANTED/);
  });
});
