"""`embedding_model` spec → backend: one table, so a new backend is one entry.

Specs: `usem3` (default), `e5-small-q4`, `usem3-words`, `sentence-transformers:<name-or-path>`.
Parsing a spec is cheap and imports no model, so the config validates it up front;
`load_embedder` does the slow part.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from .base import Embedder, EmbedderConfigError, Thresholds

DEFAULT_SPEC = "usem3"


@dataclass(frozen=True, slots=True)
class BackendInfo:
    """What is known about a backend before its model is loaded."""

    name: str
    spec: str
    argument: str
    thresholds: Thresholds
    #: measured on the 2-core reference machine; drives `retry_after_seconds`
    expected_load_seconds: float
    _factory: Callable[[str], Embedder]

    def load(self) -> Embedder:
        return self._factory(self.argument)


def _usem3(_: str) -> Embedder:
    from .usem3 import Usem3Embedder

    return Usem3Embedder()


def _usem3_words(_: str) -> Embedder:
    from .usem3_words import Usem3WordsEmbedder

    return Usem3WordsEmbedder()


def _e5(_: str) -> Embedder:
    from .e5_q4 import E5Q4Embedder

    return E5Q4Embedder()


def _st(name: str) -> Embedder:
    from .sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(name)


def _thresholds(name: str, argument: str) -> Thresholds:
    # Imported lazily: these modules import nothing heavy at module level.
    if name == "usem3":
        from .usem3 import THRESHOLDS
    elif name == "usem3-words":
        from .usem3_words import THRESHOLDS
    elif name == "e5-small-q4":
        from .e5_q4 import THRESHOLDS
    else:
        from .sentence_transformers import thresholds_for

        return thresholds_for(argument)
    return THRESHOLDS


_FIXED: dict[str, tuple[Callable[[str], Embedder], float]] = {
    "usem3": (_usem3, 2.0),
    "usem3-words": (_usem3_words, 3.0),
    "e5-small-q4": (_e5, 1.0),
}
ST_PREFIX = "sentence-transformers:"
KNOWN = ("usem3", "e5-small-q4", "usem3-words", "sentence-transformers:<name-or-path>")


def parse_spec(spec: str) -> BackendInfo:
    """The backend a spec names; EmbedderConfigError listing the choices otherwise."""
    if not isinstance(spec, str) or not spec.strip():
        raise EmbedderConfigError(f"embedding_model must be one of {', '.join(KNOWN)}; got {spec!r}")
    spec = spec.strip()
    if spec in _FIXED:
        factory, load_s = _FIXED[spec]
        return BackendInfo(spec, spec, "", _thresholds(spec, ""), load_s, factory)
    if spec.startswith(ST_PREFIX):
        argument = spec[len(ST_PREFIX) :].strip()
        if not argument:
            raise EmbedderConfigError(
                "embedding_model 'sentence-transformers:' needs a model name or path after the colon"
            )
        return BackendInfo(
            "sentence-transformers", ST_PREFIX + argument, argument,
            _thresholds("sentence-transformers", argument), 12.0, _st,
        )
    raise EmbedderConfigError(
        f"embedding_model {spec!r} is not known; use one of {', '.join(KNOWN)}"
    )


def load_embedder(spec: str = DEFAULT_SPEC) -> Embedder:
    """Load the model now (seconds): call it off the request path, or use LazyEmbedder."""
    return parse_spec(spec).load()


_shared: dict[str, Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(spec: str = DEFAULT_SPEC) -> Embedder:
    """One loaded model per spec per process (the CLI, benchmarks and tests reuse it)."""
    info = parse_spec(spec)
    with _shared_lock:
        if info.spec not in _shared:
            _shared[info.spec] = info.load()
        return _shared[info.spec]
