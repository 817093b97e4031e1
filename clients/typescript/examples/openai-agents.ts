// An OpenAI Agents SDK agent whose send_email tool runs through actiongate: the agent proposes, a human approves on
// actiongate's review page (the URL is printed), and the tool's output is the settled receipt. A scripted Model
// stands in for the model service; give the Agent a real model name instead and nothing else changes.
import { Agent, run, setTracingDisabled } from "@openai/agents";
import { z } from "zod";

import { gatedTool } from "@actiongate/client/openai-agents";

import { AgentsScriptedModel } from "./scripted-models.js";
import { client, printFinal, printProposed, settings } from "./settings.js";

setTracingDisabled(true); // no trace export: nothing leaves this machine but the calls to actiongate

const sendEmail = gatedTool({
  client, name: "send_email", description: "Send an email to one recipient",
  parameters: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  taskId: settings.task, provider: settings.provider, operation: "send_email", toolSchemaHash: settings.schema,
  summary: ({ to, body }) => `Email ${to}: ${body}`,
  onProposed: printProposed,
});

const model = new AgentsScriptedModel({ callId: settings.call, tool: "send_email",
  args: { to: "ops@example.com", subject: "From the agent", body: "disk is full" } }, "I emailed ops.");
const agent = new Agent({ name: "ops-assistant", instructions: "Email ops when asked.", model, tools: [sendEmail] });

const result = await run(agent, "Tell ops the disk is full");
const output = result.newItems.find((item) => item.type === "tool_call_output_item");
console.log("agent", result.finalOutput);
printFinal(output?.output as Parameters<typeof printFinal>[0]);
