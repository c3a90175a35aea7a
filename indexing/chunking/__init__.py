"""The one table that maps a language id to its chunking strategy.

Adding a language means one module under `chunking/` and one line here. Strategies are
imported lazily so a broken or missing grammar degrades that language to line windows
instead of taking the indexer down.
"""

from __future__ import annotations

import importlib
import logging
from functools import cache

from .base import ChunkSettings, ChunkStrategy, LineWindowStrategy

log = logging.getLogger(__name__)

STRATEGIES: dict[str, str] = {
    "python": "python:PythonStrategy",
    "php": "php:PhpStrategy",
    "laravel_migration": "laravel_migration:LaravelMigrationStrategy",
    "filament_resource": "filament_resource:FilamentResourceStrategy",
    "laravel_routes": "laravel_routes:LaravelRoutesStrategy",
    "laravel_schema_dump": "laravel_schema_dump:LaravelSchemaDumpStrategy",
    "composer_json": "composer_json:ComposerJsonStrategy",
    "javascript": "javascript:JavaScriptStrategy",
    "jsx": "javascript:JsxStrategy",
    "typescript": "javascript:TypeScriptStrategy",
    "tsx": "javascript:TsxStrategy",
    "go": "go:GoStrategy",
    "java": "java:JavaStrategy",
    "html": "html:HtmlStrategy",
    "blade": "blade:BladeStrategy",
    "css": "css:CssStrategy",
    "scss": "css:ScssStrategy",
    "vue": "vue:VueStrategy",
    "tailwind_config": "tailwind_config:TailwindConfigStrategy",
}


@cache
def strategy_for(language: str) -> ChunkStrategy:
    target = STRATEGIES.get(language)
    if target is None:
        return LineWindowStrategy(language)
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
        return getattr(module, class_name)()
    except Exception as exc:  # noqa: BLE001 - one bad grammar must not stop indexing
        log.warning("no strategy for %s (%s); using 50-line windows", language, exc)
        return LineWindowStrategy(language)


__all__ = ["STRATEGIES", "ChunkSettings", "ChunkStrategy", "strategy_for"]
