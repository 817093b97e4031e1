// The client against a scripted stand-in node: answers, refusals, retries and long polls, played exactly.
import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";

import {
  ActionGateClient, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected, Timeout, Unauthorized,
  SUMMARY_MAX_CHARS, Unavailable, attemptCount, type Proposal,
} from "@actiongate/client";

import { DIGEST_A, DIGEST_B, FakeNode, answer, state, useFakeNode } from "./fake-node.js";

const TOKEN = "host-token-test-0001";

function proposal(call = "c-1", extra: Partial<Proposal> = {}): Proposal {
  return {
    task_id: "T-1", tool_call_id: call, provider: "smtp", operation: "send_email", tool_name: "send_email",
    tool_schema_hash: "sha256:demo-send-email-v1", input: { to: "ops@example.com", body: "disk is full" },
    summary: "Email ops@example.com that the disk is full", ...extra,
  };
}

describe("ActionGateClient against a scripted node", () => {
  const fake = useFakeNode();
  let node: FakeNode;
  let client: ActionGateClient;

  beforeEach(() => {
    node = fake();
    client = new ActionGateClient({ url: node.url + "/", token: TOKEN, retryDelayMs: 5, pollSeconds: 1 });
  });

  it("should post the proposal with the token and answer the first receipt", async () => {
    node.script({ status: 200, json: answer("T-1", "c-1", "WAITING_APPROVAL", { review_url: "http://r/review/T-1/c-1" }) });
    const receipt = await client.propose(proposal());
    assert.equal(receipt.status, "WAITING_APPROVAL");
    assert.equal(receipt.review_url, "http://r/review/T-1/c-1");
    const [request] = node.requests;
    assert.equal(request!.method, "POST");
    assert.equal(request!.path, "/v1/proposals");
    assert.equal(request!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(request!.headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(request!.body), proposal());
  });

  it("should retry a 503 and a dropped connection with the very same body", async () => {
    node.script({ status: 503, json: { error: "busy", message: "retry" } }, "reset",
      { status: 200, json: answer("T-1", "c-1", "WAITING_APPROVAL") });
    const receipt = await client.propose(proposal());
    assert.equal(receipt.status, "WAITING_APPROVAL");
    assert.equal(node.requests.length, 3);
    assert.deepEqual(new Set(node.requests.map((r) => r.body)).size, 1, "every try sends the same ids and data");
  });

  it("should give up with Unavailable after its attempts, naming the last cause", async () => {
    node.script({ status: 502, json: { error: "bad_gateway", message: "upstream down" } });
    const limited = new ActionGateClient({ url: node.url, token: TOKEN, retryDelayMs: 1, attempts: 3 });
    await assert.rejects(limited.propose(proposal()), (error: unknown) => {
      assert.ok(error instanceof Unavailable);
      assert.equal(error.status, 502);
      assert.match(error.message, /failed 3 times/);
      return true;
    });
    assert.equal(node.requests.length, 3);
  });

  it("should answer Unavailable when nothing listens", async () => {
    const closed = await FakeNode.start();
    const url = closed.url;
    await closed.close();
    const nobody = new ActionGateClient({ url, token: TOKEN, retryDelayMs: 1, attempts: 2 });
    await assert.rejects(nobody.propose(proposal()), Unavailable);
  });

  it("should never retry a refusal", async () => {
    node.script({ status: 409, json: { error: "identity_conflict", message: "other data", task_id: "T-1",
      tool_call_id: "c-1", existing_digest: DIGEST_A, offered_digest: DIGEST_B } });
    await assert.rejects(client.propose(proposal()), (error: unknown) => {
      assert.ok(error instanceof IdentityConflict);
      assert.equal(error.existingDigest, DIGEST_A);
      assert.equal(error.offeredDigest, DIGEST_B);
      assert.equal(error.taskId, "T-1");
      assert.equal(error.toolCallId, "c-1");
      return true;
    });
    assert.equal(node.requests.length, 1);
  });

  it("should map each refusal to its typed error", async () => {
    node.script({ status: 400, json: { error: "invalid_proposal", message: "digest differs",
      reason_code: "DIGEST_MISMATCH", computed_digest: DIGEST_A, offered_digest: DIGEST_B } });
    await assert.rejects(client.propose(proposal()), (error: unknown) => error instanceof InvalidProposal
      && error.reasonCode === "DIGEST_MISMATCH" && error.computedDigest === DIGEST_A && error.status === 400);
    node.script({ status: 403, json: { error: "task_not_owned", message: "not yours", reason_code: "TASK_NOT_OWNED",
      task_id: "T-1" } });
    await assert.rejects(client.propose(proposal()), (error: unknown) => error instanceof NotOwned
      && error.taskId === "T-1");
    node.script({ status: 400, json: { error: "bad_request", message: "invalid wait" } });
    await assert.rejects(client.get("T-1", "c-1"), (error: unknown) => !(error instanceof InvalidProposal)
      && error instanceof Error && error.name === "ActionGateError" && /invalid wait/.test(error.message));
    node.script({ status: 401, json: { error: "unauthorized", message: "no token" } });
    await assert.rejects(client.propose(proposal()), Unauthorized);
    node.script({ status: 200, json: answer("T-1", "c-1", "REJECTED", { reason_code: "PROFILE_NOT_GRANTED" }) });
    await assert.rejects(client.propose(proposal()), (error: unknown) => error instanceof Rejected
      && error.reasonCode === "PROFILE_NOT_GRANTED" && error.receipt.status === "REJECTED");
  });

  it("should refuse what the node would refuse before sending anything", async () => {
    const bad: Array<[string, unknown]> = [
      ["INVALID_ID", proposal("call/1")],
      ["INVALID_ID", proposal("c-1", { task_id: "T 1" })],
      ["UNKNOWN_MEMBER", { ...proposal(), org_id: "globex" }],
      ["MISSING_MEMBER", { ...proposal(), summary: undefined }],
      ["INVALID_MEMBER", proposal("c-1", { summary: "x".repeat(281) })],
      ["INVALID_MEMBER", proposal("c-1", { summary: "\u{1F4E7}".repeat(140) + "x" })], // 281 UTF-16 units
      ["INVALID_MEMBER", proposal("c-1", { task_version: -1 })],
      ["INPUT_NOT_OBJECT", proposal("c-1", { input: [1, 2] as unknown as Record<string, unknown> })],
      ["INVALID_MEMBER", proposal("c-1", { input: { amount: Number.NaN } })],
      ["INVALID_MEMBER", proposal("c-1", { input: { to: undefined } })],
      ["INVALID_MEMBER", proposal("c-1", { input: { n: 10n } })],
    ];
    for (const [reason, body] of bad) {
      await assert.rejects(client.propose(body as Proposal), (error: unknown) => {
        assert.ok(error instanceof InvalidProposal, String(error));
        assert.equal(error.reasonCode, reason, error.message);
        return true;
      });
    }
    assert.equal(node.requests.length, 0, "nothing reached the node");
  });

  it("should count the summary in UTF-16 units as the gate does", async () => {
    node.script({ status: 200, json: answer("T-1", "c-1", "SUCCEEDED") });
    await client.propose(proposal("c-1", { summary: "\u{1F4E7}".repeat(140) })); // 140 code points, 280 units
    assert.equal(node.requests.length, 1);
    assert.equal(SUMMARY_MAX_CHARS, 280);
  });

  it("should long-poll until terminal and keep the review URL of the proposal", async () => {
    node.on((r) => {
      if (r.method === "POST") {
        return { status: 200, json: answer("T-1", "c-1", "WAITING_APPROVAL", { review_url: "http://r/review/T-1/c-1" }) };
      }
      const polls = node.requests.filter((x) => x.method === "GET").length;
      return { status: 200, json: state("T-1", "c-1", polls === 1 ? "DISPATCHING" : "SUCCEEDED",
        polls === 1 ? {} : { provider_receipt_id: "msg-1", attempts: [{ attempt: 1, status: "SUCCEEDED",
          dispatched: true }] }) };
    });
    const seen: string[] = [];
    const done = await client.proposeAndWait(proposal(), { onProposed: (r) => { seen.push(r.status); } });
    assert.deepEqual(seen, ["WAITING_APPROVAL"]);
    assert.equal(done.status, "SUCCEEDED");
    assert.equal(done.provider_receipt_id, "msg-1");
    assert.equal(done.review_url, "http://r/review/T-1/c-1");
    assert.equal(attemptCount(done), 1);
    const polls = node.requests.filter((r) => r.method === "GET");
    assert.equal(polls.length, 2);
    assert.equal(polls[0]!.path, "/v1/actions/T-1/c-1");
    assert.equal(polls[0]!.query.get("until"), "terminal");
    assert.match(polls[0]!.query.get("wait")!, /^[0-9]{1,7}ms$/);
  });

  it("should return a terminal outcome that is not a success, and stop at decided when asked", async () => {
    node.script({ status: 200, json: state("T-1", "c-1", "DENIED", { reason_code: null }) });
    assert.equal((await client.wait("T-1", "c-1")).status, "DENIED");
    node.script({ status: 200, json: state("T-1", "c-1", "DISPATCHING") });
    assert.equal((await client.wait("T-1", "c-1", { until: "decided" })).status, "DISPATCHING");
    assert.equal(node.requests.at(-1)!.query.get("until"), "decided");
  });

  it("should throw Timeout carrying the last receipt when the wait runs out", async () => {
    node.script({ status: 200, json: state("T-1", "c-1", "WAITING_APPROVAL"), delayMs: 50 });
    await assert.rejects(client.wait("T-1", "c-1", { timeoutMs: 300 }), (error: unknown) => {
      assert.ok(error instanceof Timeout);
      assert.equal(error.receipt?.status, "WAITING_APPROVAL");
      return true;
    });
  });

  it("should wait through 404s after a 202 and throw NotFound for an action that never appears", async () => {
    node.on((r) => r.method === "POST"
      ? { status: 202, json: answer("T-1", "c-1", "PROPOSED") }
      : node.requests.length < 4 ? { status: 404, json: { error: "not_found", message: "no such action" } }
        : { status: 200, json: state("T-1", "c-1", "SUCCEEDED") });
    assert.equal((await client.proposeAndWait(proposal())).status, "SUCCEEDED");
    node.script({ status: 404, json: { error: "not_found", message: "no such action" } });
    await assert.rejects(client.wait("T-1", "never", { timeoutMs: 300 }), NotFound);
    assert.equal(await client.get("T-1", "never"), undefined);
  });

  it("should surface a REJECTED action met while waiting as Rejected", async () => {
    node.script({ status: 200, json: state("T-1", "c-1", "REJECTED", { reason_code: "TASK_CANCELLED" }) });
    await assert.rejects(client.wait("T-1", "c-1"), (e: unknown) => e instanceof Rejected
      && e.reasonCode === "TASK_CANCELLED");
  });

  it("should refuse unusable settings at construction", () => {
    assert.throws(() => new ActionGateClient({ url: "not a url", token: TOKEN }), /not a URL/);
    assert.throws(() => new ActionGateClient({ url: "ftp://x", token: TOKEN }), /neither http nor https/);
    const saved = process.env.ACTIONGATE_TOKEN;
    delete process.env.ACTIONGATE_TOKEN;
    try {
      assert.throws(() => new ActionGateClient({ url: node.url }), /ACTIONGATE_TOKEN/);
    } finally {
      if (saved !== undefined) {
        process.env.ACTIONGATE_TOKEN = saved;
      }
    }
    assert.throws(() => new ActionGateClient({ token: TOKEN, attempts: 0 }), /attempts/);
    assert.throws(() => new ActionGateClient({ token: TOKEN, pollSeconds: 7200 }), /pollSeconds/);
  });

  it("should stop at once when the caller aborts", async () => {
    node.script({ status: 200, json: state("T-1", "c-1", "WAITING_APPROVAL"), delayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("the user left")), 100);
    const start = Date.now();
    await assert.rejects(client.wait("T-1", "c-1", { signal: controller.signal }), /the user left/);
    assert.ok(Date.now() - start < 1500);
  });
});
