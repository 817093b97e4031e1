"""The client against a real actiongate node: what node's ClientPackagesIT runs with a node, a sandbox provider and a
test hook in the environment. Without them these tests are skipped, saying so."""
import json
import os
import unittest
import urllib.parse
import urllib.request
import uuid

from actiongate_client import (ActionGateClient, IdentityConflict, InvalidProposal, NotOwned, Rejected, Timeout,
                               Unauthorized)

HOOK = os.environ.get("ACTIONGATE_TEST_HOOK")
TASK = os.environ.get("ACTIONGATE_TEST_TASK", "T-1")
RUN = uuid.uuid4().hex[:8]


def email(call, to="ops@example.com", **extra):
    return dict({"task_id": TASK, "tool_call_id": "py-%s-%s" % (RUN, call),
                 "provider": os.environ.get("ACTIONGATE_TEST_PROVIDER", "webhook"), "operation": "send_email",
                 "tool_name": "send_email", "tool_schema_hash": os.environ.get("ACTIONGATE_TEST_SCHEMA", "sha256:x"),
                 "input": {"to": to, "body": "disk is full"}, "summary": "Email %s that the disk is full" % to,
                 "idempotency_key": "idem-py-%s-%s" % (RUN, call)}, **extra)


def decide(receipt, kind):
    """Has the test hook sign and publish a decision on the action's exact digest, as a reviewer would."""
    body = json.dumps({"task_id": receipt.task_id, "tool_call_id": receipt.tool_call_id,
                       "action_digest": receipt.action_digest, "type": kind}).encode()
    with urllib.request.urlopen(urllib.request.Request(HOOK + "/decide", data=body, method="POST")) as answer:
        assert answer.status == 204


def effects(key):
    with urllib.request.urlopen(HOOK + "/effects?key=" + urllib.parse.quote(key)) as answer:
        return json.load(answer)


@unittest.skipUnless(os.environ.get("ACTIONGATE_URL") and os.environ.get("ACTIONGATE_TOKEN") and HOOK,
                     "no node: set ACTIONGATE_URL, ACTIONGATE_TOKEN and ACTIONGATE_TEST_HOOK "
                     "(node's ClientPackagesIT does)")
class RealNodeTest(unittest.TestCase):
    def setUp(self):
        self.client = ActionGateClient(poll_seconds=5)

    def test_should_wait_through_the_approval_to_the_settled_receipt_and_find_it_again(self):
        call = email("approve")

        def approve(first):
            self.assertEqual(first.status, "WAITING_APPROVAL")
            self.assertTrue(first.review_url.endswith("/review/%s/%s" % (TASK, call["tool_call_id"])))
            decide(first, "APPROVE")
        done = self.client.propose_and_wait(call, on_proposed=approve)
        self.assertEqual(done.status, "SUCCEEDED")
        self.assertTrue(done.provider_receipt_id)
        again = self.client.propose_and_wait(call)
        self.assertEqual((again.status, again.action_digest), ("SUCCEEDED", done.action_digest))
        self.assertEqual(effects(call["idempotency_key"]), {"effects": 1, "applied": 1})

    def test_should_raise_identity_conflict_naming_both_digests(self):
        first = self.client.propose(email("conflict"))
        with self.assertRaises(IdentityConflict) as raised:
            self.client.propose(email("conflict", "ceo@example.com"))
        self.assertEqual(raised.exception.existing_digest, first.action_digest)
        self.assertNotEqual(raised.exception.offered_digest, first.action_digest)
        self.assertEqual(self.client.get(TASK, first.tool_call_id).input_digest, first.input_digest)

    def test_should_raise_timeout_while_undecided_and_return_a_denial(self):
        first = self.client.propose(email("deny"))
        with self.assertRaises(Timeout) as raised:
            self.client.wait(TASK, first.tool_call_id, timeout=1.5)
        self.assertEqual(raised.exception.receipt.status, "WAITING_APPROVAL")
        decide(first, "REJECT")
        self.assertEqual(self.client.wait(TASK, first.tool_call_id).status, "DENIED")
        self.assertEqual(effects(email("deny")["idempotency_key"]), {"effects": 0, "applied": 0})

    def test_should_raise_the_nodes_refusals_typed(self):
        with self.assertRaises(Rejected) as rejected:
            self.client.propose(email("stale", task_version=7))
        self.assertEqual(rejected.exception.reason_code, "TASK_VERSION_CHANGED")
        with self.assertRaises(InvalidProposal) as invalid:
            self.client.propose(email("digest", input_digest="sha256:" + "0" * 64))
        self.assertEqual(invalid.exception.reason_code, "DIGEST_MISMATCH")
        self.assertRegex(invalid.exception.computed_digest, r"^sha256:[0-9a-f]{64}$")
        with self.assertRaises(NotOwned):
            self.client.propose(email("foreign", task_id="T-unknown"))
        with self.assertRaises(Unauthorized):
            ActionGateClient(token="not-a-token-of-anyone").propose(email("anon"))


if __name__ == "__main__":
    unittest.main()
