#!/usr/bin/env python3
"""A tool host in Python on actiongate-client (standard library only).

Proposes one email, prints its state and review URL, shows that other data under the same ids is an identity
conflict (never a second email), and waits for the outcome. Environment: ACTIONGATE_URL (default
http://127.0.0.1:8080), ACTIONGATE_TOKEN (a tool host token; ./actiongate dev prints one), TASK_ID, TOOL_CALL_ID,
and PROVIDER and TOOL_SCHEMA_HASH (default: ./actiongate dev's demo tool smtp/send_email).

    pip install --no-build-isolation ./clients/python
    ACTIONGATE_TOKEN=... python3 clients/python/examples/propose_email.py
"""
import os
import sys
import uuid

from actiongate_client import ActionGateClient, IdentityConflict

TASK, CALL = os.environ.get("TASK_ID", "T-1"), os.environ.get("TOOL_CALL_ID", "py-" + uuid.uuid4().hex[:12])
PROVIDER, SCHEMA = os.environ.get("PROVIDER", "smtp"), os.environ.get("TOOL_SCHEMA_HASH", "sha256:demo-send-email-v1")


def email(to, text):
    return {"task_id": TASK, "tool_call_id": CALL, "provider": PROVIDER, "operation": "send_email",
            "tool_name": "send_email", "tool_schema_hash": SCHEMA,
            "input": {"to": to, "subject": "From the Python host", "body": text}, "summary": "Email %s: %s" % (to, text)}


client = ActionGateClient()
first = client.propose(email("ops@example.com", "disk is full"))
print("state", first.status, "review", first.review_url or "-", "digest", first.action_digest, flush=True)
try:
    client.propose(email("ceo@example.com", "all is well"))  # the same ids, other data
except IdentityConflict as conflict:
    print("conflict existing", conflict.existing_digest, "offered", conflict.offered_digest, flush=True)
# the long poll answers as soon as the action is settled; proposing the same call again would find the same action
final = client.wait(TASK, CALL)
print("final", final.status, final.reason_code or "", final.provider_receipt_id or "")
sys.exit(0 if final.status == "SUCCEEDED" else 1)
