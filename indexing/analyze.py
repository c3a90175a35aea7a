"""Turn one file's bytes (from disk or an editor buffer) into a FileAnalysis."""

from __future__ import annotations

import logging

import tree_sitter

from .chunking import ChunkSettings, strategy_for
from .chunking.base import LineWindowStrategy, TreeSitterStrategy
from .file_kinds import looks_minified
from .languages import GRAMMARS, detect_language, parser_for
from .model import FileAnalysis
from .source import SourceDocument

log = logging.getLogger(__name__)

#: Languages shipped minified (bundles under `dist/`, `public/vendor/`): such a file's
#: one-letter names are no one's definitions, and parsing and walking a 700 KB line cost
#: more than the rest of a Laravel `src/` together. Python, PHP or TypeScript files with
#: long lines are hand-written and keep their analysis.
_MINIFIED_LANGUAGES = frozenset({"javascript", "css"})


def parse(language: str, data: bytes, old_tree: tree_sitter.Tree | None = None):
    """Parse with the language's grammar; `old_tree` (already `.edit()`ed) makes it
    incremental. Returns None for languages without a grammar."""
    grammar_name = GRAMMARS.get(language)
    if grammar_name is None:
        return None
    parser = parser_for(grammar_name)
    tree = parser.parse(data, old_tree) if old_tree is not None else parser.parse(data)
    if grammar_name in ("typescript", "tsx") and tree.root_node.has_error:
        # a grammar gap in generic call signatures: kept only when it parses clean (the
        # JS/TS module is imported here, not by every index of a PHP or Python tree)
        from .chunking.javascript import repair_generic_signatures

        fixed = repair_generic_signatures(data)
        repaired = parser.parse(fixed) if fixed is not None else None
        if repaired is not None and not repaired.root_node.has_error:
            return repaired
    return tree


def analyze_source(
    path: str,
    data: bytes,
    settings: ChunkSettings | None = None,
    language: str | None = None,
    tree: tree_sitter.Tree | None = None,
    lazy: bool = False,
    packed: bool = False,
) -> FileAnalysis:
    """Analyse `data` as the file at workspace-relative `path`.

    A minified bundle (`_MINIFIED_LANGUAGES`) gets an empty analysis with a note;
    ripgrep-based text search still reads it.

    Never raises for bad content: a strategy failure falls back to line windows and
    is recorded in `notes`, so one odd file cannot stop a sync. `lazy` (grammar
    strategies only; markup strategies merge references as they go) leaves the
    reference pass and the chunks to `FileAnalysis.complete_references()` and
    `complete_chunks()`. `packed` (the index's sync, which only stores them packed):
    the references may come as `packed_references` instead (`analyze_packed`).
    """
    settings = settings or ChunkSettings()
    language = language or detect_language(path)
    if language in _MINIFIED_LANGUAGES and looks_minified(data):
        return FileAnalysis(path=path, language=language,
                            notes=["minified: not analysed (no symbols, references or search chunks)"])
    doc = SourceDocument(path=path, language=language, data=data)
    try:
        doc.tree = tree if tree is not None else parse(language, data)
        strategy = strategy_for(language)
        if (doc.tree is None and not isinstance(strategy, LineWindowStrategy)
                and getattr(strategy, "grammar_name", None)):
            strategy = LineWindowStrategy(language)
        if lazy and isinstance(strategy, TreeSitterStrategy):
            return strategy.analyze(doc, settings, lazy=True)
        if packed and isinstance(strategy, TreeSitterStrategy):
            return strategy.analyze_packed(doc, settings)
        return strategy.analyze(doc, settings)
    except Exception as exc:  # noqa: BLE001
        log.warning("%s: %s strategy failed (%s); using line windows", path, language, exc)
        analysis = LineWindowStrategy(language).analyze(doc, settings)
        analysis.notes.append(f"{language} strategy failed: {exc}")
        return analysis
