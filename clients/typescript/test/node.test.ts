// The client against a real actiongate node: what node's ClientPackagesIT runs with a node, a sandbox provider and a
// test hook in the environment. Without them these tests are skipped, saying so.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { before, describe, it } from "node:test";

import {
  ActionGateClient, IdentityConflict, InvalidProposal, NotOwned, Rejected, Timeout, Unauthorized, type Proposal,
  type Receipt,
} from "@actiongate/client";

const env = process.env;
const hook = env.ACTIONGATE_TEST_HOOK;
const skip = env.ACTIONGATE_URL && env.ACTIONGATE_TOKEN && hook ? false
  : "no node: set ACTIONGATE_URL, ACTIONGATE_TOKEN and ACTIONGATE_TEST_HOOK (node's ClientPackagesIT does)";
const TASK = env.ACTIONGATE_TEST_TASK ?? "T-1";
const RUN = randomUUID().slice(0, 8);

function email(call: string, to = "ops@example.com", extra: Partial<Proposal> = {}): Proposal {
  return {
    task_id: TASK, tool_call_id: `ts-${RUN}-${call}`, provider: env.ACTIONGATE_TEST_PROVIDER ?? "webhook",
    operation: "send_email", tool_name: "send_email", tool_schema_hash: env.ACTIONGATE_TEST_SCHEMA ?? "sha256:x",
    input: { to, body: "disk is full" }, summary: `Email ${to} that the disk is full`,
    idempotency_key: `idem-ts-${RUN}-${call}`, ...extra,
  };
}

/** Has the test hook sign and publish a decision on the action's exact digest, as a reviewer would. */
async function decide(receipt: Receipt, type: "APPROVE" | "REJECT"): Promise<void> {
  const response = await fetch(`${hook}/decide`, { method: "POST", body: JSON.stringify({ task_id: receipt.task_id,
    tool_call_id: receipt.tool_call_id, action_digest: receipt.action_digest, type }) });
  assert.equal(response.status, 204, await response.text());
}

/** The effects the sandbox provider applied for an idempotency key (and the requests that reached its apply step). */
async function effects(key: string): Promise<{ effects: number; applied: number }> {
  return await (await fetch(`${hook}/effects?key=${encodeURIComponent(key)}`)).json() as
    { effects: number; applied: number };
}

describe("ActionGateClient against a real node", { skip }, () => {
  let client: ActionGateClient;
  before(() => {
    client = new ActionGateClient({ pollSeconds: 5 });
  });

  it("should wait through the human's approval to the settled receipt, and find it again on a redelivery", async () => {
    const call = email("approve");
    const done = await client.proposeAndWait(call, { onProposed: async (first) => {
      assert.equal(first.status, "WAITING_APPROVAL");
      assert.match(first.review_url!, new RegExp(`/review/${TASK}/${call.tool_call_id}$`));
      await decide(first, "APPROVE");
    } });
    assert.equal(done.status, "SUCCEEDED");
    assert.ok(done.provider_receipt_id);
    const again = await client.proposeAndWait(call);
    assert.equal(again.status, "SUCCEEDED");
    assert.equal(again.action_digest, done.action_digest);
    assert.deepEqual(await effects(call.idempotency_key!), { effects: 1, applied: 1 });
  });

  it("should throw IdentityConflict naming both digests for other data under the same ids", async () => {
    const first = await client.propose(email("conflict"));
    await assert.rejects(client.propose(email("conflict", "ceo@example.com")), (error: unknown) => {
      assert.ok(error instanceof IdentityConflict);
      assert.equal(error.existingDigest, first.action_digest);
      assert.match(error.offeredDigest, /^sha256:/);
      assert.notEqual(error.offeredDigest, first.action_digest);
      return true;
    });
    assert.equal((await client.get(TASK, first.tool_call_id))!.input_digest, first.input_digest);
  });

  it("should throw Timeout with the last receipt while a human has not decided, and return a denial", async () => {
    const first = await client.propose(email("deny"));
    await assert.rejects(client.wait(TASK, first.tool_call_id, { timeoutMs: 1500 }), (error: unknown) =>
      error instanceof Timeout && error.receipt?.status === "WAITING_APPROVAL");
    await decide(first, "REJECT");
    assert.equal((await client.wait(TASK, first.tool_call_id)).status, "DENIED");
    assert.deepEqual(await effects(email("deny").idempotency_key!), { effects: 0, applied: 0 });
  });

  it("should throw the node's refusals typed", async () => {
    await assert.rejects(client.propose(email("stale", "ops@example.com", { task_version: 7 })),
      (error: unknown) => error instanceof Rejected && error.reasonCode === "TASK_VERSION_CHANGED");
    await assert.rejects(client.propose(email("digest", "ops@example.com", { input_digest: "sha256:" + "0".repeat(64) })),
      (error: unknown) => error instanceof InvalidProposal && error.reasonCode === "DIGEST_MISMATCH"
        && /^sha256:[0-9a-f]{64}$/.test(error.computedDigest ?? ""));
    await assert.rejects(client.propose(email("foreign", "ops@example.com", { task_id: "T-unknown" })), NotOwned);
    const stranger = new ActionGateClient({ token: "not-a-token-of-anyone" });
    await assert.rejects(stranger.propose(email("anon")), Unauthorized);
  });

  it("should turn a retry after a lost answer into the same action, never a second one", async () => {
    // a proxy that forwards the first POST, lets the node publish it, then drops the answer on the floor
    let dropped = false;
    const target = new URL(env.ACTIONGATE_URL!);
    const proxy: Server = createServer((req, res) => {
      const upstream = forward({ host: target.hostname, port: target.port, path: req.url, method: req.method,
        headers: req.headers }, (answer) => {
        if (req.method === "POST" && !dropped) {
          dropped = true;
          answer.resume();
          answer.on("end", () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const flaky = new ActionGateClient({ url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        retryDelayMs: 50, pollSeconds: 5 });
      const call = email("lost-answer");
      const done = await flaky.proposeAndWait(call, { onProposed: (first) => decide(first, "APPROVE") });
      assert.ok(dropped, "the first answer was lost");
      assert.equal(done.status, "SUCCEEDED");
      assert.deepEqual(await effects(call.idempotency_key!), { effects: 1, applied: 1 });
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

