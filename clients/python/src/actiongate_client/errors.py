"""The errors the client raises: one type for each way a proposal or a wait can end other than as hoped."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .receipt import Receipt


class ActionGateError(Exception):
    """The base of every error this package raises; ``status`` is the HTTP status when there was an answer."""

    def __init__(self, message: str, status: Optional[int] = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class IdentityConflict(ActionGateError):
    """The ids already name another action (409): nothing was proposed, the held action is untouched."""

    def __init__(self, task_id: str, tool_call_id: str, existing_digest: str, offered_digest: str,
                 body: Any = None) -> None:
        super().__init__("identity conflict on %s/%s: the ids hold %s, this call offered %s; nothing was proposed"
                         % (task_id, tool_call_id, existing_digest, offered_digest), 409, body)
        self.task_id = task_id
        self.tool_call_id = tool_call_id
        self.existing_digest = existing_digest
        self.offered_digest = offered_digest


class Rejected(ActionGateError):
    """The action is ``REJECTED`` (a policy check at admission or at a recheck): ``reason_code`` says which."""

    def __init__(self, receipt: "Receipt") -> None:
        reason = receipt.reason_code or "UNKNOWN_REASON"
        super().__init__("%s/%s was rejected: %s%s" % (receipt.task_id, receipt.tool_call_id, reason,
                                                       " (%s)" % receipt.reason if receipt.reason else ""),
                         200, receipt.raw)
        self.reason_code = reason
        self.receipt = receipt


class InvalidProposal(ActionGateError):
    """The proposal is malformed: refused by the node (400, nothing published) or found so before sending.

    ``reason_code`` is one of the node's (``INVALID_ID``, ``MISSING_MEMBER``, ``INVALID_MEMBER``,
    ``INPUT_NOT_OBJECT``, ``UNKNOWN_MEMBER``, ``DIGEST_MISMATCH``, ``BODY_TOO_LARGE``, ...).
    """

    def __init__(self, reason_code: str, message: str, member: Optional[str] = None,
                 computed_digest: Optional[str] = None, offered_digest: Optional[str] = None,
                 status: Optional[int] = None, body: Any = None) -> None:
        super().__init__("invalid proposal: %s: %s" % (reason_code, message), status, body)
        self.reason_code = reason_code
        self.member = member
        self.computed_digest = computed_digest
        self.offered_digest = offered_digest


class NotOwned(ActionGateError):
    """The task is not owned by this tool host's org, or not known to the policy topic yet (403)."""

    def __init__(self, task_id: str, message: str, body: Any = None) -> None:
        super().__init__("task %s is not owned by this tool host's org: %s" % (task_id, message), 403, body)
        self.task_id = task_id


class NotFound(ActionGateError):
    """No action under these ids is visible to this credential (404: unknown, or another org's)."""

    def __init__(self, task_id: str, tool_call_id: str) -> None:
        super().__init__("no action %s/%s is visible to this credential" % (task_id, tool_call_id), 404)


class Timeout(ActionGateError):
    """The wait ran out first; ``receipt`` is the last state seen. Wait again, or propose the same call again."""

    def __init__(self, task_id: str, tool_call_id: str, waited: float, receipt: "Optional[Receipt]") -> None:
        super().__init__("%s/%s is still %s after %.1f s%s" % (
            task_id, tool_call_id, receipt.status if receipt else "not visible", waited,
            "; review it at %s" % receipt.review_url if receipt and receipt.review_url else ""),
            None, receipt.raw if receipt else None)
        self.receipt = receipt


class Unauthorized(ActionGateError):
    """The credential was refused (401)."""


class Unavailable(ActionGateError):
    """The node did not answer usefully after every retry; retrying later with the same ids is safe."""
