"""Exploration requirements for `submit_understanding` (SPEC §4.4) — the table, once.

| intent / risk | symbols | entry points | files | patterns | slot evidence |
| --- | --- | --- | --- | --- | --- |
| IMPLEMENT/MODIFY, LOW | 3 | 1 | 2 | 1 | – |
| IMPLEMENT/MODIFY, MEDIUM | 3 | 1 | 2 | 1 | target_feature |
| IMPLEMENT/MODIFY, HIGH | 5 | 2 | 4 | 2 | target_feature, observed_issue |
| INVESTIGATE | 1 | 0 | 1 | 0 | – |
| QUESTION | – | – | – | – | – (READY at once) |

IMPLEMENT/MODIFY must also have used find_definitions and find_references, counted
from the server's call log (a claimed use that did not happen does not count), and
must know the target feature (seed 001 v3.6: "target_feature は必須").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from .interfaces import SymbolIndex
from .model import (
    Intent,
    MissingRequirement,
    Requirement,
    Risk,
    Slot,
    SlotEvidence,
    ToolCall,
    Understanding,
)
from .phases import INDEX_TOOLS


@attrs.frozen
class ExplorationRequirements:
    symbols: int = 0
    entry_points: int = 0
    files: int = 0
    patterns: int = 0
    slot_evidence: tuple[Slot, ...] = ()
    tools: tuple[str, ...] = ()
    needs_target_feature: bool = False
    ready_at_once: bool = False


_CHANGE_TOOLS = ("find_definitions", "find_references")
_BASE = ExplorationRequirements(3, 1, 2, 1, (), _CHANGE_TOOLS, needs_target_feature=True)

REQUIREMENT_TABLE: dict[tuple[Intent, Risk | None], ExplorationRequirements] = {
    **{(i, Risk.LOW): _BASE for i in (Intent.IMPLEMENT, Intent.MODIFY)},
    **{
        (i, Risk.MEDIUM): attrs.evolve(_BASE, slot_evidence=(Slot.TARGET_FEATURE,))
        for i in (Intent.IMPLEMENT, Intent.MODIFY)
    },
    **{
        (i, Risk.HIGH): attrs.evolve(
            _BASE,
            symbols=5,
            entry_points=2,
            files=4,
            patterns=2,
            slot_evidence=(Slot.TARGET_FEATURE, Slot.OBSERVED_ISSUE),
        )
        for i in (Intent.IMPLEMENT, Intent.MODIFY)
    },
    (Intent.INVESTIGATE, None): ExplorationRequirements(1, 0, 1, 0),
    (Intent.QUESTION, None): ExplorationRequirements(ready_at_once=True),
}


def requirements_for(intent: Intent, risk: Risk) -> ExplorationRequirements:
    return REQUIREMENT_TABLE.get((intent, risk)) or REQUIREMENT_TABLE[(intent, None)]


# ---- consistency (checked before the table) ----------------------------------------


def consistency_problems(
    symbols: Sequence[str],
    entry_points: Sequence[str],
    patterns: Sequence[str],
    files: Sequence[str],
    known_symbols: Iterable[str] = (),
) -> list[str]:
    """Seed 002 `validate_exploration_consistency`: entry points are among the
    symbols (this or a kept earlier submission), nothing is listed twice, patterns
    come with the files they were seen in."""
    problems = []
    all_symbols = {*symbols, *known_symbols}
    stray = [e for e in entry_points if e not in all_symbols]
    if stray:
        problems.append(
            f"entry_points {stray} are not among symbols_identified: every entry point is "
            "also a symbol you identified"
        )
    for name, values in (
        ("symbols_identified", symbols),
        ("entry_points", entry_points),
        ("existing_patterns", patterns),
        ("files_analyzed", files),
    ):
        dupes = sorted(v for v, n in Counter(values).items() if n > 1)
        if dupes:
            problems.append(f"{name} lists {dupes} more than once")
    if patterns and not files:
        problems.append(
            "existing_patterns need files_analyzed: name the files the patterns were seen in"
        )
    return problems


def unknown_symbols(symbols: Iterable[str], index: SymbolIndex) -> list[str]:
    """Symbols the index does not define (SPEC §4.4: symbols must be FACTs)."""
    return [s for s in symbols if not index.lookup(s)]


# ---- evidence from the call log -----------------------------------------------------


def counted_calls(calls: Iterable[ToolCall], since_seq: int = 0) -> list[ToolCall]:
    """Calls that are evidence: succeeded, allowed in their phase, after a reset."""
    return [c for c in calls if c.counts and c.seq > since_seq]


def tools_used(calls: Iterable[ToolCall]) -> set[str]:
    return {c.tool for c in calls}


def find_call(calls: Sequence[ToolCall], tool: str, params: Mapping[str, Any]) -> ToolCall | None:
    """The latest logged call of `tool` whose arguments include every claimed param."""
    for call in reversed(calls):
        if call.tool == tool and all(call.args.get(k) == v for k, v in params.items()):
            return call
    return None


def cite_call(claim: Mapping[str, Any], calls: Sequence[ToolCall]) -> SlotEvidence | str:
    """A claimed `{tool, params, result_summary}` as evidence, or why it is not:
    only a call of an index tool that is in this session's log counts."""
    tool = claim.get("tool")
    params = claim.get("params") or {}
    if tool not in INDEX_TOOLS:
        return f"evidence must come from an index tool ({sorted(INDEX_TOOLS)}), got {tool!r}"
    if not isinstance(params, Mapping):
        return "evidence params must be an object of the call's arguments"
    call = find_call(calls, tool, params)
    if call is None:
        return (
            f"no {tool} call with {dict(params)} in this session's log: run the tool, then "
            "cite it (claimed tool use does not count)"
        )
    summary = str(claim.get("result_summary") or "")
    return SlotEvidence(tool, dict(call.args), summary, call.timestamp, call.seq)


