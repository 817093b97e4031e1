/**
 * LangGraph.js (`@langchain/langgraph`): a LangChain tool for LangGraph's `ToolNode` (or any agent built on it) whose
 * call is proposed to actiongate; the tool message carries the settled receipt (as JSON, and as the message's
 * artifact). The call id is derived from the tool call's id, which LangGraph keeps in its checkpointed state: a graph
 * resumed after a crash runs the same tool call again and finds the same action, never a second one. The approval is
 * actiongate's, on its review page; no `interrupt()` is needed to hold it.
 */
import { tool, type DynamicStructuredTool } from "@langchain/core/tools";
import type { ToolRunnableConfig } from "@langchain/core/tools";

import type { Receipt } from "../types.js";
import { runGated, type GateOptions } from "./gate.js";

export type { GateOptions } from "./gate.js";

export interface GatedToolOptions<Input> extends GateOptions<Input> {
  /** The tool's name for the model (also actiongate's `tool_name` unless `toolName` is given). */
  name: string;
  description: string;
  /** A Zod object schema or a JSON schema, as for LangChain's `tool()`. */
  schema: Parameters<typeof tool>[1]["schema"];
}

/** A structured tool whose result is `[JSON of the settled receipt, the receipt]` (`content_and_artifact`). */
export function gatedTool<Input = Record<string, unknown>>(options: GatedToolOptions<Input>): DynamicStructuredTool {
  const run = async (input: Input, config?: ToolRunnableConfig): Promise<[string, Receipt]> => {
    const receipt = await runGated(options, options.name, input, config?.toolCall?.id, config?.signal);
    return [JSON.stringify(receipt), receipt];
  };
  return tool(run as never, {
    name: options.name,
    description: options.description,
    schema: options.schema,
    responseFormat: "content_and_artifact",
  }) as unknown as DynamicStructuredTool;
}
