"""`detect_language` by string operations: the same answer as the `PurePosixPath` +
`fnmatch` definition it replaced, for every path, without building a path object for
the clean relative paths a sync asks about (once per file, serially before the fork)."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import PurePosixPath

import pytest
from code_intel.indexing import languages
from code_intel.indexing.languages import _BY_SUFFIX, FALLBACK_LANGUAGE, detect_language
from hypothesis import given, settings
from hypothesis import strategies as st


def reference_detect_language(rel_path: str) -> str:
    """The definition: `detect_language` as it was written with `PurePosixPath`."""
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
        if "Filament" in parts[:-1] or (name.endswith("Resource.php") and "Resources" in parts[:-1]):
            return "filament_resource"
        return "php"
    return _BY_SUFFIX.get(path.suffix.lower(), FALLBACK_LANGUAGE)


EXAMPLES = [
    "composer.json", "sub/COMPOSER.JSON", "tailwind.config.js", "web/Tailwind.Config.ts",
    "tailwind.config.json", "tailwind.config.", "tailwind.configx.js", "database/schema/mysql-schema.sql",
    "x/database/schema/a.sql", "database/schema.sql", "resources/views/a.blade.php", "A.BLADE.PHP",
    "database/migrations/2020_create.php", "migrations/x.php", "routes/web.php", "routes/api/v1.php",
    "app/routes/web.php", "app/Http/routes/x.php", "src/Filament/Pages/Home.php", "app/Resources/UserResource.php",
    "app/UserResource.php", "src/Foo.php", "Foo.PHP", "a.py", "a.pyi", "b.MJS", "c.tsx", "d.vue",
    "e.scss", "f.htm", "Makefile", ".bashrc", ".php", "a.", "..", "a/..", "a/../b.php", "a.tar.gz",
    "", ".", "/", "//", "./a.php", "a//b.php", "a/./b.php", "a/b.php/", "/database/migrations/x.php",
    "//routes/web.php", "/routes/web.php", "///app/routes/x.php", "a\\b.php", "dir.php/file",
]


@pytest.mark.parametrize("path", EXAMPLES)
def test_each_rule_gives_the_answer_of_the_path_object_definition(path: str) -> None:
    assert detect_language(path) == reference_detect_language(path)


_SEGMENT = st.sampled_from([
    "", ".", "..", "app", "routes", "database", "migrations", "schema", "Filament", "Resources", "src",
    "composer.json", "tailwind.config.js", "tailwind.config.ts", "x.blade.php", "UserResource.php", "a.php",
    "a.PHP", "a.sql", ".php", "a.", "a.py", "A.Vue", "name", "ü.css", "x y.go",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(_SEGMENT, min_size=1, max_size=6), st.booleans())
def test_any_path_gets_the_answer_of_the_path_object_definition(segments: list[str], absolute: bool) -> None:
    path = ("/" if absolute else "") + "/".join(segments)
    assert detect_language(path) == reference_detect_language(path)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="/.aAbpPhHsqlj_dx ", max_size=24))
def test_arbitrary_strings_get_the_answer_of_the_path_object_definition(path: str) -> None:
    assert detect_language(path) == reference_detect_language(path)


def test_a_clean_relative_path_builds_no_path_object(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file of a sync asks once in the parent before the workers fork (serial) and
    once in its worker: a path object and `fnmatch` were 3.4 µs of that a path."""

    def refuse(*_args: object) -> None:
        raise AssertionError("a clean relative path needs no PurePosixPath")

    monkeypatch.setattr(languages, "PurePosixPath", refuse)
    assert detect_language("src/Illuminate/Database/Migrations/Migrator.php") == "php"
    assert detect_language("database/migrations/2024_01_01_create_users.php") == "laravel_migration"
    assert detect_language("web/tailwind.config.ts") == "tailwind_config"
    assert detect_language("README") == FALLBACK_LANGUAGE
