"""Checks for request parameters as they arrive from JSON (MCP tool calls, LSP params).

Each raises `GatingError("invalid_params", …)` naming the parameter and what was
expected, so a bad call is answered with a message the agent can act on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import GatingError
from .model import Intent, Outcome, Slot
from .phases import TOOL_PHASES

MAX_QUERY = 20_000
MAX_ITEMS = 500


def _bad(name: str, expected: str, value: Any) -> GatingError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return GatingError("invalid_params", f"{name} must be {expected}, got {shown}")


def text(name: str, value: Any, max_len: int = MAX_QUERY) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(name, "a non-empty string", value)
    if len(value) > max_len:
        raise GatingError(
            "invalid_params", f"{name} is too long ({len(value)} > {max_len} characters)"
        )
    return value.strip()


def str_list(name: str, value: Any, *, non_empty: bool = False) -> list[str]:
    if value is None and not non_empty:
        return []
    if not isinstance(value, list) or any(not isinstance(v, str) or not v.strip() for v in value):
        raise _bad(name, "a list of non-empty strings", value)
    if non_empty and not value:
        raise GatingError("invalid_params", f"{name} must not be empty")
    if len(value) > MAX_ITEMS:
        raise GatingError("invalid_params", f"{name} has {len(value)} items; at most {MAX_ITEMS}")
    return [v.strip() for v in value]


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _bad(name, "true or false", value)
    return value


def mapping(name: str, value: Any, *, optional: bool = True) -> Mapping[str, Any]:
    if value is None and optional:
        return {}
    if not isinstance(value, Mapping) or any(not isinstance(k, str) for k in value):
        raise _bad(name, "an object", value)
    return value


def count(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _bad(name, f"an integer from {low} to {high}", value)
    return value


# ---- the request-specific shapes -------------------------------------------------------


def intent(value: Any) -> Intent:
    try:
        return Intent(value.upper()) if isinstance(value, str) else Intent(value)
    except ValueError:
        raise GatingError(
            "invalid_params",
            f"intent {value!r} is not one of {[i.value for i in Intent]} (ADD, DELETE and "
            "EXPLORE are the superseded v3.7 names: use IMPLEMENT, MODIFY or INVESTIGATE)",
        ) from None


def outcome(value: Any) -> Outcome:
    try:
        return Outcome(value.lower()) if isinstance(value, str) else Outcome(value)
    except ValueError:
        raise GatingError(
            "invalid_params", f"outcome {value!r} is not one of {[o.value for o in Outcome]}"
        ) from None


def tool_name(value: Any) -> str:
    name = text("tool", value, 100)
    if name not in TOOL_PHASES:
        raise GatingError(
            "unknown_tool", f"unknown tool {name!r}; the tools are {list(TOOL_PHASES)}"
        )
    return name


def slot_map(name: str, value: Any, kind: type) -> dict[Slot, Any]:
    """`{slot: value}` keyed by the four slot names; null entries are skipped."""
    valid = [s.value for s in Slot]
    out: dict[Slot, Any] = {}
    for key, v in mapping(name, value).items():
        if key not in valid:
            raise GatingError("invalid_params", f"{name}: unknown slot {key!r}; slots are {valid}")
        if v is None:
            continue
        if not isinstance(v, kind) or (isinstance(v, str) and not v.strip()):
            expected = (
                "a non-empty string" if kind is str else "an object {tool, params, result_summary}"
            )
            raise GatingError("invalid_params", f"{name}.{key} must be {expected}")
        out[Slot(key)] = v
    return out


def code_evidence(value: Any, symbols: Sequence[str]) -> dict[str, str]:
    """One text for all symbols, or one per symbol; required either way (SPEC §4.5)."""
    message = (
        "code_evidence is required: a relevance judgement without evidence is invalid. Give "
        "the code that ties the symbols to the feature (method names, comments, routes), as "
        "one text or as {symbol: text}"
    )
    if isinstance(value, str) and value.strip():
        return {s: value.strip() for s in symbols}
    if isinstance(value, Mapping):
        missing = [s for s in symbols if not isinstance(value.get(s), str) or not value[s].strip()]
        if not missing:
            return {s: value[s].strip() for s in symbols}
        raise GatingError(
            "code_evidence_required", f"{message}; missing for {missing}", missing_for=missing
        )
    raise GatingError("code_evidence_required", message)
