/** A receipt's status (docs/contract.md section 4); `PROPOSED`: published, no receipt yet. */
export type Status =
  | "PROPOSED" | "WAITING_APPROVAL" | "APPROVED" | "DISPATCHING" | "SUCCEEDED" | "FAILED" | "REJECTED" | "DENIED"
  | "EXPIRED" | "CANCELLED" | "UNKNOWN" | "NOT_APPLIED";

/** Nothing further happens to an action in these states on its own. */
export const TERMINAL: ReadonlySet<Status> = new Set<Status>(
  ["SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED", "CANCELLED", "NOT_APPLIED"]);

/** A staged attachment's metadata (the bytes live in the object store: docs/tool-hosts.md, "Private attachments"). */
export interface Attachment {
  object_key: string;
  sha256: string;
  size_bytes: number;
  content_type: string;
  owner_invocation_id: string;
}

/**
 * One tool call, as `POST /v1/proposals` takes it (docs/contract.md section 7). `org_id`, `principal_id` and
 * `profile_id` come from the token, never from here; `input_digest` and the action digest are computed by the node.
 */
export interface Proposal {
  task_id: string;
  tool_call_id: string;
  provider: string;
  operation: string;
  tool_name: string;
  tool_schema_hash: string;
  /** The tool input, a JSON object. Never echoed back by the node. */
  input: Record<string, unknown>;
  /** What a reviewer reads: 1 to 280 UTF-16 code units (`String.length`; an emoji counts two). */
  summary: string;
  idempotency_key?: string;
  business_operation_id?: string;
  /** Default: the task's version on the policy topic. */
  task_version?: number;
  /** Optional `sha256:<hex>` of the RFC 8785 form of `input`: a different one is refused (`DIGEST_MISMATCH`). */
  input_digest?: string;
  origin?: { conversation_id: string; turn_id: string };
  attachments?: Attachment[];
  claimed_annotations?: Record<string, string>;
}

/** One settled attempt, as `GET /v1/actions/...` lists them. */
export interface AttemptSummary {
  attempt: number;
  status: string;
  dispatched: boolean;
  http_status?: number | null;
  error_code?: string | null;
  started_at?: string | null;
  finished_at?: string | null;
}

/**
 * An action's redacted state: the answer of `POST /v1/proposals` or of `GET /v1/actions/...` (never an input body).
 * `attempts` is the number of attempts in a proposal's answer and their list in an action's state
 * (see {@link attemptCount}); `review_url` is in a proposal's `WAITING_APPROVAL` answer.
 */
export interface Receipt {
  task_id: string;
  tool_call_id: string;
  status: Status;
  reason_code?: string | null;
  reason?: string | null;
  review_url?: string;
  input_digest?: string | null;
  action_digest?: string | null;
  action_url?: string;
  decision_id?: string | null;
  provider_receipt_id?: string | null;
  attempts?: number | AttemptSummary[];
  updated_at?: string;
  org_id?: string | null;
  tool_name?: string;
  provider?: string;
  operation?: string;
  resolved_by?: "GATE" | "RECONCILER" | "OWNER" | null;
  phase?: string;
  summary?: string;
  next_timer_at?: string;
}

/** How many attempts a receipt reports, whichever form it carries them in. */
export function attemptCount(receipt: Receipt): number {
  const attempts = receipt.attempts;
  return Array.isArray(attempts) ? attempts.length : attempts ?? 0;
}
