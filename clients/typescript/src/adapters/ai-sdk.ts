/**
 * The Vercel AI SDK (`ai`): a tool whose `execute` proposes the call to actiongate and returns the settled receipt.
 * The approval is actiongate's (signed, on its review page, bound to the frozen action), not the SDK's
 * `needsApproval` tool-approval parts.
 */
import { tool, type FlexibleSchema, type Tool } from "ai";

import type { Receipt } from "../types.js";
import { runGated, type GateOptions } from "./gate.js";

export type { GateOptions } from "./gate.js";

export interface GatedToolOptions<Input> extends GateOptions<Input> {
  /** The tool's key in the `tools` record (also actiongate's `tool_name` unless `toolName` is given). */
  name: string;
  description: string;
  /** A Zod schema or `jsonSchema(...)`, as for the SDK's `tool()`. */
  inputSchema: FlexibleSchema<Input>;
}

/** A tool for `generateText`/`streamText`/`ToolLoopAgent`; the call id is derived from the SDK's `toolCallId`. */
export function gatedTool<Input>(options: GatedToolOptions<Input>): Tool<Input, Receipt> {
  return tool<Input, Receipt>({
    description: options.description,
    inputSchema: options.inputSchema,
    execute: (input, { toolCallId, abortSignal }) =>
      runGated(options, options.name, input, toolCallId, abortSignal),
  });
}
