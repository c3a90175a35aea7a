"""A model that loads in a background thread, so nothing waits for it (SPEC §3.5).

Until the model is ready every embedding call raises `EmbedderNotReady` carrying
`retry_after_seconds`, which the language server, MCP bridge and CLI turn into
`{"status": "initializing", "retry_after_seconds": N}`. The thresholds are known from
the spec alone, so the gating engine can read them before the model is there.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from .base import Embedder, EmbedderNotReady, EmbeddingError, Thresholds
from .registry import DEFAULT_SPEC, parse_spec

if TYPE_CHECKING:  # numpy loads with the model, not with the words-only search
    import numpy as np

log = logging.getLogger(__name__)


class LoadState(StrEnum):
    INITIALIZING = "initializing"
    READY = "ready"
    FAILED = "failed"


class LazyEmbedder:
    """Stands in for an `Embedder` while it loads; delegates to it once loaded.

    `loader` defaults to the registry's loader for `spec` (tests pass one that
    holds the real load back until they have observed the initializing state).
    """

    def __init__(
        self,
        spec: str = DEFAULT_SPEC,
        loader: Callable[[], Embedder] | None = None,
        start: bool = False,
    ) -> None:
        info = parse_spec(spec)
        self.spec = info.spec
        self.thresholds: Thresholds = info.thresholds
        self.expected_load_seconds = info.expected_load_seconds
        self._loader = loader or info.load
        self._embedder: Embedder | None = None
        self._error: str | None = None
        self._started_at: float | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        if start:
            self.start()

    # ---- lifecycle ----------------------------------------------------------------

    def start(self) -> LazyEmbedder:
        """Begin loading in a daemon thread (idempotent)."""
        with self._lock:
            if self._thread is None:
                self._started_at = time.monotonic()
                self._thread = threading.Thread(
                    target=self._load, name=f"embedder-{self.spec}", daemon=True
                )
                self._thread.start()
        return self

    def _load(self) -> None:
        try:
            self._embedder = self._loader()
            self.thresholds = self._embedder.thresholds
            log.info("embedding model %s ready in %.1fs", self.spec, self.elapsed)
        except Exception as exc:  # noqa: BLE001 - reported through state(), not raised in a thread
            self._error = str(exc) or type(exc).__name__
            log.warning("embedding model %s failed to load: %s", self.spec, self._error)
        finally:
            self._ready.set()

    @property
    def elapsed(self) -> float:
        return 0.0 if self._started_at is None else time.monotonic() - self._started_at

    @property
    def state(self) -> LoadState:
        if self._embedder is not None:
            return LoadState.READY
        if self._error is not None:
            return LoadState.FAILED
        return LoadState.INITIALIZING

    @property
    def error(self) -> str | None:
        return self._error

    def retry_after_seconds(self) -> float:
        return max(1.0, self.expected_load_seconds - self.elapsed)

    def status(self) -> dict[str, object]:
        state = self.state
        answer: dict[str, object] = {"status": state.value, "model": self.spec}
        if state is LoadState.INITIALIZING:
            answer["retry_after_seconds"] = max(1, round(self.retry_after_seconds()))
        elif state is LoadState.FAILED:
            answer["error"] = self._error
        return answer

    def wait(self, timeout: float | None = None) -> Embedder:
        """Block until loaded (starting the load if needed): the CLI and benchmarks
        use this; request handlers use `embedder` and answer "initializing"."""
        self.start()
        self._ready.wait(timeout)
        return self.embedder

    @property
    def embedder(self) -> Embedder:
        if self._embedder is not None:
            return self._embedder
        if self._error is not None:
            raise EmbeddingError(f"embedding model {self.spec} failed to load: {self._error}")
        self.start()
        raise EmbedderNotReady(self.retry_after_seconds(), self.spec)

    # ---- the Embedder interface, delegated ---------------------------------------

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    @property
    def counters(self):  # type: ignore[no-untyped-def]
        return self.embedder.counters

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed_queries(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)

    def similarity(self, a: str, b: str) -> float:
        return self.embedder.similarity(a, b)

    def similarities(self, query: str, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.similarities(query, texts)


def resolve(embedder: Embedder | LazyEmbedder) -> Embedder:
    """The loaded model behind either kind; EmbedderNotReady while it loads."""
    return embedder.embedder if isinstance(embedder, LazyEmbedder) else embedder
