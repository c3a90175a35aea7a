"""Risk and routing (SPEC §4.3, seed 002 `assess_risk_level`, seed 000 proposal 1).

No regex classifier and no synonym dictionary (both removed in v3.7): the risk and
the plan depend only on the intent and on which slots the request filled.
"""

from __future__ import annotations

from collections.abc import Collection

from .model import Intent, Risk, RoutingPlan, Slot

# Missing slot → tools that fill it (SPEC §4.3).
SLOT_TOOLS: dict[Slot, tuple[str, ...]] = {
    Slot.TARGET_FEATURE: ("find_definitions", "get_symbols", "query"),
    Slot.TRIGGER_CONDITION: ("search_text", "find_definitions"),
    Slot.OBSERVED_ISSUE: ("search_text", "query"),
    Slot.DESIRED_ACTION: ("find_references", "analyze_structure"),
}

# Intents that explore rather than change get an overview tool.
EXPLORE_LIKE = frozenset({Intent.INVESTIGATE, Intent.QUESTION})
OVERVIEW_TOOL = "analyze_structure"

# When every slot is filled the plan is the requirement table's tools (seed 001,
# 詳細な依頼: find_definitions, find_references).
FULL_FRAME_TOOLS = ("find_definitions", "find_references")

_T, _C = Slot.TARGET_FEATURE, Slot.TRIGGER_CONDITION
_O, _D = Slot.OBSERVED_ISSUE, Slot.DESIRED_ACTION
_CHANGE_ORDER = (_T, _O, _C, _D)
_EXPLORE_ORDER = (_T, _C, _O, _D)


def assess_risk(intent: Intent, filled: Collection[Slot]) -> Risk:
    """The rules in SPEC order; `filled` are the slots the request itself states.

    1. MODIFY without `observed_issue` → HIGH (a fix with no stated problem);
    2. all four slots filled → LOW;
    3. IMPLEMENT → MEDIUM;
    4. INVESTIGATE or QUESTION → LOW.
    A MODIFY that states its issue but not every slot is left open by the list; it is
    MEDIUM here, like IMPLEMENT: not vague enough for HIGH, not complete enough for LOW.
    A grey-zone relevance result later forces HIGH (`Session.risk`).
    """
    if intent is Intent.MODIFY and Slot.OBSERVED_ISSUE not in filled:
        return Risk.HIGH
    if all(s in filled for s in Slot):
        return Risk.LOW
    if intent in (Intent.IMPLEMENT, Intent.MODIFY):
        return Risk.MEDIUM
    return Risk.LOW


def priority_slots(intent: Intent, missing: Collection[Slot]) -> tuple[Slot, ...]:
    """Seed 001 `_prioritize_missing`: for a change the problem comes right after the
    target; for exploration the trigger does."""
    order = _CHANGE_ORDER if intent in (Intent.IMPLEMENT, Intent.MODIFY) else _EXPLORE_ORDER
    return tuple(s for s in order if s in missing)


def plan_tools(intent: Intent, missing: Collection[Slot], limit: int = 4) -> tuple[str, ...]:
    """Tools for the missing slots in priority order, de-duplicated, at most `limit`;
    explore-like intents always keep the overview tool."""
    tools = [t for s in priority_slots(intent, missing) for t in SLOT_TOOLS[s]]
    if not tools:
        tools = list(FULL_FRAME_TOOLS)
    unique = list(dict.fromkeys(tools))[:limit]
    if intent in EXPLORE_LIKE and OVERVIEW_TOOL not in unique:
        unique = [*unique[: limit - 1], OVERVIEW_TOOL]
    return tuple(unique)


def route(intent: Intent, filled: Collection[Slot], limit: int = 4) -> RoutingPlan:
    missing = tuple(s for s in Slot if s not in filled)
    return RoutingPlan(
        tools=plan_tools(intent, missing, limit),
        priority_slots=priority_slots(intent, missing),
        missing_slots=missing,
        risk=assess_risk(intent, filled),
    )
