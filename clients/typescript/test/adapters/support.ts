// What the adapter tests share: a stand-in node that holds one action for approval and then settles it.
import { ActionGateClient } from "@actiongate/client";

import { FakeNode, answer, state } from "../fake-node.js";

export const REVIEW = "http://127.0.0.1:8081/review/T-1/";

/** Answers a proposal WAITING_APPROVAL with a review URL, and its long poll SUCCEEDED (one attempt, msg-1). */
export function approvingNode(node: FakeNode): FakeNode {
  return node.on((request) => {
    if (request.method === "POST") {
      const call = JSON.parse(request.body).tool_call_id as string;
      return { status: 200, json: answer("T-1", call, "WAITING_APPROVAL", { review_url: REVIEW + call }) };
    }
    const call = request.path.split("/").at(-1)!;
    return { status: 200, json: state("T-1", call, "SUCCEEDED", { provider_receipt_id: "msg-1",
      attempts: [{ attempt: 1, status: "SUCCEEDED", dispatched: true }] }) };
  });
}

export function clientOf(node: FakeNode): ActionGateClient {
  return new ActionGateClient({ url: node.url, token: "host-token-test-0001", host: "test-host", retryDelayMs: 1 });
}

/** The proposals the node received, parsed. */
export function proposals(node: FakeNode): Array<Record<string, unknown>> {
  return node.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

export const EMAIL = { to: "ops@example.com", body: "disk is full" };
