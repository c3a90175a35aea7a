"""Identifiers to words: `AuthService` → `Auth Service`, `find_by_email` → `find by email`.

Embedding models and BM25 both see natural-language words better than glued
identifiers (SPEC §3.5: symbols are compared after camelCase / snake_case splitting).
Pure functions, no model, shared by the embed texts, the lexical index and the
gating engine's symbol comparisons.
"""

from __future__ import annotations

import re

# One identifier part: an acronym not followed by a lowercase letter (HTTP in
# HTTPServer), a capitalised or lowercase word, or a run of digits.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+")
# Separators inside qualified names and paths: `App\Http\X`, `a.b.c`, `X::y`, `a/b-c`.
_SEPARATORS = re.compile(r"(?:::|->|[\\/.#:$@_\-\s])+")
IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def split_identifier(name: str) -> list[str]:
    """The words of one identifier or qualified name, case kept.

    >>> split_identifier("HTTPServerError_v2")
    ['HTTP', 'Server', 'Error', 'v', '2']
    >>> split_identifier("App\\\\Http\\\\Controllers\\\\LoginController::login")
    ['App', 'Http', 'Controllers', 'Login', 'Controller', 'login']
    """
    words: list[str] = []
    for piece in _SEPARATORS.split(name):
        if piece:
            words.extend(_PART.findall(piece) or [piece])
    return words


def identifier_words(name: str) -> str:
    """`AuthService::isLockedOut` → `Auth Service is Locked Out`."""
    return " ".join(split_identifier(name))


def words_in_text(text: str) -> str:
    """Every ASCII identifier in `text` replaced by its words; other text kept.

    Japanese (or any non-ASCII) prose passes through unchanged, so a mixed
    sentence like `AuthServiceでログイン` becomes `Auth Service でログイン`.
    """
    return IDENTIFIER.sub(lambda m: " ".join(split_identifier(m.group(0))) or m.group(0), text)
