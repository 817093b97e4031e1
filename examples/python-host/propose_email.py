#!/usr/bin/env python3
"""A tool host in Python on actiongate's HTTP API, standard library only.

Proposes one email, prints its state and review URL, shows that other data under the same ids is a conflict
(never a second email), and waits for the outcome. Environment: ACTIONGATE_URL (default http://127.0.0.1:8080),
ACTIONGATE_TOKEN (a tool host token of http.proposals.tokens.file), TASK_ID, TOOL_CALL_ID, and PROVIDER and
TOOL_SCHEMA_HASH (default: ./actiongate dev's demo tool smtp/send_email).
"""
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

BASE = os.environ.get("ACTIONGATE_URL", "http://127.0.0.1:8080")
TOKEN = os.environ["ACTIONGATE_TOKEN"]
TASK, CALL = os.environ.get("TASK_ID", "T-1"), os.environ.get("TOOL_CALL_ID", "py-" + uuid.uuid4().hex[:12])
PROVIDER, SCHEMA = os.environ.get("PROVIDER", "smtp"), os.environ.get("TOOL_SCHEMA_HASH", "sha256:demo-send-email-v1")
TERMINAL = {"SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED", "CANCELLED", "NOT_APPLIED"}


def call(method, path, body=None):
    request = urllib.request.Request(BASE + path, method=method, data=body and json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=90) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:  # 4xx/5xx still carry a JSON body
        return error.code, json.load(error)


def propose(to, text):
    return call("POST", "/v1/proposals", {
        "task_id": TASK, "tool_call_id": CALL, "provider": PROVIDER, "operation": "send_email",
        "tool_name": "send_email", "tool_schema_hash": SCHEMA,
        "input": {"to": to, "subject": "From the Python host", "body": text}, "summary": "Email %s: %s" % (to, text)})


code, action = propose("ops@example.com", "disk is full")
if code not in (200, 202):
    sys.exit("refused: %d %s" % (code, action))
print("state", action["status"], "review", action.get("review_url", "-"), "digest", action["action_digest"])
code, conflict = propose("ceo@example.com", "all is well")  # same ids, other data
if code == 409:
    print("conflict existing", conflict["existing_digest"], "offered", conflict["offered_digest"])
while action.get("status") not in TERMINAL:  # long poll: the server answers as soon as it is settled
    code, action = call("GET", "/v1/actions/%s/%s?wait=30s&until=terminal" % (TASK, CALL))
print("final", action["status"], action.get("reason_code") or "", action.get("provider_receipt_id") or "")
sys.exit(0 if action["status"] == "SUCCEEDED" else 1)
