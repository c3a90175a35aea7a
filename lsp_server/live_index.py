"""The workspace as the language server serves it: the persistent store, overlaid by
the buffers editors have open, plus the state of the background sync.

One LiveIndex per workspace is shared by every connection (the editor on stdio, the
MCP bridge and other clients on the local endpoint), so they all see the same unsaved
edits. Overlays live in memory only: the store keeps the disk truth, which is what a
closed buffer falls back to. Queries run on the event-loop thread; the sync runs on a
worker thread with its own SQLite connection (WAL lets both proceed).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from code_intel.indexing.chunking import ChunkSettings
from code_intel.indexing.config import Config, load_config
from code_intel.indexing.discovery import admits, is_within
from code_intel.indexing.model import FileAnalysis, sha256_bytes
from code_intel.indexing.paths import UnusablePath, resolve_path
from code_intel.indexing.store import (
    IndexStore,
    StoredReference,
    StoredSymbol,
    is_qualified,
    normalize_qualified,
    qualified_matches,
)
from code_intel.indexing.sync import SyncReport, analyze_bytes, is_binary, sync_workspace

from .documents import OpenDocument
from .navigator import Navigator
from .resolve import fuzzy_score, rank_definitions, subsequence_like, word_at
from .ts_paths import WorkspaceTsPaths

if TYPE_CHECKING:
    from .protocol import IndexStatusResult

log = logging.getLogger(__name__)

ProgressFn = Callable[[int, int, str], None]

# Closed files whose symbol rows are kept in memory: every definition request reads
# the file's symbols (a declaration under the cursor? a definition in the same file?)
# and a test module of 5,000 lines has a thousand of them (~10 ms to read and build).
_SYMBOL_CACHE = 32  # like the navigator's tree cache


@dataclass
class SyncStatus:
    state: str = "starting"  # starting | indexing | ready | error
    done: int = 0
    total: int = 0
    current: str = ""
    last_sync_time: float | None = None
    sync_count: int = 0
    last_report: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    @property
    def percent(self) -> int:
        return 100 if self.total == 0 else int(100 * self.done / self.total)


_FILE_LEVEL_KINDS = frozenset({"class", "interface", "trait", "enum", "struct", "type", "function", "module", "namespace"})


_CALLABLE = frozenset({"method", "function", "constructor"})


def _is_file_level(s: StoredSymbol) -> bool:
    """A definition at file level (a module function, a class), not a member."""
    return s.symbol.kind.value in _FILE_LEVEL_KINDS


class LiveIndex:
    def __init__(self, root: Path, config: Config | None = None) -> None:
        self.root = root.resolve()
        self.config = config or load_config(self.root)
        self.store = IndexStore.for_workspace(self.root)
        self.settings = ChunkSettings(self.config.chunk_max_tokens)
        self.overlays: dict[str, OpenDocument] = {}
        self.status = SyncStatus()
        self._sync_lock = threading.Lock()
        self.navigator = Navigator(self)
        self.ts_paths = WorkspaceTsPaths(self.root)  # tsconfig `paths`/`baseUrl` imports
        # rel -> (file state it was read at, its symbols); overlays: (analysis, symbols)
        self._stored_symbols: OrderedDict[str, tuple[object, list[StoredSymbol]]] = OrderedDict()
        self._overlay_symbols: dict[str, tuple[FileAnalysis, list[StoredSymbol]]] = {}
        self._symbols_lock = threading.Lock()

    # ---- paths ------------------------------------------------------------------

    def rel_path(self, uri: str) -> str | None:
        """Workspace-relative path of a file URI, or None when it is outside."""
        parsed = urlparse(uri)
        if parsed.scheme not in ("file", ""):
            return None
        try:
            path = resolve_path(unquote(parsed.path))
        except UnusablePath:
            return None
        if not is_within(self.root, path) or path == self.root:
            return None
        return path.relative_to(self.root).as_posix()

    def uri(self, rel: str) -> str:
        from pygls.uris import from_fs_path  # not on the CLI's path (`refs` uses this index)

        return from_fs_path(str(self.root / rel)) or f"file://{self.root / rel}"

    # ---- live documents ---------------------------------------------------------

    def open_document(self, uri: str, text: str, version: int) -> OpenDocument | None:
        rel = self.rel_path(uri)
        if rel is None or not admits(self.root, self.config, rel):
            return None
        doc = OpenDocument(rel, uri, version, text.encode("utf-8"))
        self.overlays[rel] = doc
        return doc

    def document(self, uri: str) -> OpenDocument | None:
        rel = self.rel_path(uri)
        return self.overlays.get(rel) if rel else None

    def close_document(self, uri: str) -> None:
        """The disk becomes the truth again: re-read the file if it differs from the store."""
        rel = self.rel_path(uri)
        if rel and self.overlays.pop(rel, None) is not None:
            self._overlay_symbols.pop(rel, None)
            self.refresh_file(rel)

    def refresh_file(self, rel: str) -> bool:
        """Bring one file's rows in line with the disk; True when something changed."""
        path = self.root / rel
        state = self.store.file_state(rel)
        try:
            data = path.read_bytes()
        except OSError:
            if state is not None:
                self.store.delete_files([rel])
                return True
            return False
        if state is not None and state.fingerprint == sha256_bytes(data):
            return False
        if is_binary(data) or len(data) > self.config.max_file_bytes:
            return False
        st = path.stat()
        self.store.write_files([analyze_bytes(rel, data, self.settings, st.st_size, st.st_mtime_ns)])
        return True

    def analysis(self, rel: str) -> FileAnalysis | None:
        doc = self.overlays.get(rel)
        return doc.analysis(self.settings) if doc else None

    # ---- queries (overlay first, then the store) ---------------------------------

    def file_symbols(self, rel: str) -> list[StoredSymbol]:
        """The file's definitions in file order: the buffer's if it is open, else the
        store's rows, read once per version of the file (its fingerprint, size and
        mtime as the store records them)."""
        analysis = self.analysis(rel)
        if analysis is not None:
            with self._symbols_lock:
                hit = self._overlay_symbols.get(rel)
                if hit is None or hit[0] is not analysis:
                    hit = (analysis, [StoredSymbol(rel, analysis.language, s) for s in analysis.symbols])
                    self._overlay_symbols[rel] = hit
            return list(hit[1])
        state = self.store.file_state(rel)
        if state is None:
            return []
        key = (state.fingerprint, state.size, state.mtime_ns)
        with self._symbols_lock:
            hit = self._stored_symbols.get(rel)
            if hit is not None and hit[0] == key:
                self._stored_symbols.move_to_end(rel)
                return list(hit[1])
        symbols = self.store.symbols_in_file(rel)
        with self._symbols_lock:
            self._stored_symbols[rel] = (key, symbols)
            while len(self._stored_symbols) > _SYMBOL_CACHE:
                self._stored_symbols.popitem(last=False)
        return list(symbols)

    def file_references(self, rel: str) -> list[StoredReference]:
        analysis = self.analysis(rel)
        if analysis is not None:
            return [StoredReference(rel, r) for r in analysis.complete_references()]
        return self.store.references_in_file(rel)

    def imports_of(self, rel: str) -> dict[str, str]:
        analysis = self.analysis(rel)
        imports = dict(analysis.imports) if analysis is not None else self.store.imports_of(rel)
        return self.ts_paths.rewrite(imports, rel)

    def definitions(
        self, name: str, exact: bool = True, language: str | None = None, limit: int = 200
    ) -> list[StoredSymbol]:
        found = [
            s
            for s in self.store.find_definitions(name, exact, language, limit)
            if s.path not in self.overlays
        ]
        needle = name.lower()
        qualified = (
            normalize_qualified(name)
            if exact and is_qualified(name) and not any(s.symbol.name == name for s in found)
            else None
        )
        for rel in self.overlays:
            for s in self.file_symbols(rel):
                if language and s.language != language:
                    continue
                sym = s.symbol
                if not exact:
                    hit = needle in sym.name.lower()
                elif qualified:
                    hit = qualified_matches(sym.qualified_name, qualified)
                else:
                    hit = name in (sym.name, sym.qualified_name)
                if hit:
                    found.append(s)
        return found[:limit]

    def references(self, name: str, limit: int = 1000) -> list[StoredReference]:
        raw = name.rsplit("\\", 1)[-1].rsplit(".", 1)[-1].rsplit("::", 1)[-1]
        shorts = {raw, raw.lstrip("$")}
        found = [r for r in self.store.find_references(name, limit) if r.path not in self.overlays]
        for rel in self.overlays:
            found.extend(r for r in self.file_references(rel) if r.reference.name in shorts)
        found.sort(key=lambda r: (r.path, r.reference.start_line, r.reference.start_character))
        return found[:limit]

    def workspace_symbols(self, query: str, limit: int = 100) -> list[StoredSymbol]:
        """Fuzzy by name: SQLite prefilters the distinct names by subsequence, Python
        scores every one of them, and only the rows of the best names are read (the
        best match is found however many names share the subsequence)."""
        query = query.strip()
        scores = {n: s for n in self.store.distinct_names_like(subsequence_like(query))
                  if (s := fuzzy_score(query, n)) is not None}
        best = sorted(scores, key=lambda n: -scores[n])[:limit]  # each has a row: enough
        scored: list[tuple[float, str, int, int | StoredSymbol]] = [
            (-scores[name], path, line, sid)
            for sid, name, path, line in self.store.rows_named(best)
            if path not in self.overlays
        ]
        for rel in self.overlays:
            for s in self.file_symbols(rel):
                score = fuzzy_score(query, s.symbol.name)
                if score is not None:
                    scored.append((-score, s.path, s.symbol.range.start.line, s))
        scored.sort(key=lambda t: t[:3])
        kept = [t[3] for t in scored[:limit]]
        rows = self.store.symbols_by_id([k for k in kept if isinstance(k, int)])
        return [rows[k] if isinstance(k, int) else k for k in kept if not isinstance(k, int) or k in rows]

    def line_text(self, rel: str, line: int) -> str:
        doc = self.overlays.get(rel)
        if doc is not None:
            return doc.line(line)
        try:
            with open(self.root / rel, encoding="utf-8", errors="replace") as fh:
                for n, text in enumerate(fh):
                    if n == line:
                        return text.rstrip("\r\n")
        except OSError:
            pass
        return ""

    def name_at(self, rel: str, line: int, character: int) -> str | None:
        """The identifier at a position, preferring what the index recorded there."""
        for s in self.file_symbols(rel):
            r = s.symbol.selection_range
            if r.start.line == line and r.start.character <= character <= r.end.character:
                return s.symbol.name
        return word_at(self.line_text(rel, line), character, self._language_of(rel))

    def resolve(self, rel: str, line: int, character: int) -> tuple[str | None, list[StoredSymbol]]:
        """Definitions the identifier at a position refers to, best first.

        The syntax decides first (locals and parameters, `self`/`this` members, typed
        receivers, imports, PHP class names); only what it leaves open is ranked by
        name."""
        answer = self.navigator.resolve(rel, line, character)
        if answer is not None and answer.decided:
            return answer.name, answer.definitions
        name = answer.name if answer is not None else self.name_at(rel, line, character)
        if not name:
            return None, []
        candidates = self.definitions(name)
        if answer is not None and answer.member:
            # `x.timeout` is a member of something, never the module-level `timeout`
            candidates = [c for c in candidates if not _is_file_level(c)] or candidates
        if answer is not None and answer.call is not None:
            # PHP: `$x->m()` is a method, `$x->m` a property
            candidates = [c for c in candidates if (c.symbol.kind.value in _CALLABLE) == answer.call] or candidates
        if not candidates:
            return name, []
        return name, rank_definitions(
            candidates, rel, self.imports_of(rel), name, self._language_of(rel)
        )

    def _language_of(self, rel: str) -> str | None:
        doc = self.overlays.get(rel)
        if doc is not None:
            return doc.language
        state = self.store.file_state(rel)
        return state.language if state else None

    def enclosing_symbol(self, rel: str, line: int) -> StoredSymbol | None:
        """The innermost definition whose range holds `line` (0-based)."""
        best = None
        for s in self.file_symbols(rel):
            r = s.symbol.range
            if r.start.line <= line <= r.end.line and (
                best is None or r.start.line >= best.symbol.range.start.line
            ):
                best = s
        return best

    # ---- sync -------------------------------------------------------------------

    def sync(self, force: bool = False, progress: ProgressFn | None = None) -> SyncReport:
        """Run one sync (serialised: a second caller waits for the first)."""
        held = list(self.overlays)
        with self._sync_lock:
            self.status.state = "indexing"
            self.status.done = self.status.total = 0

            def on_progress(done: int, total: int, path: str) -> None:
                self.status.done, self.status.total, self.status.current = done, total, path
                if progress:
                    progress(done, total, path)

            try:
                report = sync_workspace(
                    self.root, self.store, self.config, force, on_progress, exclude_paths=held
                )
            except Exception as exc:
                self.status.state, self.status.error = "error", str(exc)
                raise
            self.status.state = "ready"
            self.status.error = None
            self.status.current = ""
            self.status.last_sync_time = time.time()
            self.status.sync_count += 1
            self.status.last_report = {
                "added": len(report.added),
                "modified": len(report.modified),
                "deleted": len(report.deleted),
                "unchanged": report.unchanged,
                "skipped": len(report.skipped),
                "elapsed_seconds": round(report.elapsed, 3),
            }
            return report

    def status_result(self) -> IndexStatusResult:
        from .protocol import IndexStatusResult, SyncProgress  # lsprotocol: server side only

        st = self.status
        return IndexStatusResult(
            state=st.state,
            workspace=str(self.root),
            progress=SyncProgress(st.done, st.total, st.percent),
            last_sync_time=st.last_sync_time,
            sync_count=st.sync_count,
            last_sync=dict(st.last_report),
            counts=self.store.stats(),
            open_documents=sorted(self.overlays),
            messages=list(self.store.messages),
            error=st.error,
        )
