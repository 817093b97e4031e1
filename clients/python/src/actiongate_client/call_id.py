"""RFC 8785 (JCS) text of JSON values, and call ids derived from it: the same ids as the TypeScript package."""
from __future__ import annotations

import hashlib
import json
import math
from decimal import Decimal
from typing import Any, Optional, Sequence, Union


def canonical_json(value: Any, path: str = "$") -> str:
    """RFC 8785 text: members sorted by UTF-16 code units, ECMAScript number form, no whitespace.

    Raises TypeError or ValueError on what JSON cannot carry unchanged (NaN, infinities, other types).
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return _number(value, path)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(item, "%s[%d]" % (path, i)) for i, item in enumerate(value)) + "]"
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise TypeError("%s has the member name %r, which is not a string" % (path, key))
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical_json(value[k], "%s.%s" % (path, k))
                              for k in keys) + "}"
    raise TypeError("%s is a %s, which JSON cannot carry" % (path, type(value).__name__))


def _number(value: Union[int, float], path: str) -> str:
    if isinstance(value, int) and abs(value) <= 2 ** 53:
        return str(value)
    number = float(value)
    if not math.isfinite(number):
        raise ValueError("%s is %r, which JSON cannot carry" % (path, value))
    if number == 0:
        return "0"
    # ECMAScript Number::toString from the shortest digits that round-trip (which repr gives)
    sign, digits, exponent = Decimal(repr(abs(number))).as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    exponent += len(digits) - len(text)
    k, n = len(text), exponent + len(text)
    minus = "-" if number < 0 else ""
    if k <= n <= 21:
        return minus + text + "0" * (n - k)
    if 0 < n <= 21:
        return minus + text[:n] + "." + text[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * (-n) + text
    e = n - 1
    mantissa = text if k == 1 else text[0] + "." + text[1:]
    return "%s%se%s%d" % (minus, mantissa, "+" if e >= 0 else "-", abs(e))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def derive_call_id(host: str, tool: str, framework_call_id: Optional[str] = None, input: Any = None,
                   scope: Optional[Sequence[Union[str, int]]] = None) -> str:
    """A ``tool_call_id`` of this host for one call: ``ag-`` and 40 hex digits of a SHA-256.

    Derived from the host, the tool and the framework's own call id, or, without one, the call's arguments and a
    ``scope`` (a turn id, a step number: what tells two intended calls with the same arguments apart). A retry of the
    same call gives the same id, so it finds the same action and never acts twice; another host, tool, framework id,
    scope or argument gives another. The TypeScript package's ``deriveCallId`` gives the same ids.
    """
    call = {"host": host, "tool": tool}  # type: dict
    if framework_call_id is not None:
        call["call_id"] = framework_call_id
    else:
        call["arguments"] = input
        call["scope"] = list(scope or [])
    return "ag-" + sha256_hex(canonical_json(call))[:40]
