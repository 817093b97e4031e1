"""A tool host's client of an actiongate node's HTTP API (docs/tool-hosts.md), standard library only."""
from __future__ import annotations

import http.client
import json
import os
import random
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from .call_id import canonical_json, derive_call_id, sha256_hex
from .errors import (ActionGateError, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected, Timeout,
                     Unauthorized, Unavailable)
from .receipt import TERMINAL, Receipt

try:  # Python 3.8+: a proposal is a TypedDict, checked by type checkers; at run time a plain dict
    from typing import TypedDict
except ImportError:  # pragma: no cover
    TypedDict = dict  # type: ignore

ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}\Z")
"""An action id (docs/contract.md, reason code INVALID_IDENTIFIER)."""

SUMMARY_MAX_CHARS = 280
"""The longest summary, in UTF-16 code units as the node and the gate count them: a character outside the Basic
Multilingual Plane, such as an emoji, counts two (docs/contract.md)."""

REQUIRED = ("task_id", "tool_call_id", "provider", "operation", "tool_name", "tool_schema_hash", "input", "summary")
OPTIONAL = ("idempotency_key", "business_operation_id", "task_version", "input_digest", "origin", "attachments",
            "claimed_annotations")


class _ProposalRequired(TypedDict):
    task_id: str
    tool_call_id: str
    provider: str
    operation: str
    tool_name: str
    tool_schema_hash: str
    input: Dict[str, Any]
    summary: str


class Proposal(_ProposalRequired, total=False):
    """One tool call as ``POST /v1/proposals`` takes it; org, principal and profile come from the token."""

    idempotency_key: str
    business_operation_id: str
    task_version: int
    input_digest: str
    origin: Dict[str, str]
    attachments: List[Dict[str, Any]]
    claimed_annotations: Dict[str, str]


class _Answer:
    def __init__(self, status: int, text: str) -> None:
        self.status = status
        self.text = text
        try:
            value = json.loads(text) if text else None
        except ValueError:
            value = None
        self.json = value if isinstance(value, dict) else None  # type: Optional[Dict[str, Any]]


class _Transient(Exception):
    pass


