"""actiongate-client: a tool host's client of actiongate's HTTP API, standard library only.

Propose an AI agent's tool call, wait for the human's signed approval and the settled receipt::

    from actiongate_client import ActionGateClient
    client = ActionGateClient()            # ACTIONGATE_URL, ACTIONGATE_TOKEN
    receipt = client.propose_and_wait({...}, on_proposed=lambda r: print(r.review_url))
"""
from .call_id import canonical_json, derive_call_id
from .client import ID_PATTERN, SUMMARY_MAX_CHARS, ActionGateClient, Proposal
from .errors import (ActionGateError, IdentityConflict, InvalidProposal, NotFound, NotOwned, Rejected, Timeout,
                     Unauthorized, Unavailable)
from .receipt import TERMINAL, Receipt

__all__ = ["ActionGateClient", "Proposal", "Receipt", "TERMINAL", "ID_PATTERN", "SUMMARY_MAX_CHARS", "canonical_json",
           "derive_call_id",
           "ActionGateError", "IdentityConflict", "InvalidProposal", "NotFound", "NotOwned", "Rejected", "Timeout",
           "Unauthorized", "Unavailable"]
__version__ = "0.1.0"
