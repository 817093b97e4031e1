"""What a node answers about an action: its redacted state (never an input body)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Union

TERMINAL = frozenset({"SUCCEEDED", "FAILED", "REJECTED", "DENIED", "EXPIRED", "CANCELLED", "NOT_APPLIED"})
"""Nothing further happens to an action in these states on its own."""


@dataclass(frozen=True)
class Receipt:
    """The answer of ``POST /v1/proposals`` or of ``GET /v1/actions/...``.

    ``attempts`` is the number of attempts in a proposal's answer and their list in an action's state
    (``attempt_count`` reads either); ``review_url`` is in a proposal's ``WAITING_APPROVAL`` answer. ``raw`` is the
    whole answer.
    """

    task_id: str
    tool_call_id: str
    status: str
    reason_code: Optional[str] = None
    reason: Optional[str] = None
    review_url: Optional[str] = None
    input_digest: Optional[str] = None
    action_digest: Optional[str] = None
    action_url: Optional[str] = None
    decision_id: Optional[str] = None
    provider_receipt_id: Optional[str] = None
    attempts: Union[int, List[Dict[str, Any]], None] = None
    updated_at: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, json: Mapping[str, Any]) -> "Receipt":
        known = {name: json.get(name) for name in cls.__dataclass_fields__ if name != "raw"}
        return cls(raw=dict(json), **known)

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def attempt_count(self) -> int:
        if isinstance(self.attempts, list):
            return len(self.attempts)
        return self.attempts or 0
