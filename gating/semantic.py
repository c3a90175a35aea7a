"""SEMANTIC and VERIFICATION (SPEC §4.6, seed 001 "slot_source による FACT/HYPOTHESIS").

SEMANTIC exists for what fact-finding could not supply. `submit_semantic` must give a
reason that fits what is missing (seed 002 `validate_semantic_reason`); everything it
brings enters as HYPOTHESIS. `submit_verification` settles each hypothesis: a symbol
becomes FACT only if the index defines it, a file only if it exists, a slot or a
pattern only with a tool call of this session as evidence; everything refuted is kept
as REJECTED so it can never be used. READY needs no HYPOTHESIS left (the engine's
single READY gate checks `Session.open_hypotheses`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import attrs

from .errors import GatingError
from .interfaces import SymbolIndex
from .model import (
    Finding,
    FindingKind,
    MappedSymbol,
    MissingRequirement,
    QueryFrame,
    Requirement,
    Slot,
    SlotEvidence,
    Source,
    ToolCall,
    Understanding,
)
from .requirements import cite_call


class SemanticReason(StrEnum):
    NO_DEFINITION_FOUND = "no_definition_found"
    NO_REFERENCE_FOUND = "no_reference_found"
    NO_SIMILAR_IMPLEMENTATION = "no_similar_implementation"
    CONTEXT_FRAGMENTED = "context_fragmented"
    ARCHITECTURE_UNKNOWN = "architecture_unknown"


R = SemanticReason
REASONS_FOR: dict[Requirement, frozenset[SemanticReason]] = {
    Requirement.SYMBOLS: frozenset({R.NO_DEFINITION_FOUND, R.ARCHITECTURE_UNKNOWN}),
    Requirement.ENTRY_POINTS: frozenset({R.NO_DEFINITION_FOUND, R.NO_REFERENCE_FOUND}),
    Requirement.PATTERNS: frozenset({R.NO_SIMILAR_IMPLEMENTATION, R.ARCHITECTURE_UNKNOWN}),
    Requirement.FILES: frozenset({R.CONTEXT_FRAGMENTED, R.ARCHITECTURE_UNKNOWN}),
    # Not in the SPEC's four lines; seed 001 `should_allow_devrag` valid_reasons.
    Requirement.TARGET_FEATURE: frozenset({R.NO_DEFINITION_FOUND, R.ARCHITECTURE_UNKNOWN}),
    Requirement.NL_SYMBOL_MAPPING: frozenset({R.NO_DEFINITION_FOUND, R.ARCHITECTURE_UNKNOWN}),
}
SLOT_REASONS: dict[str, frozenset[SemanticReason]] = {
    Slot.TARGET_FEATURE.value: frozenset({R.NO_DEFINITION_FOUND, R.ARCHITECTURE_UNKNOWN}),
    Slot.OBSERVED_ISSUE.value: frozenset({R.NO_SIMILAR_IMPLEMENTATION, R.CONTEXT_FRAGMENTED}),
}


def reasons_for(item: MissingRequirement) -> frozenset[SemanticReason]:
    if item.kind is Requirement.SLOT_EVIDENCE:
        return SLOT_REASONS.get(item.subject or "", frozenset(SemanticReason))
    return REASONS_FOR.get(item.kind, frozenset())


def check_reason(reason: Any, missing: Sequence[MissingRequirement]) -> SemanticReason:
    """The reason, if it explains at least one missing requirement; else GatingError."""
    try:
        parsed = SemanticReason(reason)
    except ValueError:
        raise GatingError(
            "invalid_params",
            f"semantic_reason {reason!r} is not one of {[r.value for r in SemanticReason]}",
        ) from None
    fitting = {item.kind.value: sorted(r.value for r in reasons_for(item)) for item in missing}
    if any(parsed in reasons_for(item) for item in missing):
        return parsed
    if missing and all(item.kind is Requirement.TOOLS for item in missing):
        message = (
            "only tool use is missing, which SEMANTIC cannot supply: "
            "revert_to_exploration(keep_results=true) and run "
            + ", ".join(sorted({i.subject or "" for i in missing}))
        )
    else:
        message = (
            f"semantic_reason {parsed.value!r} does not explain what is missing; the reasons "
            f"that fit are {fitting}"
        )
    raise GatingError("invalid_semantic_reason", message, fitting_reasons=fitting)


# ---- hypotheses ---------------------------------------------------------------------

_HYPOTHESIS_KEYS = {"kind", "subject", "value", "evidence"}


def parse_hypotheses(
    raw: Any, first_id: int, rejected: Sequence[Finding]
) -> tuple[Finding, ...]:
    """`[{kind, subject, value?, evidence}]` → HYPOTHESIS findings `h<n>`.

    kind is symbol, entry_point, file, pattern or slot (subject = the slot's name and
    value = its value). A subject already REJECTED cannot come back.
    """
    if not isinstance(raw, list) or not raw:
        raise GatingError(
            "invalid_params",
            "hypotheses must be a non-empty list of {kind, subject, value?, evidence}",
        )
    refuted = {(f.kind, f.subject) for f in rejected}
    findings = []
    for n, item in enumerate(raw):
        where = f"hypotheses[{n}]"
        if not isinstance(item, Mapping):
            raise GatingError("invalid_params", f"{where} must be an object")
        extra = sorted(set(item) - _HYPOTHESIS_KEYS)
        if extra:
            raise GatingError("invalid_params", f"{where} has unknown key(s) {extra}")
        try:
            kind = FindingKind(item.get("kind"))
        except ValueError:
            raise GatingError(
                "invalid_params",
                f"{where}.kind must be one of {[k.value for k in FindingKind]}",
            ) from None
        subject, value, evidence = item.get("subject"), item.get("value"), item.get("evidence")
        if not isinstance(subject, str) or not subject.strip():
            raise GatingError("invalid_params", f"{where}.subject must be a non-empty string")
        if not isinstance(evidence, str) or not evidence.strip():
            raise GatingError(
                "invalid_params",
                f"{where}.evidence is required: say what the semantic search showed",
            )
        if kind is FindingKind.SLOT:
            if subject not in [s.value for s in Slot]:
                raise GatingError(
                    "invalid_params", f"{where}.subject must be a slot name for kind 'slot'"
                )
            if not isinstance(value, str) or not value.strip():
                raise GatingError("invalid_params", f"{where}.value is required for a slot")
        elif value is not None and not isinstance(value, str):
            raise GatingError("invalid_params", f"{where}.value must be a string")
        if (kind, subject) in refuted:
            raise GatingError(
                "rejected_hypothesis",
                f"{kind.value} {subject!r} was rejected in VERIFICATION and cannot be used "
                "again; look for another explanation",
                rejected=[subject],
            )
        findings.append(
            Finding(f"h{first_id + n}", kind, subject.strip(), value, Source.HYPOTHESIS, evidence)
        )
    return tuple(findings)


def with_hypotheses(frame: QueryFrame, findings: Sequence[Finding]) -> QueryFrame:
    """Hypotheses show in the frame as HYPOTHESIS slots and mapped symbols."""
    mapped = list(frame.mapped_symbols)
    resolved = dict(frame.resolved)
    source = dict(frame.slot_source)
    for f in findings:
        if f.kind in (FindingKind.SYMBOL, FindingKind.ENTRY_POINT):
            mapped.append(MappedSymbol(f.subject, Source.HYPOTHESIS, 0.0, f.evidence))
        elif f.kind is FindingKind.SLOT and f.value:
            resolved[f.subject] = f.value
            source[f.subject] = Source.HYPOTHESIS
    return attrs.evolve(frame, mapped_symbols=tuple(mapped), resolved=resolved, slot_source=source)


# ---- verification -------------------------------------------------------------------


@attrs.frozen
class VerificationOutcome:
    findings: tuple[Finding, ...]
    understanding: Understanding
    frame: QueryFrame
    promoted: tuple[Finding, ...]
    rejected: tuple[Finding, ...]
    errors: tuple[dict[str, Any], ...]


def parse_results(raw: Any) -> list[Mapping[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise GatingError(
            "invalid_params",
            "results must be a non-empty list of {id, confirmed, evidence?, note?}",
        )
    for n, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise GatingError("invalid_params", f"results[{n}] must be an object")
        extra = sorted(set(item) - {"id", "confirmed", "evidence", "note"})
        if extra:
            raise GatingError("invalid_params", f"results[{n}] has unknown key(s) {extra}")
        if not isinstance(item.get("id"), str):
            raise GatingError("invalid_params", f"results[{n}].id must be a hypothesis id")
        if not isinstance(item.get("confirmed"), bool):
            raise GatingError("invalid_params", f"results[{n}].confirmed must be true or false")
        ev = item.get("evidence")
        if ev is not None and not isinstance(ev, Mapping):
            raise GatingError(
                "invalid_params",
                f"results[{n}].evidence must be {{tool, params, result_summary}}",
            )
    return raw


def verify(
    findings: Sequence[Finding],
    results: Sequence[Mapping[str, Any]],
    index: SymbolIndex,
    file_exists: Callable[[str], bool],
    calls: Sequence[ToolCall],
    understanding: Understanding,
    frame: QueryFrame,
) -> VerificationOutcome:
    by_id = {f.id: f for f in findings}
    unknown = [r["id"] for r in results if r["id"] not in by_id]
    if unknown:
        raise GatingError(
            "invalid_params",
            f"unknown hypothesis id(s) {unknown}; open ones are "
            f"{[f.id for f in findings if f.status is Source.HYPOTHESIS]}",
        )
    updated = dict(by_id)
    promoted: list[Finding] = []
    rejected: list[Finding] = []
    errors: list[dict[str, Any]] = []
    und = understanding
    slot_evidence = dict(frame.slot_evidence)
    slot_source = dict(frame.slot_source)
    resolved = dict(frame.resolved)
    for r in results:
        f = by_id[r["id"]]
        if f.status is not Source.HYPOTHESIS:
            errors.append({"id": f.id, "error": f"already {f.status.value}"})
            continue
        note = str(r.get("note") or "")
        if not r["confirmed"]:
            updated[f.id] = attrs.evolve(f, status=Source.REJECTED, verification=note or "refuted")
            rejected.append(updated[f.id])
            continue
        verdict, why, cited = _confirm(f, r.get("evidence"), index, file_exists, calls)
        if verdict is Source.HYPOTHESIS:
            errors.append({"id": f.id, "error": why})
            continue
        updated[f.id] = attrs.evolve(f, status=verdict, verification=why)
        (promoted if verdict is Source.FACT else rejected).append(updated[f.id])
        if verdict is not Source.FACT:
            continue
        if f.kind is FindingKind.SYMBOL:
            und = und.merged(Understanding(symbols=(f.subject,)))
        elif f.kind is FindingKind.ENTRY_POINT:
            und = und.merged(Understanding(symbols=(f.subject,), entry_points=(f.subject,)))
        elif f.kind is FindingKind.FILE:
            und = und.merged(Understanding(files=(f.subject,)))
        elif f.kind is FindingKind.PATTERN:
            und = und.merged(Understanding(patterns=(f.subject,)))
        elif f.kind is FindingKind.SLOT and cited is not None:
            slot_evidence[f.subject] = cited
            slot_source[f.subject] = Source.FACT
            resolved[f.subject] = f.value or resolved.get(f.subject, "")
    for f in rejected:
        if f.kind is FindingKind.SLOT:
            slot_source.pop(f.subject, None)
            resolved.pop(f.subject, None)
    mapped = _settle_mapped(frame.mapped_symbols, promoted, rejected)
    new_frame = attrs.evolve(
        frame,
        mapped_symbols=mapped,
        slot_evidence=slot_evidence,
        slot_source=slot_source,
        resolved=resolved,
    )
    return VerificationOutcome(
        tuple(updated[f.id] for f in findings),
        und,
        new_frame,
        tuple(promoted),
        tuple(rejected),
        tuple(errors),
    )


def _confirm(
    f: Finding,
    evidence: Mapping[str, Any] | None,
    index: SymbolIndex,
    file_exists: Callable[[str], bool],
    calls: Sequence[ToolCall],
) -> tuple[Source, str, SlotEvidence | None]:
    """FACT, REJECTED, or still HYPOTHESIS (with why), plus the cited call if any."""
    if f.kind in (FindingKind.SYMBOL, FindingKind.ENTRY_POINT):
        if index.lookup(f.subject):
            return Source.FACT, "defined in the index", None
        return Source.REJECTED, "confirmed by the model but not defined in the index", None
    if f.kind is FindingKind.FILE:
        if file_exists(f.subject):
            return Source.FACT, "file exists in the workspace", None
        return Source.REJECTED, "confirmed by the model but the file does not exist", None
    if not evidence:
        return Source.HYPOTHESIS, (
            f"{f.kind.value} hypotheses need evidence: cite the tool call of this session "
            "that confirms it ({tool, params, result_summary})"
        ), None
    cited = cite_call(evidence, calls)
    if isinstance(cited, str):
        return Source.HYPOTHESIS, cited, None
    return Source.FACT, f"confirmed by {cited.tool}", cited


def _settle_mapped(
    mapped: Sequence[MappedSymbol], promoted: Sequence[Finding], rejected: Sequence[Finding]
) -> tuple[MappedSymbol, ...]:
    symbolic = (FindingKind.SYMBOL, FindingKind.ENTRY_POINT)
    confirmed = {f.subject for f in promoted if f.kind in symbolic}
    refuted = {f.subject for f in rejected if f.kind in symbolic}
    out = []
    for m in mapped:
        if m.source is Source.HYPOTHESIS and m.name in refuted:
            continue
        if m.source is Source.HYPOTHESIS and m.name in confirmed:
            m = attrs.evolve(m, source=Source.FACT)
        out.append(m)
    return tuple(out)