class ActionGateClient:
    """Proposes tool calls and waits for their receipts; every retry resends the same ids and data.

    ``url`` defaults to ``ACTIONGATE_URL`` (else ``http://127.0.0.1:8080``), ``token`` to ``ACTIONGATE_TOKEN`` (a
    tool host token of ``http.proposals.tokens.file``). ``host`` names this host in derived call ids (default: a
    digest of the token). A request is tried ``attempts`` times on a transient failure (refused or reset connection,
    5xx, 408, 429), pausing ``retry_delay`` seconds, doubled each time up to 5 s. ``poll_seconds`` is the ``wait=`` of
    each long poll; ``request_timeout`` how long a request may take beyond it.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, host: Optional[str] = None,
                 attempts: int = 5, retry_delay: float = 0.2, request_timeout: float = 30.0,
                 poll_seconds: float = 30.0) -> None:
        url = url or os.environ.get("ACTIONGATE_URL") or "http://127.0.0.1:8080"
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError("actiongate url %r is not an http or https URL" % url)
        self.url = url.rstrip("/")
        token = token or os.environ.get("ACTIONGATE_TOKEN")
        if not token:
            raise ValueError("no tool host token: pass token or set ACTIONGATE_TOKEN")
        self._token = token
        self.host = host or "token-sha256:" + sha256_hex(token)
        for name, value in (("attempts", attempts), ("request_timeout", request_timeout),
                            ("poll_seconds", poll_seconds)):
            if not value > 0:
                raise ValueError("%s must be positive, not %r" % (name, value))
        if poll_seconds > 3600:
            raise ValueError("poll_seconds must be at most 3600, not %r" % poll_seconds)
        if retry_delay < 0:
            raise ValueError("retry_delay must not be negative, not %r" % retry_delay)
        self.attempts = int(attempts)
        self.retry_delay = retry_delay
        self.request_timeout = request_timeout
        self.poll_seconds = poll_seconds

    def call_id(self, tool: str, framework_call_id: Optional[str] = None, input: Any = None,
                scope: Optional[Sequence[Union[str, int]]] = None) -> str:
        """A call id for this host (see ``derive_call_id``)."""
        return derive_call_id(self.host, tool, framework_call_id, input, scope)

    def propose(self, proposal: Mapping[str, Any]) -> Receipt:
        """Proposes one tool call and returns its first receipt (``PROPOSED`` when the gate had not answered yet).

        Raises Rejected, IdentityConflict, InvalidProposal, NotOwned, Unauthorized, Unavailable.
        """
        body = _serialize(proposal)
        answer = self._send("POST", "/v1/proposals", body, 0.0)
        if answer.status in (200, 202):
            receipt = _receipt(answer, proposal["task_id"], proposal["tool_call_id"])
            if receipt.status == "REJECTED":
                raise Rejected(receipt)
            return receipt
        raise _refusal(answer, proposal["task_id"], proposal["tool_call_id"])

    def get(self, task_id: str, tool_call_id: str) -> Optional[Receipt]:
        """The action's state now, or None when no action under these ids is visible to this credential."""
        answer = self._send("GET", _action_path(task_id, tool_call_id), None, 0.0)
        if answer.status == 404:
            return None
        if answer.status == 200:
            return _receipt(answer, task_id, tool_call_id)
        raise _refusal(answer, task_id, tool_call_id)

    def wait(self, task_id: str, tool_call_id: str, until: str = "terminal", timeout: float = 600.0) -> Receipt:
        """Waits by long poll until the action is terminal (``until="decided"``: no longer ``WAITING_APPROVAL``).

        SUCCEEDED, FAILED, DENIED, EXPIRED, CANCELLED and NOT_APPLIED are returned. Raises Rejected for a REJECTED
        action, Timeout (with the last state) when ``timeout`` runs out, NotFound when it runs out and the action was
        never visible, Unauthorized, Unavailable.
        """
        return self._wait(task_id, tool_call_id, None, until, timeout)

    def propose_and_wait(self, proposal: Mapping[str, Any], until: str = "terminal", timeout: float = 600.0,
                         on_proposed: Optional[Callable[[Receipt], Any]] = None) -> Receipt:
        """``propose``, then ``wait``; ``on_proposed`` gets the first answer (e.g. to show its ``review_url``).

        Safe to call again after any failure or crash with the same proposal: it finds the same action.
        """
        first = self.propose(proposal)
        if on_proposed is not None:
            on_proposed(first)
        if _reached(first.status, until):
            return first
        return self._wait(proposal["task_id"], proposal["tool_call_id"], first, until, timeout)

    def _wait(self, task_id: str, tool_call_id: str, last: Optional[Receipt], until: str,
              timeout: float) -> Receipt:
        path = _action_path(task_id, tool_call_id)
        if until not in ("terminal", "decided"):
            raise ValueError('until must be "terminal" or "decided", not %r' % (until,))
        start = time.monotonic()
        while True:
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                if last is None:
                    raise NotFound(task_id, tool_call_id)
                raise Timeout(task_id, tool_call_id, time.monotonic() - start, last)
            wait = max(0.001, min(left, self.poll_seconds))
            answer = self._send("GET", "%s?wait=%dms&until=%s" % (path, int(wait * 1000) or 1, until), None, wait)
            if answer.status == 404:  # a proposal answered 202 may not be visible yet
                time.sleep(min(0.25, left))
                continue
            if answer.status != 200:
                raise _refusal(answer, task_id, tool_call_id)
            receipt = _receipt(answer, task_id, tool_call_id)
            if receipt.review_url is None and last is not None and last.review_url is not None:
                receipt = Receipt.from_json(dict(receipt.raw, review_url=last.review_url))
            last = receipt
            if receipt.status == "REJECTED":
                raise Rejected(receipt)
            if _reached(receipt.status, until):
                return receipt

    def _send(self, method: str, path: str, body: Optional[bytes], wait: float) -> _Answer:
        delay = self.retry_delay
        failure = None  # type: Optional[BaseException]
        status = None  # type: Optional[int]
        for attempt in range(1, self.attempts + 1):
            try:
                status, answer = None, self._once(method, path, body, wait)
                if answer.status not in (408, 429) and answer.status < 500:
                    return answer
                status = answer.status
                failure = ActionGateError("%s %s answered %d: %s" % (method, path, answer.status, answer.text[:200]),
                                          answer.status, answer.json or answer.text)
            except _Transient as error:
                failure = error.__cause__ or error
            if attempt < self.attempts:
                time.sleep(delay * (0.5 + random.random() / 2))
                delay = min(delay * 2, 5.0)
        raise Unavailable("%s %s%s failed %d times: %s" % (method, self.url, path, self.attempts, failure),
                          status) from failure

    def _once(self, method: str, path: str, body: Optional[bytes], wait: float) -> _Answer:
        headers = {"Authorization": "Bearer " + self._token, "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=wait + self.request_timeout) as response:
                return _Answer(response.status, response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as error:  # 4xx/5xx carry a JSON body too
            with error:
                return _Answer(error.code, error.read().decode("utf-8", "replace"))
        except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, OSError) as error:
            raise _Transient() from error


def _reached(status: str, until: str) -> bool:
    return status in TERMINAL or (until == "decided" and status not in ("WAITING_APPROVAL", "PROPOSED"))


def _check_id(value: Any, name: str) -> None:
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise InvalidProposal("INVALID_ID", "%s %r does not match [A-Za-z0-9._:-]{1,128} "
                              "(ActionGateClient.call_id derives a valid one)" % (name, value), member=name)


def _action_path(task_id: str, tool_call_id: str) -> str:
    _check_id(task_id, "task_id")
    _check_id(tool_call_id, "tool_call_id")
    return "/v1/actions/%s/%s" % (task_id, tool_call_id)


def _serialize(proposal: Mapping[str, Any]) -> bytes:
    """Checks what the node would refuse anyway, so that the error is clear and nothing is sent."""
    if not isinstance(proposal, Mapping):
        raise InvalidProposal("INVALID_JSON", "a proposal is a mapping")
    for name in proposal:
        if name not in REQUIRED and name not in OPTIONAL:
            raise InvalidProposal("UNKNOWN_MEMBER", "%s is not a proposal member%s" % (
                name, " (it comes from the token, never from the body)"
                if name in ("org_id", "principal_id", "profile_id") else ""), member=name)
    for name in REQUIRED:
        if proposal.get(name) is None:
            raise InvalidProposal("MISSING_MEMBER", "%s is missing" % name, member=name)
    _check_id(proposal["task_id"], "task_id")
    _check_id(proposal["tool_call_id"], "tool_call_id")
    for name in ("provider", "operation", "tool_name", "tool_schema_hash", "summary"):
        if not isinstance(proposal[name], str) or not proposal[name]:
            raise InvalidProposal("INVALID_MEMBER", "%s must be a non-empty string" % name, member=name)
    if _utf16_length(proposal["summary"]) > SUMMARY_MAX_CHARS:
        raise InvalidProposal("INVALID_MEMBER", "summary is longer than %d UTF-16 code units" % SUMMARY_MAX_CHARS,
                              member="summary")
    if not isinstance(proposal["input"], Mapping):
        raise InvalidProposal("INPUT_NOT_OBJECT", "input must be a JSON object", member="input")
    version = proposal.get("task_version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 0):
        raise InvalidProposal("INVALID_MEMBER", "task_version must be a non-negative integer", member="task_version")
    try:
        canonical_json(dict(proposal["input"]), "input")  # refuses NaN, infinities and what JSON cannot carry
        return json.dumps(dict(proposal), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise InvalidProposal("INVALID_MEMBER", str(error), member="input") from None


def _utf16_length(text: str) -> int:
    """The length Java and JavaScript give ``text``: code points above U+FFFF count two."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _receipt(answer: _Answer, task_id: str, tool_call_id: str) -> Receipt:
    data = answer.json
    if data is None or not isinstance(data.get("status"), str) or data.get("task_id") != task_id \
            or data.get("tool_call_id") != tool_call_id:
        raise ActionGateError("unexpected answer %d for %s/%s: %s" % (answer.status, task_id, tool_call_id,
                                                                      answer.text[:200]), answer.status, answer.text)
    return Receipt.from_json(data)


def _refusal(answer: _Answer, task_id: str, tool_call_id: str) -> ActionGateError:
    data = answer.json or {}

    def text(key: str) -> Optional[str]:
        value = data.get(key)
        return value if isinstance(value, str) else None

    message = text("message") or answer.text[:200]
    if answer.status == 400 and text("reason_code") is None:  # not a proposal's refusal
        return ActionGateError("the node refused the request (400): %s" % message, 400, data)
    if answer.status == 400:
        return InvalidProposal(text("reason_code") or "", message, text("member"), text("computed_digest"),
                               text("offered_digest"), 400, data)
    if answer.status == 401:
        return Unauthorized("the node refused the credential (401): %s" % message, 401, data)
    if answer.status == 403:
        return NotOwned(text("task_id") or task_id, message, data)
    if answer.status == 404:
        return NotFound(task_id, tool_call_id)
    if answer.status == 409:
        return IdentityConflict(text("task_id") or task_id, text("tool_call_id") or tool_call_id,
                                text("existing_digest") or "?", text("offered_digest") or "?", data)
    return ActionGateError("unexpected answer %d: %s" % (answer.status, message), answer.status, data)


