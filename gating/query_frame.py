"""QueryFrame: the slot extraction prompt, quote validation and investigation guidance.

SPEC §4.2, seed 001 ("引用ベースの検証", "調査指示の自動生成"). The model extracts the
slots; the server checks each one against the raw request:

1. the slot's `quote` must occur in the request, after NFKC and whitespace
   normalisation on both sides (full-width letters, line breaks and doubled spaces
   do not make a faithful quote fail);
2. the `value` must be consistent with its quote: contained in it (case-folded), or
   embedding similarity ≥ the backend's `consistency` threshold (so "login" may
   summarise "ログイン機能").

A slot failing either is a hallucination: rejected, left missing, and listed in
`validation_errors`. Every missing slot gets `investigation_guidance`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .errors import GatingError
from .interfaces import SimilarityThresholds
from .model import QueryFrame, Slot, Source

_WS = re.compile(r"\s+")

Similarity = Callable[[str, str], float]


def normalize(text: str) -> str:
    """NFKC, then every whitespace run as one space, trimmed."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def quote_in_query(quote: str, raw_query: str) -> bool:
    q = normalize(quote)
    return bool(q) and q in normalize(raw_query)


@attrs.frozen
class SlotRejection:
    slot: Slot
    value: str | None
    quote: str | None
    error: str


@attrs.frozen
class FrameValidation:
    accepted: dict[Slot, tuple[str, str]]  # slot → (value, quote)
    cleared: tuple[Slot, ...]  # slots the model explicitly set to null
    rejected: tuple[SlotRejection, ...]


def parse_slots(slots: Any) -> dict[Slot, tuple[str | None, str | None] | None]:
    """`{slot: {"value", "quote"} | null}` with exact key checks; bad shapes raise."""
    if not isinstance(slots, Mapping):
        raise GatingError(
            "invalid_params",
            "slots must be an object {slot: {value, quote} | null}",
            got=type(slots).__name__,
        )
    valid = [s.value for s in Slot]
    unknown = [k for k in slots if k not in valid]
    if unknown:
        raise GatingError(
            "invalid_params",
            f"unknown slot(s) {unknown}; the slots are {valid}",
            unknown_slots=unknown,
        )
    parsed: dict[Slot, tuple[str | None, str | None] | None] = {}
    for key, data in slots.items():
        slot = Slot(key)
        if data is None:
            parsed[slot] = None
            continue
        if not isinstance(data, Mapping):
            raise GatingError(
                "invalid_params", f"slot {key!r} must be an object {{value, quote}} or null"
            )
        extra = sorted(set(data) - {"value", "quote"})
        if extra:
            raise GatingError(
                "invalid_params",
                f"slot {key!r} has unknown key(s) {extra}; only 'value' and 'quote' are read",
            )
        value, quote = data.get("value"), data.get("quote")
        for name, v in (("value", value), ("quote", quote)):
            if v is not None and not isinstance(v, str):
                raise GatingError(
                    "invalid_params", f"slot {key!r}: {name} must be a string, got {v!r}"
                )
        parsed[slot] = (value, quote)
    return parsed


def validate_frame(
    parsed: Mapping[Slot, tuple[str | None, str | None] | None],
    raw_query: str,
    similarity: Similarity,
    thresholds: SimilarityThresholds,
) -> FrameValidation:
    accepted: dict[Slot, tuple[str, str]] = {}
    cleared: list[Slot] = []
    rejected: list[SlotRejection] = []
    for slot, data in parsed.items():
        if data is None:
            cleared.append(slot)
            continue
        value, quote = (data[0] or "").strip(), (data[1] or "").strip()
        error = _slot_error(value, quote, raw_query, similarity, thresholds)
        if error:
            rejected.append(SlotRejection(slot, data[0], data[1], error))
        else:
            accepted[slot] = (value, quote)
    return FrameValidation(accepted, tuple(cleared), tuple(rejected))


def _slot_error(
    value: str,
    quote: str,
    raw_query: str,
    similarity: Similarity,
    thresholds: SimilarityThresholds,
) -> str | None:
    if not value:
        return "value is empty: give the slot's value, or null when the request does not say"
    if not quote:
        return "quote is missing: copy the words of the request that state this slot"
    if not quote_in_query(quote, raw_query):
        return (
            "quote not found in the request: it must be copied from the request verbatim "
            "(hallucinated slots are rejected)"
        )
    v, q = normalize(value).casefold(), normalize(quote).casefold()
    if v in q:
        return None
    score = similarity(value, quote)
    if score >= thresholds.consistency:
        return None
    return (
        f"value is not consistent with its quote (not contained in it, similarity "
        f"{score:.2f} < {thresholds.consistency:.2f}): state what the quote says"
    )


