"""Rules about a whole session: its evaluation, the single gate into READY, what it
explored, and how it is described to the agent.

Pure functions over a `Session` and its call log; the engine loads, applies and saves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from . import phases
from .codec import to_json
from .interfaces import SimilarityThresholds
from .model import (
    BlockedWrite,
    FindingKind,
    Intent,
    MissingRequirement,
    Phase,
    QueryFrame,
    RelevanceVerdict,
    Requirement,
    Risk,
    Session,
    Slot,
    SlotEvidence,
    Source,
    Tier,
    ToolCall,
    Understanding,
)
from .relevance import best_tier, judge, stronger, symbol_similarity, verdict_json
from .requirements import evaluate, requirements_for, tools_used
from .writes import explored_dirs

Similarity = Callable[[str, str], float]


@attrs.frozen
class Evaluation:
    missing: tuple[MissingRequirement, ...]
    verdicts: tuple[RelevanceVerdict, ...]
    force_high: bool  # the best symbol is only grey (SPEC §4.3, §4.5)

    def confidences(self) -> list[dict[str, Any]]:
        """SPEC §4.4: each symbol's similarity to target_feature, returned to the agent."""
        return [
            {"symbol": v.symbol, "confidence": v.similarity, "tier": v.tier.value}
            for v in self.verdicts
        ]


def evaluate_session(
    session: Session,
    calls: Sequence[ToolCall],
    similarity: Similarity,
    thresholds: SimilarityThresholds,
) -> Evaluation:
    """The requirement table (SPEC §4.4) and the NL→symbol mapping (§4.5) on what the
    session has established, with tool use from its counted `calls`.

    The mapping is judged by the best symbol: none at least grey → `nl_symbol_mapping`
    is missing; the best only grey → the risk is HIGH before the table is read. An
    approval from `validate_symbol_relevance` counts when it ranks higher.
    """
    und = session.understanding or Understanding()
    feature = session.frame.value(Slot.TARGET_FEATURE)
    verdicts: list[RelevanceVerdict] = []
    mapping: list[MissingRequirement] = []
    if feature and session.intent is not Intent.QUESTION and und.symbols:
        verdicts = [
            stronger(
                judge(feature, s, symbol_similarity(similarity, feature, s), thresholds),
                session.relevance.get(s),
            )
            for s in und.symbols
        ]
        if best_tier(verdicts) is Tier.REJECTED:
            mapping.append(
                MissingRequirement(
                    Requirement.NL_SYMBOL_MAPPING,
                    f"nl_symbol_mapping: {feature!r} has no matching symbol in "
                    f"{list(und.symbols)}; find the symbols that implement it "
                    "(validate_symbol_relevance explains each)",
                    subject=feature,
                )
            )
    force_high = best_tier(verdicts) is Tier.GREY
    risk = Risk.HIGH if force_high else session.risk
    missing = evaluate(
        requirements_for(session.intent, risk),
        und,
        tools_used(calls),
        [Slot(s) for s in session.frame.slot_evidence],
        [s for s in Slot if session.frame.value(s)],
    )
    return Evaluation((*missing, *mapping), tuple(verdicts), force_high)


def settle(
    session: Session, missing: tuple[MissingRequirement, ...]
) -> tuple[Phase, tuple[MissingRequirement, ...]]:
    """The single gate into READY (SPEC §4.4, §4.6): the requirements hold and no
    HYPOTHESIS is left; unmet requirements lead to SEMANTIC, open hypotheses to
    VERIFICATION."""
    if missing:
        return Phase.SEMANTIC, missing
    open_ = session.open_hypotheses()
    if open_:
        return Phase.VERIFICATION, tuple(
            MissingRequirement(
                Requirement.HYPOTHESES,
                f"hypothesis {f.id} ({f.kind.value} {f.subject!r}) is still HYPOTHESIS: "
                "verify it with the exploration tools and submit_verification",
                subject=f.id,
            )
            for f in open_
        )
    return Phase.READY, ()


SLOT_KINDS = (Requirement.SLOT_EVIDENCE, Requirement.TARGET_FEATURE)


def next_step(session: Session) -> str:
    """The one next step, naming first a tool the session's phase allows (issue 14: a
    step that names a refused tool makes the agent loop)."""
    missing = session.missing
    if session.phase is Phase.SEMANTIC and missing and all(
        m.kind is Requirement.TOOLS for m in missing
    ):
        return (
            "only tool use is missing: revert_to_exploration(keep_results=true) and run "
            + ", ".join(m.subject or "" for m in missing)
        )
    if session.phase is Phase.SEMANTIC and any(m.kind in SLOT_KINDS for m in missing):
        slots = sorted({m.subject or "" for m in missing if m.kind in SLOT_KINDS})
        return (
            f"use semantic_search to find {', '.join(slots)} in the code, then call "
            "submit_semantic with a hypothesis {kind: 'slot', subject: <slot name>, value, "
            "evidence} per missing slot (and any others); VERIFICATION then confirms them "
            "with the call that showed them. Or revert_to_exploration to explore again"
        )
    return phases.NEXT_STEP[session.phase]


