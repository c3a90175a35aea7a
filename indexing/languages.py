"""Language detection by file name and the tree-sitter grammars behind each language.

Detection is a pure function of the workspace-relative path, ordered so that the
specific Laravel/Filament/config strategies win over the generic language of the file.
"""

from __future__ import annotations

import threading
from fnmatch import fnmatch
from functools import cache
from pathlib import PurePosixPath

import tree_sitter
import tree_sitter_language_pack

FALLBACK_LANGUAGE = "text"

_BY_SUFFIX: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".php": "php",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "scss",
    ".vue": "vue",
}

# Which tree-sitter grammar parses each language (None: the strategy does not parse).
GRAMMARS: dict[str, str | None] = {
    "python": "python",
    "php": "php",
    "laravel_migration": "php",
    "filament_resource": "php",
    "laravel_routes": "php",
    "blade": "html",
    "javascript": "javascript",
    "jsx": "javascript",
    "tailwind_config": "typescript",
    "typescript": "typescript",
    "tsx": "tsx",
    "go": "go",
    "java": "java",
    "html": "html",
    "css": "css",
    "scss": "scss",
    "vue": "vue",
    "composer_json": None,
    "laravel_schema_dump": None,
    FALLBACK_LANGUAGE: None,
}


def detect_language(rel_path: str) -> str:
    """Return the language id for a workspace-relative POSIX path."""
    path = PurePosixPath(rel_path)
    name = path.name
    lower = name.lower()
    if lower == "composer.json":
        return "composer_json"
    if fnmatch(lower, "tailwind.config.*") and path.suffix in {".js", ".ts", ".cjs", ".mjs"}:
        return "tailwind_config"
    if path.suffix == ".sql" and path.parts[-3:-1] == ("database", "schema"):
        return "laravel_schema_dump"
    if lower.endswith(".blade.php"):
        return "blade"
    if path.suffix == ".php":
        parts = path.parts
        if len(parts) >= 3 and parts[-3:-1] == ("database", "migrations"):
            return "laravel_migration"
        if "routes" in parts[-3:-1] and "app" not in parts[:-1]:
            return "laravel_routes"
        if "Filament" in parts[:-1] or (
            name.endswith("Resource.php") and "Resources" in parts[:-1]
        ):
            return "filament_resource"
        return "php"
    return _BY_SUFFIX.get(path.suffix.lower(), FALLBACK_LANGUAGE)


@cache
def grammar(name: str) -> tree_sitter.Language:
    return tree_sitter_language_pack.get_language(name)  # type: ignore[arg-type]


_local = threading.local()


def parser_for(grammar_name: str) -> tree_sitter.Parser:
    """A parser per thread: tree-sitter parsers are not safe to share across threads."""
    parsers: dict[str, tree_sitter.Parser] = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(grammar_name)
    if parser is None:
        parser = parsers[grammar_name] = tree_sitter.Parser(grammar(grammar_name))
    return parser


@cache
def query(grammar_name: str, source: str) -> tree_sitter.Query:
    return tree_sitter.Query(grammar(grammar_name), source)
