// A Vercel AI SDK generateText loop whose send_email tool runs through actiongate: the tool proposes, a human
// approves on actiongate's review page (the URL is printed), and the tool result the model reads is the settled
// receipt. The SDK's MockLanguageModelV3 stands in for the model service; pass a real model instead.
import { generateText, stepCountIs } from "ai";
import { z } from "zod";

import type { Receipt } from "@actiongate/client";
import { gatedTool } from "@actiongate/client/ai-sdk";

import { aiSdkModel } from "./scripted-models.js";
import { client, printFinal, printProposed, settings } from "./settings.js";

const sendEmail = gatedTool({
  client, name: "send_email", description: "Send an email to one recipient",
  inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  taskId: settings.task, provider: settings.provider, operation: "send_email", toolSchemaHash: settings.schema,
  summary: ({ to, body }) => `Email ${to}: ${body}`,
  onProposed: printProposed,
});

const result = await generateText({
  model: aiSdkModel({ callId: settings.call, tool: "send_email",
    args: { to: "ops@example.com", subject: "From the AI SDK", body: "disk is full" } }, "I emailed ops."),
  tools: { send_email: sendEmail },
  stopWhen: stepCountIs(3),
  prompt: "Tell ops the disk is full",
});
const failure = result.steps.flatMap((step) => step.content).find((part) => part.type === "tool-error");
if (failure) {
  throw failure.error;
}
console.log("agent", result.text);
printFinal(result.steps[0]!.toolResults[0]!.output as Receipt);
