"""One persistent thread that runs an index's reads beside the caller's own work.

Why: a query's chunk BM25 read (SQLite FTS5) and its vector work (the query encoder and
Chroma) do not depend on each other, and both leave the GIL while they compute (sqlite3
steps, BLAS, Chroma's native calls). On two cores, running the BM25 read here while the
caller encodes and asks Chroma takes it off the request's wall time. One thread per
index, kept for its life, not one per query: a thread's start and its SQLite connection
(per thread, `LexicalIndex.conn`) would cost on every request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class ReaderThread:
    """Runs submitted reads one at a time on one thread, started at the first one.

    `close_local` is run on that thread when it stops (its per-thread connection is
    closed there, where it was opened: no file descriptor outlives `stop`)."""

    def __init__(self, name: str, close_local: Callable[[], None]) -> None:
        self._name = name
        self._close_local = close_local
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=self._name)
            return self._executor.submit(fn, *args)

    def stop(self) -> None:
        """Close the thread's connection and end the thread (a later `submit` starts a
        new one)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            try:
                executor.submit(self._close_local).result()
            finally:
                executor.shutdown(wait=True)