def explored(
    session: Session, calls: Iterable[ToolCall], is_doc: Callable[[str], bool] = lambda _: False
) -> tuple[set[str], frozenset[str]]:
    """Files the session explored (SPEC §4.8: submitted, returned by its counted tool
    calls, read by the agent itself, confirmed in VERIFICATION, added) and the
    directories that admits. A documentation file (`is_doc`) is writable anyway and
    never makes its directory explored: one README read must not open the root."""
    files = set(session.understanding.files if session.understanding else ())
    for call in calls:
        files.update(call.result_files)
    files.update(session.seen_files)
    files.update(p for p in session.explored_extra if not p.endswith("/"))
    files.update(
        f.subject
        for f in session.findings
        if f.kind is FindingKind.FILE and f.status is Source.FACT
    )
    added_dirs = [p.rstrip("/") for p in session.explored_extra if p.endswith("/")]
    return files, explored_dirs((f for f in files if not is_doc(f)), added_dirs)


def rejected_in_use(
    session: Session, symbols: Iterable[str], files: Iterable[str], patterns: Iterable[str]
) -> list[str]:
    """What a submission takes from hypotheses VERIFICATION rejected (SPEC §4.6)."""
    refuted = {(f.kind, f.subject) for f in session.rejected_findings()}
    used = [
        s
        for s in dict.fromkeys(symbols)
        if (FindingKind.SYMBOL, s) in refuted or (FindingKind.ENTRY_POINT, s) in refuted
    ]
    used += [f for f in files if (FindingKind.FILE, f) in refuted]
    used += [p for p in patterns if (FindingKind.PATTERN, p) in refuted]
    return used


def with_resolved_slots(
    frame: QueryFrame, resolved: Mapping[Slot, str], evidence: Mapping[Slot, SlotEvidence]
) -> tuple[QueryFrame, list[dict[str, Any]]]:
    """Slots exploration resolved (seed 001 `resolved_frame`) are taken only with
    evidence of a real call (given now or earlier); the rest are listed as errors."""
    slot_ev = {**frame.slot_evidence, **{s.value: e for s, e in evidence.items()}}
    new_resolved = dict(frame.resolved)
    source = dict(frame.slot_source)
    errors: list[dict[str, Any]] = []
    for slot, value in resolved.items():
        if slot.value in slot_ev:
            new_resolved[slot.value] = value.strip()
            source[slot.value] = Source.FACT
        else:
            errors.append(
                {"slot": slot.value, "value": value,
                 "error": "a resolved slot needs slot_evidence citing the call that found it"}
            )
    frame = attrs.evolve(frame, resolved=new_resolved, slot_source=source, slot_evidence=slot_ev)
    return frame, errors


def required_phases(intent: Intent) -> list[str]:
    if intent is Intent.QUESTION:
        return [Phase.EXPLORATION.value, Phase.READY.value]
    return [p.value for p in Phase]


def frame_json(frame: QueryFrame) -> dict[str, Any]:
    return {**to_json(frame), "missing_slots": [s.value for s in frame.missing_slots()]}


def describe(
    session: Session,
    calls: Sequence[ToolCall],
    counted: Sequence[ToolCall],
    blocked: Sequence[BlockedWrite],
    is_doc: Callable[[str], bool] = lambda _: False,
) -> dict[str, Any]:
    """Everything about a session, as `get_session_status` returns it (SPEC §4.1)."""
    files, dirs = explored(session, counted, is_doc)
    return {
        "session_id": session.id,
        "status": session.status.value,
        "intent": session.intent.value,
        "query": session.query,
        "phase": session.phase.value,
        "risk": session.risk.value,
        "base_risk": session.base_risk.value,
        "risk_forced_high": session.risk_forced_high,
        "query_frame": frame_json(session.frame),
        "frame_submitted": session.frame_submitted,
        "plan": to_json(session.plan),
        "requirements": to_json(requirements_for(session.intent, session.risk)),
        "missing_requirements": [to_json(m) for m in session.missing],
        "understanding": to_json(session.understanding),
        "findings": [to_json(f) for f in session.findings],
        "relevance": [verdict_json(v) for v in session.relevance.values()],
        "tools_used": sorted(tools_used(counted)),
        "tool_calls": {"logged": len(calls), "counted": len(counted)},
        "explored_files": sorted(files),
        "explored_directories": sorted(d or "." for d in dirs),
        "blocked_writes": [to_json(b) for b in blocked],
        "allowed_tools": [
            t for t in phases.known_tools() if phases.check_tool_allowed(session.phase, t) is None
        ],
        "semantic_collections": list(phases.semantic_collections(session.phase)),
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "next_step": next_step(session),
    }
