"""NL → symbol relevance (SPEC §4.5, seed 000 "3層類似度判定").

The model judges which symbols implement the feature and must show `code_evidence`;
the server has the last word, from the embedding similarity of the feature to the
identifier split into words (`AuthService` → `Auth Service`):

* above `fact` → FACT, approved;
* from `reject` to `fact` → approved, but the session's risk is forced HIGH (more
  exploration is required) and a warning says why;
* below `reject` → REJECTED, with `reinvestigation_guidance` so a refusal switches
  the agent to a better search instead of stopping it.

The thresholds are the embedding backend's own (`SimilarityThresholds`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .codec import to_json
from .interfaces import SimilarityThresholds
from .model import LearnedPair, MappedSymbol, RelevanceVerdict, Source, Tier

Similarity = Callable[[str, str], float]

_SEPARATORS = re.compile(r"(?:::|->|[\\/.#$_\-\s])+")
_LOWER_UPPER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ACRONYM = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")


def split_identifier(name: str) -> str:
    """`App\\Services\\AuthService::isLockedOut` → `App Services Auth Service is Locked Out`."""
    words = _SEPARATORS.sub(" ", name)
    words = _ACRONYM.sub(" ", _LOWER_UPPER.sub(" ", words))
    return " ".join(words.split())


def tier_for(similarity: float, t: SimilarityThresholds) -> Tier:
    if similarity > t.fact:
        return Tier.FACT
    if similarity >= t.reject:
        return Tier.GREY
    return Tier.REJECTED


def reinvestigation_guidance(nl_term: str, symbol: str, t: SimilarityThresholds) -> dict[str, Any]:
    return {
        "reason": f"{nl_term!r} and {symbol!r} are too dissimilar (< {t.reject:.2f})",
        "next_actions": [
            (
                f"search_text for {nl_term!r} (and its words in the code's language) to find "
                "other symbols"
            ),
            f"find_references on {symbol!r} to check whether it really takes part in the feature",
            "find code that proves the link (comments, names, routes, calls)",
        ],
        "fallback": "if the facts cannot be found, submit_understanding with what you have "
        "and continue in SEMANTIC with submit_semantic",
    }


def judge(
    nl_term: str,
    symbol: str,
    similarity: float,
    t: SimilarityThresholds,
    code_evidence: str = "",
) -> RelevanceVerdict:
    tier = tier_for(similarity, t)
    warning = None
    guidance = None
    if tier is Tier.GREY:
        warning = (
            f"similarity {similarity:.2f} of {symbol!r} to {nl_term!r} is in the grey zone "
            f"({t.reject:.2f}–{t.fact:.2f}): approved, but the session's risk is now HIGH "
            "and the HIGH exploration requirements apply"
        )
    elif tier is Tier.REJECTED:
        guidance = reinvestigation_guidance(nl_term, symbol, t)
    return RelevanceVerdict(
        symbol=symbol,
        nl_term=nl_term,
        similarity=round(float(similarity), 4),
        tier=tier,
        code_evidence=code_evidence,
        warning=warning,
        reinvestigation_guidance=guidance,
    )


def symbol_similarity(similarity: Similarity, nl_term: str, symbol: str) -> float:
    return float(similarity(nl_term, split_identifier(symbol)))


def best_tier(verdicts: Iterable[RelevanceVerdict]) -> Tier | None:
    """FACT beats GREY beats REJECTED; None when nothing was judged."""
    tiers = {v.tier for v in verdicts}
    for tier in (Tier.FACT, Tier.GREY, Tier.REJECTED):
        if tier in tiers:
            return tier
    return None


def same_term(similarity: Similarity, a: str, b: str, threshold: float) -> bool:
    return a.strip().casefold() == b.strip().casefold() or similarity(a, b) >= threshold


def cached_matches(
    nl_term: str,
    symbols: Sequence[str],
    pairs: Iterable[LearnedPair],
    similarity: Similarity,
    t: SimilarityThresholds,
) -> list[dict[str, Any]]:
    """Learned pairs for these symbols whose NL term is this feature (or close to it)."""
    wanted = set(symbols)
    return [
        {
            "nl_term": p.nl_term,
            "symbol": p.symbol,
            "similarity": p.similarity,
            "code_evidence": p.code_evidence,
            "session_id": p.session_id,
            "learned_at": p.learned_at,
        }
        for p in pairs
        if p.symbol in wanted and same_term(similarity, nl_term, p.nl_term, t.map_hit)
    ]


def embedding_suggestions(
    nl_term: str,
    candidates: Iterable[str],
    submitted: Iterable[str],
    similarity: Similarity,
    t: SimilarityThresholds,
    limit: int = 5,
) -> list[dict[str, Any]]:
    """Symbols the session has seen (submitted or returned by its tools) that the
    embedding relates to the feature above the FACT threshold, best first."""
    submitted_set = set(submitted)
    scored = [
        (symbol_similarity(similarity, nl_term, s), s) for s in dict.fromkeys(candidates)
    ]
    ranked = sorted((x for x in scored if x[0] > t.fact), key=lambda x: -x[0])[:limit]
    return [
        {"symbol": s, "similarity": round(score, 4), "submitted": s in submitted_set}
        for score, s in ranked
    ]


_RANK = {Tier.FACT: 0, Tier.GREY: 1, Tier.REJECTED: 2}


def stronger(computed: RelevanceVerdict, explicit: RelevanceVerdict | None) -> RelevanceVerdict:
    """An approval the model backed with code evidence counts when it ranks higher."""
    if explicit and explicit.approved and _RANK[explicit.tier] < _RANK[computed.tier]:
        return explicit
    return computed


def mapped_with(
    mapped: Sequence[MappedSymbol], verdicts: Sequence[RelevanceVerdict], drop: Iterable[str] = ()
) -> tuple[MappedSymbol, ...]:
    """FACT mapped symbols carry their latest confidence; HYPOTHESIS ones stay as they are."""
    dropped = set(drop)
    by_name = {m.name: m for m in mapped if m.source is not Source.HYPOTHESIS}
    for v in verdicts:
        by_name[v.symbol] = MappedSymbol(v.symbol, Source.FACT, v.similarity, v.code_evidence)
    hypotheses = [m for m in mapped if m.source is Source.HYPOTHESIS]
    return (*(m for n, m in by_name.items() if n not in dropped), *hypotheses)


def verdict_json(v: RelevanceVerdict) -> dict[str, Any]:
    return {
        **to_json(v),
        "approved": v.approved,
        "source": Source.FACT.value if v.approved else Source.REJECTED.value,
    }
