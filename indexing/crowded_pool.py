"""Code files that tests pushed out of chunk BM25's candidate pool (pure logic).

Why: a test names everything it exercises, so for many requests the tests take most of
chunk BM25's CANDIDATES hits (set (b)'s tune requests: 45–57 % of the 50 hits on
healthchecks, linkding and solidtime) and rank below code only after the pool is cut:
the code the request is about may have no chunk in the pool at all and then no vector
similarity is ever read for it (solidtime "a new user gets an organization named <first
name>'s Organization": 14 of the first 15 hits tests, `UserService.php` none; hybrid
25th). When fewer than CODE_SHARE of the pool's hits are code, BM25 is read on (to
READ_DEPTH hits) until they are, and the code files met on the way that had no hit in
the pool become candidates **without** their BM25 evidence: the vectors judge them (their
similarity is read like any candidate's) and a definition the request names may confirm
them. Why not as BM25 evidence too: deeper BM25 hits are weak evidence for every file,
and in rank fusion a 36th place counts nearly as much as a 5th, so a deeper pool with its
BM25 ranks lowered 7 of 10 tune cells (hybrid file MRR, 10 cells summed, 8.379 → 8.221);
further chunks of files already in the pool, even without BM25 evidence, 8.318.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

#: the least share of the pool's hits that are code before BM25 is read on. Chosen on
#: set (b)'s tune halves (hybrid file MRR, 10 cells summed, 8.379 without; reading to
#: READ_DEPTH): 0.2 → 8.380, 0.4 → 8.415, 0.5 → 8.415, 0.6 → 8.415, 0.8 → 8.413,
#: 1.0 → 8.412; from 0.4 to 0.6 no cell lower by 0.001 or more. The plateau's middle.
CODE_SHARE = 0.5
#: how deep BM25 may be read, in pools: 2.4 → 8.392 (the code solidtime's request
#: needs sits past hit 120), 3 → 8.415, 6 → 8.415
READ_DEPTH = 3


class _Hit(Protocol):
    @property
    def path(self) -> str: ...


H = TypeVar("H", bound=_Hit)


def crowded(pool: Sequence[_Hit], is_below: Callable[[str], bool], size: int) -> bool:
    """Whether fewer than CODE_SHARE of a `size`-hit pool are code (`is_below`: a kind
    ranked below code, such as tests). A pool shorter than `size` holds every hit there
    is: nothing lies past it."""
    return len(pool) >= size and sum(not is_below(h.path) for h in pool) < CODE_SHARE * size


def code_past_pool(
    pool: Sequence[H], deeper: Iterable[H], is_below: Callable[[str], bool], size: int
) -> list[H]:
    """The hits past the pool (`deeper`: BM25's hits after the pool's, best first) of
    code files the pool has no hit of, read until CODE_SHARE of the hits read so far are
    code."""
    have = {h.path for h in pool}
    code = sum(not is_below(h.path) for h in pool)
    out: list[H] = []
    for hit in deeper:
        if code >= CODE_SHARE * size:
            break
        if is_below(hit.path):
            continue
        code += 1
        if hit.path not in have:
            out.append(hit)
    return out
