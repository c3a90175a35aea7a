"""Learning from outcomes (SPEC §4.9, seed 000 Phase 4 "成功ペアの自動キャッシュ").

On success every NL→symbol pair that `validate_symbol_relevance` approved (FACT or
grey, with the model's code evidence) becomes a learned pair. The next session whose
request is similar to a learned one gets the map short-circuit hint naming its
symbols (SPEC §3.6: map hit ≥ the backend's `map_hit` threshold, 0.7 by default).
Pairs older than `learned_pair_days` are purged; a pair whose symbol the index no
longer defines is dropped at sync.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .interfaces import SimilarityThresholds, SymbolIndex
from .model import FindingKind, LearnedPair, Session

Similarity = Callable[[str, str], float]

DAY = 86400.0


def pairs_to_learn(session: Session, now: float) -> list[LearnedPair]:
    refuted = {
        f.subject
        for f in session.rejected_findings()
        if f.kind in (FindingKind.SYMBOL, FindingKind.ENTRY_POINT)
    }
    return [
        LearnedPair(
            nl_term=v.nl_term,
            symbol=v.symbol,
            similarity=v.similarity,
            code_evidence=v.code_evidence,
            session_id=session.id,
            learned_at=now,
            query=session.query,
        )
        for v in session.relevance.values()
        if v.approved and v.symbol not in refuted
    ]


def map_hint(
    query: str,
    pairs: Sequence[LearnedPair],
    similarity: Similarity,
    t: SimilarityThresholds,
) -> dict[str, Any]:
    """The best learned request/term for `query`; `found` when it reaches `map_hit`."""
    groups: dict[tuple[str, str], list[LearnedPair]] = defaultdict(list)
    for p in pairs:
        groups[(p.query, p.nl_term)].append(p)
    best: tuple[float, tuple[str, str]] | None = None
    for key in groups:
        learned_query, nl_term = key
        score = max(similarity(query, text) for text in (learned_query, nl_term) if text)
        if best is None or score > best[0]:
            best = (score, key)
    if best is None or best[0] < t.map_hit:
        return {
            "found": False,
            "best_score": round(best[0], 4) if best else None,
            "recommendation": "no learned agreement matches this request; explore",
        }
    score, (learned_query, nl_term) = best
    symbols = list(dict.fromkeys(p.symbol for p in groups[best[1]]))
    return {
        "found": True,
        "symbols": symbols,
        "nl_term": nl_term,
        "learned_query": learned_query,
        "confidence": round(score, 4),
        "recommendation": "a past successful session matched this request: verify these "
        "symbols first (find_definitions, find_references), they still have to be submitted",
    }


def purge_cutoff(now: float, days: int) -> float:
    return now - days * DAY


def vanished_pairs(pairs: Iterable[LearnedPair], index: SymbolIndex) -> list[LearnedPair]:
    """Pairs whose symbol the index no longer defines."""
    return [p for p in pairs if not index.lookup(p.symbol)]
