import type { ActionGateClient } from "../client.js";
import type { Proposal, Receipt } from "../types.js";

/** How a framework's tool call becomes an actiongate proposal; the same options for every adapter. */
export interface GateOptions<Input> {
  client: ActionGateClient;
  /** The actiongate task the calls belong to (a `task:` record of the policy topic owned by the host's org). */
  taskId: string | ((input: Input) => string);
  /** The provider (connector) and operation that run the effect, e.g. `smtp`, `send_email`. */
  provider: string;
  operation: string;
  /** The tool's name in actiongate's policy (default: the framework tool's name). */
  toolName?: string;
  /** The `schema_hash` of the tool's `ToolDescriptor` on the policy topic. */
  toolSchemaHash: string;
  /** What the reviewer reads, at most 280 characters: write it from the input, e.g. "Email ops@... that ...". */
  summary: (input: Input) => string;
  /** The proposal's input (default: the tool's arguments as the model gave them). */
  toInput?: (input: Input) => Record<string, unknown>;
  /** Extra proposal members (idempotency_key, business_operation_id, origin, task_version). */
  extra?: (input: Input) => Pick<Proposal, "idempotency_key" | "business_operation_id" | "origin" | "task_version">;
  /** How long one tool call waits for the settled receipt (a human decides meanwhile). Default 10 minutes. */
  timeoutMs?: number;
  /** Called with the first answer: `WAITING_APPROVAL` carries the `review_url` to show where reviewers are. */
  onProposed?: (receipt: Receipt) => void | Promise<void>;
}

/**
 * Proposes the call and waits for its settled receipt, which is the tool's result (redacted: never an input body).
 * The call id is derived from the framework's own call id (or, without one, from the tool and its arguments), so the
 * framework running the same call again, after a retry or a restart from its checkpoint, finds the same action.
 * Rejected, IdentityConflict, InvalidProposal, NotOwned, Timeout, Unauthorized and Unavailable are thrown: each
 * framework turns a thrown error into a tool error the model sees.
 */
export async function runGated<Input>(options: GateOptions<Input>, toolName: string, input: Input,
  frameworkCallId: string | undefined, signal?: AbortSignal): Promise<Receipt> {
  const name = options.toolName ?? toolName;
  const proposalInput = options.toInput ? options.toInput(input) : input as unknown as Record<string, unknown>;
  const proposal: Proposal = {
    task_id: typeof options.taskId === "function" ? options.taskId(input) : options.taskId,
    tool_call_id: options.client.callId(name, frameworkCallId === undefined ? { input: proposalInput }
      : { frameworkCallId }),
    provider: options.provider,
    operation: options.operation,
    tool_name: name,
    tool_schema_hash: options.toolSchemaHash,
    input: proposalInput,
    summary: options.summary(input),
    ...options.extra?.(input),
  };
  return options.client.proposeAndWait(proposal, {
    timeoutMs: options.timeoutMs, onProposed: options.onProposed, ...(signal ? { signal } : {}),
  });
}
