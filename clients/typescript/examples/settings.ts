// What every example reads from the environment, and how each prints its progress. Against `./actiongate dev` only
// ACTIONGATE_TOKEN is needed (dev prints it); the defaults are dev's demo task and email tool.
import { randomUUID } from "node:crypto";

import { ActionGateClient, type Receipt } from "@actiongate/client";

export const settings = {
  /** The task the calls belong to (dev's demo task is T-1). */
  task: process.env.TASK_ID ?? "T-1",
  /** The framework's call id the scripted model emits (or, for propose-email, the tool_call_id itself). */
  call: process.env.TOOL_CALL_ID ?? `ex-${randomUUID().slice(0, 12)}`,
  provider: process.env.PROVIDER ?? "smtp",
  schema: process.env.TOOL_SCHEMA_HASH ?? "sha256:demo-send-email-v1",
};

/** ACTIONGATE_URL (default http://127.0.0.1:8080) and ACTIONGATE_TOKEN, a tool host token. */
export const client = new ActionGateClient();

/** Prints the first answer: a reviewer approves the digest on the review page (or with `actiongate decide`). */
export function printProposed(receipt: Receipt): void {
  console.log("state", receipt.status, "review", receipt.review_url ?? "-", "digest", receipt.action_digest);
}

/** Prints the settled receipt and exits 0 when it SUCCEEDED. */
export function printFinal(receipt: Receipt): never {
  console.log("final", receipt.status, receipt.reason_code ?? "", receipt.provider_receipt_id ?? "");
  process.exit(receipt.status === "SUCCEEDED" ? 0 : 1);
}