# ---- guidance (seed 001, INVESTIGATION_HINTS) ----------------------------------------

INVESTIGATION_HINTS: dict[Slot, dict[str, Any]] = {
    Slot.TARGET_FEATURE: {
        "hint": "The feature or module the request is about is not identified.",
        "action": "Use get_symbols or query to get an overview of the code that may be "
        "involved, and find_definitions for candidate names.",
        "tools": ["find_definitions", "get_symbols", "query"],
    },
    Slot.OBSERVED_ISSUE: {
        "hint": "The current problem that motivates the change is unknown.",
        "action": "Use search_text for error messages, log lines and failing conditions.",
        "tools": ["search_text", "query"],
    },
    Slot.TRIGGER_CONDITION: {
        "hint": "The condition under which the problem occurs is not identified.",
        "action": "Look for the if statements, validation rules and exception handling "
        "that decide the behaviour.",
        "tools": ["search_text", "find_definitions"],
    },
    Slot.DESIRED_ACTION: {
        "hint": "The expected change or behaviour is unknown.",
        "action": "Use find_references to see what the change would affect.",
        "tools": ["find_references", "analyze_structure"],
    },
}


def investigation_guidance(missing: tuple[Slot, ...]) -> dict[str, Any]:
    hints = [
        {"slot": s.value, **INVESTIGATION_HINTS[s], "tools": list(INVESTIGATION_HINTS[s]["tools"])}
        for s in missing
    ]
    tools = [t for h in hints for t in h["tools"]]
    return {
        "missing_slots": [s.value for s in missing],
        "hints": hints,
        "recommended_tools": list(dict.fromkeys(tools)),
    }


# ---- extraction prompt and schema (seed 001, "LLM出力スキーマ") -------------------------

SLOT_DESCRIPTIONS: dict[Slot, str] = {
    Slot.TARGET_FEATURE: "the feature, class or module the request is about",
    Slot.TRIGGER_CONDITION: "when or under which input the problem happens",
    Slot.OBSERVED_ISSUE: "the problem that is observed (error, wrong behaviour, slowness)",
    Slot.DESIRED_ACTION: "what should be changed or added",
}

SLOT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {s.value: {"$ref": "#/$defs/slot_data"} for s in Slot},
    "$defs": {
        "slot_data": {
            "type": ["object", "null"],
            "additionalProperties": False,
            "properties": {
                "value": {"type": "string", "description": "the slot's value, normalised"},
                "quote": {
                    "type": "string",
                    "description": "the words of the request that state it, copied verbatim",
                },
            },
            "required": ["value", "quote"],
        }
    },
}


def extraction_prompt(query: str) -> str:
    lines = "\n".join(f"- {s.value}: {SLOT_DESCRIPTIONS[s]}" for s in Slot)
    return (
        "Extract the slots of this request and call set_query_frame with them.\n"
        "Rules:\n"
        "- Extract only what the request states; do not guess or complete.\n"
        "- Every slot is {\"value\": ..., \"quote\": ...}; the quote is copied verbatim "
        "from the request. A quote that is not in the request is rejected.\n"
        "- A slot the request does not state is null; exploration fills it later.\n"
        f"Slots:\n{lines}\n"
        f"Request: {query}"
    )


def with_request_slots(frame: QueryFrame, result: FrameValidation) -> QueryFrame:
    """The frame after a `set_query_frame`: accepted slots become FACT with their
    quote; rejected and null slots are missing again (slots given are replaced, slots
    not given are kept)."""
    values = {s.value: getattr(frame, s.value) for s in Slot}
    quotes = dict(frame.quotes)
    source = dict(frame.slot_source)
    for slot, (value, quote) in result.accepted.items():
        values[slot.value], quotes[slot.value] = value, quote
        source[slot.value] = Source.FACT
    for slot in (*result.cleared, *(r.slot for r in result.rejected)):
        values[slot.value] = None
        quotes.pop(slot.value, None)
        if slot.value not in frame.resolved:
            source.pop(slot.value, None)
    return attrs.evolve(frame, **values, quotes=quotes, slot_source=source)
