// The Vercel AI SDK adapter with the SDK's own mock model (ai/test): no model service.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { generateText, stepCountIs } from "ai";
import type { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

import { gatedTool } from "@actiongate/client/ai-sdk";

import { aiSdkModel } from "../../examples/scripted-models.js";
import { DIGEST_A, DIGEST_B, useFakeNode } from "../fake-node.js";
import { EMAIL, REVIEW, approvingNode, clientOf, proposals } from "./support.js";

/** A model that calls send_email once, then answers in text. */
function model(): MockLanguageModelV3 {
  return aiSdkModel({ callId: "call-1", tool: "send_email", args: EMAIL }, "The email went out.");
}

describe("ai-sdk gatedTool", () => {
  const fake = useFakeNode();

  function sendEmail(onProposed?: (r: { status: string; review_url?: string }) => void) {
    return gatedTool({
      client: clientOf(fake()), name: "send_email", description: "Send an email",
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      taskId: "T-1", provider: "smtp", operation: "send_email", toolSchemaHash: "sha256:demo-send-email-v1",
      summary: (input) => `Email ${input.to}: ${input.body}`, ...(onProposed ? { onProposed } : {}),
    });
  }

  it("should propose the model's call and give the model the settled receipt", async () => {
    approvingNode(fake());
    const seen: string[] = [];
    const mock = model();
    const result = await generateText({
      model: mock, prompt: "Tell ops the disk is full", stopWhen: stepCountIs(3),
      tools: { send_email: sendEmail((r) => seen.push(`${r.status} ${r.review_url}`)) },
    });
    const [sent] = proposals(fake());
    const id = clientOf(fake()).callId("send_email", { frameworkCallId: "call-1" });
    assert.deepEqual(sent, { task_id: "T-1", tool_call_id: id, provider: "smtp", operation: "send_email",
      tool_name: "send_email", tool_schema_hash: "sha256:demo-send-email-v1", input: EMAIL,
      summary: "Email ops@example.com: disk is full" });
    assert.deepEqual(seen, [`WAITING_APPROVAL ${REVIEW}${id}`]);
    const output = result.steps[0]!.toolResults[0]!.output as { status: string; provider_receipt_id: string };
    assert.equal(output.status, "SUCCEEDED");
    assert.equal(output.provider_receipt_id, "msg-1");
    assert.equal(result.text, "The email went out.");
    assert.match(JSON.stringify(mock.doGenerateCalls[1]!.prompt), /SUCCEEDED/, "the model read the receipt");
  });

  it("should show the model an identity conflict as a tool error, never a second action", async () => {
    fake().script({ status: 409, json: { error: "identity_conflict", message: "other data", task_id: "T-1",
      tool_call_id: "x", existing_digest: DIGEST_A, offered_digest: DIGEST_B } });
    const mock = model();
    const result = await generateText({ model: mock, prompt: "go", stopWhen: stepCountIs(3),
      tools: { send_email: sendEmail() } });
    const failure = result.steps[0]!.content.find((part) => part.type === "tool-error");
    assert.ok(failure, JSON.stringify(result.steps[0]!.content));
    assert.equal((failure.error as Error).name, "IdentityConflict");
    assert.equal(proposals(fake()).length, 1);
    assert.match(JSON.stringify(mock.doGenerateCalls[1]!.prompt), /identity conflict/);
  });
});
