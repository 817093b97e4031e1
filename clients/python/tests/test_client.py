"""The client against a scripted stand-in node: answers, refusals, retries and long polls, played exactly."""
import json
import os
import time
import unittest
from unittest import mock

from actiongate_client import (ActionGateClient, ActionGateError, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected,
                               Timeout, Unauthorized, Unavailable)

from .fake_node import DIGEST_A, DIGEST_B, RESET, FakeNode, answer, state

TOKEN = "host-token-test-0001"


def proposal(call="c-1", **extra):
    return dict({"task_id": "T-1", "tool_call_id": call, "provider": "smtp", "operation": "send_email",
                 "tool_name": "send_email", "tool_schema_hash": "sha256:demo-send-email-v1",
                 "input": {"to": "ops@example.com", "body": "disk is full"},
                 "summary": "Email ops@example.com that the disk is full"}, **extra)


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.node = FakeNode()

    @classmethod
    def tearDownClass(cls):
        cls.node.close()

    def setUp(self):
        self.node.requests.clear()
        self.client = ActionGateClient(self.node.url + "/", TOKEN, retry_delay=0.005, poll_seconds=1)

    def posts(self):
        return [r for r in self.node.requests if r["method"] == "POST"]

    def test_should_post_the_proposal_with_the_token_and_return_the_first_receipt(self):
        self.node.script((200, answer("T-1", "c-1", "WAITING_APPROVAL", review_url="http://r/review/T-1/c-1")))
        receipt = self.client.propose(proposal())
        self.assertEqual(receipt.status, "WAITING_APPROVAL")
        self.assertEqual(receipt.review_url, "http://r/review/T-1/c-1")
        request = self.node.requests[0]
        self.assertEqual(request["path"], "/v1/proposals")
        self.assertEqual(request["headers"]["Authorization"], "Bearer " + TOKEN)
        self.assertEqual(request["headers"]["Content-Type"], "application/json")
        self.assertEqual(json.loads(request["body"]), proposal())

    def test_should_retry_a_503_and_a_dropped_connection_with_the_very_same_body(self):
        self.node.script((503, {"error": "busy", "message": "retry"}), RESET,
                         (200, answer("T-1", "c-1", "WAITING_APPROVAL")))
        self.assertEqual(self.client.propose(proposal()).status, "WAITING_APPROVAL")
        self.assertEqual(len(self.node.requests), 3)
        self.assertEqual(len({r["body"] for r in self.node.requests}), 1, "every try sends the same ids and data")

    def test_should_give_up_with_unavailable_after_its_attempts(self):
        self.node.script((502, {"error": "bad_gateway", "message": "upstream down"}))
        limited = ActionGateClient(self.node.url, TOKEN, attempts=3, retry_delay=0.001)
        with self.assertRaises(Unavailable) as raised:
            limited.propose(proposal())
        self.assertEqual(raised.exception.status, 502)
        self.assertIn("failed 3 times", str(raised.exception))
        self.assertEqual(len(self.node.requests), 3)
        nobody = ActionGateClient("http://127.0.0.1:9", TOKEN, attempts=2, retry_delay=0.001)
        with self.assertRaises(Unavailable):
            nobody.propose(proposal())

    def test_should_never_retry_a_refusal_and_map_each_to_its_error(self):
        self.node.script((409, {"error": "identity_conflict", "message": "other data", "task_id": "T-1",
                                "tool_call_id": "c-1", "existing_digest": DIGEST_A, "offered_digest": DIGEST_B}))
        with self.assertRaises(IdentityConflict) as conflict:
            self.client.propose(proposal())
        self.assertEqual((conflict.exception.existing_digest, conflict.exception.offered_digest), (DIGEST_A, DIGEST_B))
        self.assertEqual(len(self.node.requests), 1)
        self.node.script((400, {"error": "invalid_proposal", "message": "differs", "reason_code": "DIGEST_MISMATCH",
                                "computed_digest": DIGEST_A, "offered_digest": DIGEST_B}))
        with self.assertRaises(InvalidProposal) as invalid:
            self.client.propose(proposal())
        self.assertEqual((invalid.exception.reason_code, invalid.exception.computed_digest),
                         ("DIGEST_MISMATCH", DIGEST_A))
        self.node.script((403, {"error": "task_not_owned", "message": "no", "reason_code": "TASK_NOT_OWNED",
                                "task_id": "T-1"}))
        with self.assertRaises(NotOwned):
            self.client.propose(proposal())
        self.node.script((400, {"error": "bad_request", "message": "invalid wait"}))
        with self.assertRaisesRegex(ActionGateError, "invalid wait") as bad:
            self.client.get("T-1", "c-1")
        self.assertNotIsInstance(bad.exception, InvalidProposal)
        self.node.script((401, {"error": "unauthorized", "message": "no token"}))
        with self.assertRaises(Unauthorized):
            self.client.propose(proposal())
        self.node.script((200, answer("T-1", "c-1", "REJECTED", reason_code="PROFILE_NOT_GRANTED")))
        with self.assertRaises(Rejected) as rejected:
            self.client.propose(proposal())
        self.assertEqual(rejected.exception.reason_code, "PROFILE_NOT_GRANTED")

    def test_should_refuse_what_the_node_would_refuse_before_sending_anything(self):
        bad = [("INVALID_ID", proposal("call/1")), ("INVALID_ID", proposal(task_id="T 1")),
               ("UNKNOWN_MEMBER", proposal(org_id="globex")), ("MISSING_MEMBER", proposal(summary=None)),
               ("INVALID_MEMBER", proposal(summary="x" * 281)),
               ("INVALID_MEMBER", proposal(summary="\U0001F4E7" * 141)),  # 282 UTF-16 units, as the gate counts
               ("INVALID_MEMBER", proposal(task_version=-1)),
               ("INVALID_MEMBER", proposal(task_version=True)), ("INPUT_NOT_OBJECT", proposal(input=[1, 2])),
               ("INVALID_MEMBER", proposal(input={"amount": float("nan")})),
               ("INVALID_MEMBER", proposal(input={"when": object()}))]
        for reason, body in bad:
            with self.assertRaises(InvalidProposal, msg=reason) as raised:
                self.client.propose(body)
            self.assertEqual(raised.exception.reason_code, reason, str(raised.exception))
        self.assertEqual(self.node.requests, [], "nothing reached the node")

    def test_should_count_the_summary_in_utf16_units_as_the_gate_does(self):
        self.node.script((200, answer("T-1", "c-1", "SUCCEEDED")))
        self.client.propose(proposal(summary="\U0001F4E7" * 140))  # 140 code points, 280 UTF-16 units: at the limit
        self.assertEqual(len(self.node.requests), 1)
        with self.assertRaises(InvalidProposal):
            self.client.propose(proposal(summary="\U0001F4E7" * 140 + "x"))  # 141 code points, 281 units
        self.assertEqual(len(self.node.requests), 1, "the refused one never reached the node")

    def test_should_long_poll_until_terminal_and_keep_the_review_url(self):
        def handler(request):
            if request["method"] == "POST":
                return 200, answer("T-1", "c-1", "WAITING_APPROVAL", review_url="http://r/review/T-1/c-1")
            polls = len([r for r in self.node.requests if r["method"] == "GET"])
            return 200, state("T-1", "c-1", "DISPATCHING") if polls == 1 else state(
                "T-1", "c-1", "SUCCEEDED", provider_receipt_id="msg-1",
                attempts=[{"attempt": 1, "status": "SUCCEEDED", "dispatched": True}])
        self.node.handler = handler
        seen = []
        done = self.client.propose_and_wait(proposal(), on_proposed=lambda r: seen.append(r.status))
        self.assertEqual(seen, ["WAITING_APPROVAL"])
        self.assertEqual((done.status, done.provider_receipt_id, done.attempt_count), ("SUCCEEDED", "msg-1", 1))
        self.assertEqual(done.review_url, "http://r/review/T-1/c-1")
        polls = [r for r in self.node.requests if r["method"] == "GET"]
        self.assertEqual(len(polls), 2)
        self.assertEqual(polls[0]["path"], "/v1/actions/T-1/c-1")
        self.assertEqual(polls[0]["query"]["until"], ["terminal"])
        self.assertRegex(polls[0]["query"]["wait"][0], r"^[0-9]{1,7}ms$")

    def test_should_return_a_terminal_outcome_that_is_not_a_success_and_stop_at_decided(self):
        self.node.script((200, state("T-1", "c-1", "DENIED")))
        self.assertEqual(self.client.wait("T-1", "c-1").status, "DENIED")
        self.node.script((200, state("T-1", "c-1", "DISPATCHING")))
        self.assertEqual(self.client.wait("T-1", "c-1", until="decided").status, "DISPATCHING")
        self.assertEqual(self.node.requests[-1]["query"]["until"], ["decided"])
        self.node.script((200, state("T-1", "c-1", "REJECTED", reason_code="TASK_CANCELLED")))
        with self.assertRaises(Rejected):
            self.client.wait("T-1", "c-1")

    def test_should_raise_timeout_carrying_the_last_receipt(self):
        self.node.script((200, state("T-1", "c-1", "WAITING_APPROVAL"), 0.05))
        with self.assertRaises(Timeout) as raised:
            self.client.wait("T-1", "c-1", timeout=0.3)
        self.assertEqual(raised.exception.receipt.status, "WAITING_APPROVAL")

    def test_should_wait_through_404s_after_a_202_and_raise_not_found_for_an_action_never_seen(self):
        def handler(request):
            if request["method"] == "POST":
                return 202, answer("T-1", "c-1", "PROPOSED")
            if len(self.node.requests) < 4:
                return 404, {"error": "not_found", "message": "no such action"}
            return 200, state("T-1", "c-1", "SUCCEEDED")
        self.node.handler = handler
        self.assertEqual(self.client.propose_and_wait(proposal()).status, "SUCCEEDED")
        self.node.script((404, {"error": "not_found", "message": "no such action"}))
        started = time.monotonic()
        with self.assertRaises(NotFound):
            self.client.wait("T-1", "never", timeout=0.3)
        self.assertLess(time.monotonic() - started, 5)
        self.assertIsNone(self.client.get("T-1", "never"))

    def test_should_refuse_unusable_settings(self):
        with self.assertRaisesRegex(ValueError, "not an http or https URL"):
            ActionGateClient("ftp://x", TOKEN)
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaisesRegex(ValueError, "ACTIONGATE_TOKEN"):
                ActionGateClient(self.node.url)
        with self.assertRaisesRegex(ValueError, "attempts"):
            ActionGateClient(self.node.url, TOKEN, attempts=0)
        with self.assertRaisesRegex(ValueError, "poll_seconds"):
            ActionGateClient(self.node.url, TOKEN, poll_seconds=7200)


if __name__ == "__main__":
    unittest.main()