def verify_slot_evidence(
    claims: Mapping[Slot, Mapping[str, Any]], calls: Sequence[ToolCall]
) -> tuple[dict[Slot, SlotEvidence], list[dict[str, Any]]]:
    accepted: dict[Slot, SlotEvidence] = {}
    refused: list[dict[str, Any]] = []
    for slot, claim in claims.items():
        cited = cite_call(claim, calls)
        if isinstance(cited, SlotEvidence):
            accepted[slot] = cited
        else:
            refused.append({"slot": slot.value, "tool": claim.get("tool"), "error": cited})
    return accepted, refused


# ---- the table applied --------------------------------------------------------------

_COUNT_HINTS = {
    Requirement.SYMBOLS: "find more with find_definitions / find_references / get_symbols",
    Requirement.ENTRY_POINTS: "name the routes, controllers, commands or public methods the "
    "change goes through (they must also be in symbols_identified)",
    Requirement.FILES: "read the files involved (analyze_structure, get_function_at_line)",
    Requirement.PATTERNS: "find existing code that does something similar and name the pattern",
}


def evaluate(
    req: ExplorationRequirements,
    und: Understanding,
    used_tools: set[str],
    evidenced_slots: Iterable[Slot],
    known_slots: Iterable[Slot],
) -> tuple[MissingRequirement, ...]:
    """Everything `und` lacks for `req`; empty means the table is satisfied."""
    if req.ready_at_once:
        return ()
    missing: list[MissingRequirement] = []
    for kind, have, need in (
        (Requirement.SYMBOLS, len(und.symbols), req.symbols),
        (Requirement.ENTRY_POINTS, len(und.entry_points), req.entry_points),
        (Requirement.FILES, len(und.files), req.files),
        (Requirement.PATTERNS, len(und.patterns), req.patterns),
    ):
        if have < need:
            missing.append(
                MissingRequirement(
                    kind, f"{kind.value}: {have} of {need}; {_COUNT_HINTS[kind]}", have, need
                )
            )
    for tool in req.tools:
        if tool not in used_tools:
            missing.append(
                MissingRequirement(
                    Requirement.TOOLS,
                    f"{tool} has not been used in this session; the server counts its own "
                    "call log, so run it (claims do not count)",
                    subject=tool,
                )
            )
    known = set(known_slots)
    if req.needs_target_feature and Slot.TARGET_FEATURE not in known:
        missing.append(
            MissingRequirement(
                Requirement.TARGET_FEATURE,
                "target_feature is unknown: find the feature in the code and give it with "
                "the call that showed it (in EXPLORATION: resolved_frame + slot_evidence of "
                "submit_understanding; in SEMANTIC: a kind 'slot' hypothesis)",
                subject=Slot.TARGET_FEATURE.value,
            )
        )
    evidenced = set(evidenced_slots)
    for slot in req.slot_evidence:
        if slot not in evidenced or slot not in known:
            missing.append(
                MissingRequirement(
                    Requirement.SLOT_EVIDENCE,
                    f"slot_evidence for {slot.value}: give its value and cite the tool "
                    "call of this session that found it ({tool, params, result_summary}); "
                    "in EXPLORATION through submit_understanding (resolved_frame, "
                    "slot_evidence), in SEMANTIC as a kind 'slot' hypothesis",
                    subject=slot.value,
                )
            )
    return tuple(missing)
