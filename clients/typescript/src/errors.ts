import type { Receipt } from "./types.js";

/** The base of every error this package throws: `status` is the HTTP status when there was an answer. */
export class ActionGateError extends Error {
  readonly status: number | undefined;
  readonly body: unknown;

  constructor(message: string, options: { status?: number; body?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.body = options.body;
  }
}

/**
 * The ids already name another action (409): other data under the same `task_id`/`tool_call_id`. Nothing was
 * proposed and the held action is untouched. Both are action digests.
 */
export class IdentityConflict extends ActionGateError {
  readonly taskId: string;
  readonly toolCallId: string;
  readonly existingDigest: string;
  readonly offeredDigest: string;

  constructor(taskId: string, toolCallId: string, existingDigest: string, offeredDigest: string, body?: unknown) {
    super(`identity conflict on ${taskId}/${toolCallId}: the ids hold ${existingDigest}, this call offered `
      + `${offeredDigest}; nothing was proposed`, { status: 409, body });
    this.taskId = taskId;
    this.toolCallId = toolCallId;
    this.existingDigest = existingDigest;
    this.offeredDigest = offeredDigest;
  }
}

/** The action is `REJECTED` (a policy check at admission or at a recheck): `reasonCode` says which. */
export class Rejected extends ActionGateError {
  readonly reasonCode: string;
  readonly receipt: Receipt;

  constructor(receipt: Receipt) {
    const reason = receipt.reason_code ?? "UNKNOWN_REASON";
    super(`${receipt.task_id}/${receipt.tool_call_id} was rejected: ${reason}`
      + (receipt.reason ? ` (${receipt.reason})` : ""), { status: 200, body: receipt });
    this.reasonCode = reason;
    this.receipt = receipt;
  }
}

/**
 * The proposal is malformed: refused by the node (400, nothing published) or found so before sending.
 * `reasonCode` is one of the node's (`INVALID_ID`, `MISSING_MEMBER`, `INVALID_MEMBER`, `INPUT_NOT_OBJECT`,
 * `UNKNOWN_MEMBER`, `DIGEST_MISMATCH`, `BODY_TOO_LARGE`, ...); `member` names the offending member when known.
 */
export class InvalidProposal extends ActionGateError {
  readonly reasonCode: string;
  readonly member: string | undefined;
  readonly computedDigest: string | undefined;
  readonly offeredDigest: string | undefined;

  constructor(reasonCode: string, message: string,
    details: { member?: string; computedDigest?: string; offeredDigest?: string; status?: number; body?: unknown } = {}) {
    super(`invalid proposal: ${reasonCode}: ${message}`, { status: details.status, body: details.body });
    this.reasonCode = reasonCode;
    this.member = details.member;
    this.computedDigest = details.computedDigest;
    this.offeredDigest = details.offeredDigest;
  }
}

/** The task is not owned by this tool host's org, or not known to the policy topic yet (403): nothing published. */
export class NotOwned extends ActionGateError {
  readonly taskId: string;

  constructor(taskId: string, message: string, body?: unknown) {
    super(`task ${taskId} is not owned by this tool host's org: ${message}`, { status: 403, body });
    this.taskId = taskId;
  }
}

/** No action under these ids is visible to this credential (404: unknown, or another org's). */
export class NotFound extends ActionGateError {
  constructor(taskId: string, toolCallId: string) {
    super(`no action ${taskId}/${toolCallId} is visible to this credential`, { status: 404 });
  }
}

/**
 * The wait ran out before the action reached the state waited for. `receipt` is the last state seen (undefined when
 * the action never became visible). Nothing is lost: wait again with the same ids, or propose the same call again.
 */
export class Timeout extends ActionGateError {
  readonly receipt: Receipt | undefined;

  constructor(taskId: string, toolCallId: string, waitedMs: number, receipt: Receipt | undefined) {
    super(`${taskId}/${toolCallId} is still ${receipt?.status ?? "not visible"} after ${Math.round(waitedMs)} ms`
      + (receipt?.review_url ? `; review it at ${receipt.review_url}` : ""), { body: receipt });
    this.receipt = receipt;
  }
}

/** The credential was refused (401): no token, an unknown one, or a node token where a tool host token is needed. */
export class Unauthorized extends ActionGateError {
}

/**
 * The node did not answer usefully after every retry (connection refused or reset, 5xx, 408): the last cause is
 * `cause`. Retrying later with the same ids is safe: it can only find the same action.
 */
export class Unavailable extends ActionGateError {
}
