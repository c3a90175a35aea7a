"""The search service and the gating engine of one workspace, shared by every
connection to it and created on first use: an editor that never searches never
loads a model, and the first session request does not wait for an index sync.

Nothing heavy is imported with this module: chromadb, numpy and the gating engine
load when a service is first built (`ready()` builds it on a worker thread, so the
import never stalls other requests on the event loop)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from code_intel.gating import GatingEngine
    from code_intel.gating.model import LearnedPair
    from code_intel.indexing.search import SearchService
    from code_intel.indexing.vectors import Agreement

    from .live_index import LiveIndex

log = logging.getLogger(__name__)
MODEL_WAIT_SECONDS = 300.0


class Services:
    def __init__(self, live: LiveIndex, notify: Callable[[str], None] | None = None) -> None:
        self.live = live
        self.notify = notify
        self._lock = threading.Lock()

    @cached_property
    def search(self) -> SearchService:
        """Lexical index at once, vectors as soon as the model has loaded, both kept in
        step with the index by `after_sync`."""
        from code_intel.indexing.search import SearchService

        with self._lock:
            service = SearchService(self.live.root, self.live.config, self.live.store)
            self._report(service.vectors.messages)  # a damaged vector store set aside, say
            service.start_background()
            service.request_sync()
            return service

    @cached_property
    def gating(self) -> GatingEngine:
        from code_intel.gating.index_adapter import IndexSymbols
        from code_intel.gating.workspace import open_engine

        live = self.live
        index = IndexSymbols(
            lambda name, exact=True: live.definitions(name, exact),
            lambda rel: rel in live.overlays or live.store.file_state(rel) is not None,
        )
        engine = open_engine(
            live.root,
            live.config,
            self.search.embedder,
            index=index,
            sinks=(_MapSink(self.search),),
            sync_status=self._sync_status,
        )
        # Lost sessions are news for everyone: indexStatus lists them, the editors are
        # told, and an agent asking for a lost session is told why it is gone.
        self._report(engine.store.messages)
        return engine

    def _report(self, messages: list[str]) -> None:
        """Lost data is news for everyone: indexStatus lists it, the editors are told."""
        for message in messages:
            self.live.store.messages.append(message)
            if self.notify is not None:
                self.notify(f"code-intel: {message}")

    async def ready(self, name: str) -> Any:
        """The `search` or `gating` service, built off the event loop the first time
        (its imports and store opening take about a second)."""
        if name in self.__dict__:
            return self.__dict__[name]
        return await asyncio.get_running_loop().run_in_executor(None, getattr, self, name)

    def _sync_status(self) -> dict[str, Any]:
        st = self.live.status
        return {"state": st.state, "sync_count": st.sync_count, "last_sync_time": st.last_sync_time}

    def after_sync(self) -> None:
        """Vectors and lexical index follow the symbol index; learned pairs whose
        symbol vanished are dropped (SPEC §4.9)."""
        if "search" in self.__dict__:
            self.search.request_sync()
        if "gating" in self.__dict__:
            try:
                self.gating.prune_learned_pairs()
            except Exception:
                log.exception("pruning learned pairs failed")

    def search_status(self) -> dict[str, Any] | None:
        return self.search.status() if "search" in self.__dict__ else None

    def close(self) -> None:
        if "search" in self.__dict__:
            self.search.close()


class _MapSink:
    """Learned pairs → the `map` collection, one agreement per request, so the next
    similar request short-circuits to its symbols (SPEC §3.6, §4.9). Embedding waits
    for the model on a thread of its own; the outcome reply never does."""

    def __init__(self, search: SearchService) -> None:
        self.search = search
        self._latest: list[Agreement] = []
        self._lock = threading.Lock()

    def pairs_changed(
        self,
        current: Sequence[LearnedPair],
        added: Sequence[LearnedPair],
        removed: Sequence[LearnedPair],
    ) -> None:
        from code_intel.indexing.vectors import make_agreement

        by_query: dict[str, list[str]] = defaultdict(list)
        for pair in current:
            by_query[pair.query or pair.nl_term].append(pair.symbol)
        self._latest = [make_agreement(q, list(dict.fromkeys(s))) for q, s in by_query.items()]
        threading.Thread(target=self._publish, daemon=True).start()

    def _publish(self) -> None:
        try:
            wait = getattr(self.search.embedder, "wait", None)
            if wait is not None:
                wait(MODEL_WAIT_SECONDS)
            with self._lock:  # whichever thread runs last publishes the latest set
                self.search.replace_agreements(self._latest)
        except Exception:
            log.exception("publishing learned pairs to the map collection failed")
