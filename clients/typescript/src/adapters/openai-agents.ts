/**
 * The OpenAI Agents SDK for JavaScript (`@openai/agents`): a consequential tool whose execution is proposed to
 * actiongate. The tool's result is the settled receipt; the human review happens on actiongate's review page, bound to
 * the exact action, so the SDK's in-process approval (`needsApproval`, interruptions in `RunState`) is not used for it.
 */
import { tool, type FunctionTool, type ToolExecuteArgument, type ToolInputParameters } from "@openai/agents";

import type { Receipt } from "../types.js";
import { runGated, type GateOptions } from "./gate.js";

export type { GateOptions } from "./gate.js";

export interface GatedToolOptions<P extends ToolInputParameters> extends GateOptions<ToolExecuteArgument<P>> {
  /** The tool's name for the model (also actiongate's `tool_name` unless `toolName` is given). */
  name: string;
  description: string;
  /** A Zod object or a strict JSON schema, as for the SDK's `tool()`. */
  parameters: P;
}

/**
 * A function tool for an `Agent`: its execution proposes the call (call id derived from the SDK's `callId`) and
 * returns the settled receipt once a human approved it on actiongate's review page and the executor ran it once.
 */
export function gatedTool<P extends ToolInputParameters>(options: GatedToolOptions<P>)
  : FunctionTool<unknown, P, Receipt> {
  const definition = {
    name: options.name,
    description: options.description,
    parameters: options.parameters,
    strict: true,
    needsApproval: false, // the approval is actiongate's, signed and bound to the frozen action
    execute: (input: ToolExecuteArgument<P>, _context: unknown,
      details?: { toolCall?: { callId?: string }; signal?: AbortSignal }) =>
      runGated(options, options.name, input, details?.toolCall?.callId, details?.signal),
  };
  return tool(definition as Parameters<typeof tool>[0]) as unknown as FunctionTool<unknown, P, Receipt>;
}
