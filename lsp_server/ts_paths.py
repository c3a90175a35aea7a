"""Module specifiers a TypeScript project maps in its tsconfig (`compilerOptions.paths`
and `baseUrl`): `import { DomainEvent } from '@libs/ddd'` with `"@libs/*": ["src/libs/*"]`,
`import * as maybe from 'true-myth/maybe'` with `"true-myth/*": ["./src/*.ts"]`.

The index stores an import's target as the specifier written (a package name stays a
package name, see `indexing/chunking/javascript.py`), so such imports looked external
and everything reached through them went unanswered. Here the targets of a file's
imports are rewritten to the project module the tsconfig maps them to, the way tsserver
resolves them: the nearest tsconfig.json above the importing file (following relative
`extends`), the longest matching `paths` pattern first, its substitutions in order, then
`baseUrl`; only a file that exists counts. Pure mapping apart from `load` (reads the
config files) and the `exists` callback the caller passes.
"""

from __future__ import annotations

import json
import logging
import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_intel.indexing.chunking.javascript import module_name

log = logging.getLogger(__name__)

_CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_SKIP_DIRS = frozenset({"node_modules", ".git", "dist", "build", "out", "coverage", ".code-intel"})
_MAX_DEPTH = 4  # how deep below the root tsconfig files are looked for (monorepo packages)
_MAX_EXTENDS = 5
# what a mapped path may name, in tsserver's order: the path itself with a TS/JS
# extension, then a directory's index file
_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
_JS_FILE = re.compile(r"\.(?:d\.ts|[cm]?[jt]sx?)$")


@dataclass(frozen=True)
class PathPattern:
    """One `paths` entry: `prefix*suffix` (or an exact specifier when `star` is False)
    mapped to substitutions, each a workspace-relative path that may hold one `*`."""

    prefix: str
    suffix: str
    star: bool
    targets: tuple[str, ...]

    def match(self, specifier: str) -> str | None:
        """What the `*` stands for ("" for an exact pattern), or None."""
        if not self.star:
            return "" if specifier == self.prefix else None
        if (
            len(specifier) >= len(self.prefix) + len(self.suffix)
            and specifier.startswith(self.prefix)
            and specifier.endswith(self.suffix)
        ):
            return specifier[len(self.prefix) : len(specifier) - len(self.suffix)]
        return None


@dataclass(frozen=True)
class ProjectConfig:
    """A tsconfig.json's mapping: the directory it governs (workspace-relative, "" for
    the root), its `baseUrl` and its `paths`, both already relative to the workspace."""

    directory: str
    base_url: str | None
    patterns: tuple[PathPattern, ...]


def strip_jsonc(text: str) -> str:
    """tsconfig files are JSON with comments and trailing commas: drop both, leaving
    strings alone (`"$schema": "https://…"` holds `//`)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def parse_config(text: str) -> dict[str, object]:
    """A tsconfig's content as a dict; {} when it is not readable JSON (with comments)."""
    try:
        data = json.loads(strip_jsonc(text))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _join(directory: str, relative: str) -> str:
    joined = posixpath.normpath(posixpath.join(directory, relative))
    return "" if joined == "." else joined


def build_config(directory: str, chain: list[tuple[str, dict[str, object]]]) -> ProjectConfig:
    """The effective `baseUrl`/`paths` of the config in `directory`, given its chain of
    (directory of the file, parsed content), the file itself first then what it extends.
    The nearest file that sets an option wins; `paths` resolve against `baseUrl`, or
    without one against the directory of the file that declares them."""
    base_url: str | None = None
    paths: dict[str, object] | None = None
    paths_dir = directory
    for where, data in chain:
        options = data.get("compilerOptions")
        if not isinstance(options, dict):
            continue
        if base_url is None and isinstance(options.get("baseUrl"), str):
            base_url = _join(where, options["baseUrl"])
        if paths is None and isinstance(options.get("paths"), dict):
            paths, paths_dir = options["paths"], where
    anchor = base_url if base_url is not None else paths_dir
    patterns: list[PathPattern] = []
    for key, values in (paths or {}).items():
        if not isinstance(values, list) or key.count("*") > 1:
            continue
        targets = tuple(_join(anchor, v) for v in values if isinstance(v, str) and v.count("*") <= 1)
        prefix, star, suffix = key.partition("*")
        patterns.append(PathPattern(prefix, suffix, bool(star), targets))
    # tsserver: an exact match first, then the longest prefix
    patterns.sort(key=lambda p: (p.star, -len(p.prefix)))
    return ProjectConfig(directory, base_url, tuple(patterns))


class TsPaths:
    """The tsconfig mappings of one workspace, asked per importing file."""

    def __init__(self, configs: list[ProjectConfig]) -> None:
        # deepest directory first: the nearest config governs a file
        self.configs = sorted(configs, key=lambda c: -len(c.directory))

    def __bool__(self) -> bool:
        return any(c.patterns or c.base_url is not None for c in self.configs)

    def config_for(self, importer: str) -> ProjectConfig | None:
        for c in self.configs:
            if not c.directory or importer.startswith(c.directory + "/"):
                return c
        return None

    def resolve(self, specifier: str, importer: str, exists: Callable[[str], bool]) -> str | None:
        """The workspace file a non-relative specifier maps to, or None (a package, or a
        mapping to nothing that exists)."""
        if specifier.startswith((".", "/")):
            return None
        config = self.config_for(importer)
        if config is None:
            return None
        for pattern in config.patterns:
            star = pattern.match(specifier)
            if star is None:
                continue
            for target in pattern.targets:
                found = _file(target.replace("*", star), exists)
                if found:
                    return found
            return None  # the first matching pattern decides, as in tsc
        if config.base_url is not None:
            return _file(_join(config.base_url, specifier), exists)
        return None

    def module_of(self, specifier: str, importer: str, exists: Callable[[str], bool]) -> str | None:
        """The module name (`indexing.chunking.javascript.module_name`) a specifier maps to."""
        found = self.resolve(specifier, importer, exists)
        return module_name(found) if found else None

    def rewrite(self, imports: dict[str, str], importer: str, exists: Callable[[str], bool]) -> dict[str, str]:
        """A file's import targets (`local -> specifier[.name]`) with mapped specifiers
        replaced by their module names. The stored target no longer says where the
        specifier ends (`@src/app.module.AppModule`): the longest prefix, at a dot,
        that maps to an existing file is the specifier."""
        out = dict(imports)
        for local, target in imports.items():
            if target.startswith((".", "/")):
                continue
            cut = len(target)
            while cut > 0:
                module = self.module_of(target[:cut], importer, exists)
                if module is not None:
                    out[local] = module + target[cut:]
                    break
                cut = target.rfind(".", 0, cut)
        return out


def _file(path: str, exists: Callable[[str], bool]) -> str | None:
    """The file a mapped path names: itself when it carries a TS/JS extension (`.js`
    written for a `.ts` source too), else with an extension, else its index file."""
    if not path or path.startswith(".."):
        return None
    if _JS_FILE.search(path):
        if exists(path):
            return path
        stem = _JS_FILE.sub("", path)
        for ext in (".ts", ".tsx", ".d.ts"):
            if exists(stem + ext):
                return stem + ext
        return None
    for ext in _EXTENSIONS:
        if exists(path + ext):
            return path + ext
    for ext in _EXTENSIONS:
        if exists(f"{path}/index{ext}"):
            return f"{path}/index{ext}"
    return None


def _read(path: Path) -> dict[str, object]:
    try:
        return parse_config(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}


def _chain(root: Path, rel_file: str) -> list[tuple[str, dict[str, object]]]:
    """A config file and what it extends, nearest first (relative `extends` and
    packages installed in the workspace's node_modules; others are skipped)."""
    out: list[tuple[str, dict[str, object]]] = []
    pending = [rel_file]
    while pending and len(out) < _MAX_EXTENDS:
        rel = pending.pop(0)
        data = _read(root / rel)
        where = posixpath.dirname(rel)
        out.append((where, data))
        extends = data.get("extends")
        for ext in extends if isinstance(extends, list) else [extends]:
            if not isinstance(ext, str):
                continue
            if ext.startswith("."):
                target = _join(where, ext)
            else:
                target = posixpath.join("node_modules", ext)
                if (root / target).is_dir():
                    target = posixpath.join(target, "tsconfig.json")
            if not target.endswith(".json") and (root / (target + ".json")).is_file():
                target += ".json"
            if not target.startswith("..") and (root / target).is_file():
                pending.append(target)
    return out


def config_files(root: Path) -> list[str]:
    """Workspace-relative tsconfig.json / jsconfig.json files, a few levels deep."""
    found: list[str] = []

    def walk(directory: Path, rel: str, depth: int) -> None:
        for name in _CONFIG_NAMES:
            if (directory / name).is_file():
                found.append(f"{rel}/{name}" if rel else name)
                break
        if depth >= _MAX_DEPTH:
            return
        try:
            children = sorted(p for p in directory.iterdir() if p.is_dir())
        except OSError:
            return
        for child in children:
            if child.name not in _SKIP_DIRS and not child.name.startswith("."):
                walk(child, f"{rel}/{child.name}" if rel else child.name, depth + 1)

    walk(root, "", 0)
    return found


def load(root: Path) -> tuple[TsPaths, list[str]]:
    """The workspace's mappings and the tsconfig files found (a caller re-reads when one
    of them changes)."""
    configs: list[ProjectConfig] = []
    read: list[str] = []
    for rel in config_files(root):
        chain = _chain(root, rel)
        read.append(rel)
        configs.append(build_config(posixpath.dirname(rel), chain))
    return TsPaths(configs), read


class WorkspaceTsPaths:
    """A workspace's mappings as the server uses them: read on first use, re-read when a
    tsconfig found then changes, file existence cached for a while (`_TTL` seconds: a
    file created since is seen at the latest then). Thread-safe enough for the workers:
    every field is replaced whole, never mutated in place by two threads at once."""

    _TTL = 30.0

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: TsPaths | None = None
        self._stamps: dict[str, float] = {}
        self._exists: dict[str, bool] = {}
        self._rewritten: dict[tuple[str, tuple[tuple[str, str], ...]], dict[str, str]] = {}
        self._checked = 0.0

    def _current(self) -> TsPaths:
        now = time.monotonic()
        if self._paths is not None and now - self._checked < self._TTL:
            return self._paths
        stamps = {rel: _mtime(self.root / rel) for rel in self._stamps}
        if self._paths is None or stamps != self._stamps:
            paths, files = load(self.root)
            self._stamps = {rel: _mtime(self.root / rel) for rel in files}
            self._paths = paths
            if paths:
                log.info("tsconfig paths/baseUrl mapped for %d config(s)", len(files))
        self._exists = {}
        self._rewritten = {}
        self._checked = now
        return self._paths

    def _is_file(self, rel: str) -> bool:
        cache = self._exists
        if rel not in cache:
            cache[rel] = (self.root / rel).is_file()
        return cache[rel]

    def rewrite(self, imports: dict[str, str], importer: str) -> dict[str, str]:
        """`TsPaths.rewrite` for a JS/TS file of this workspace (others pass through)."""
        if not imports or not _JS_FILE.search(importer):
            return imports
        paths = self._current()
        if not paths:
            return imports
        key = (importer, tuple(imports.items()))
        cache = self._rewritten
        if key not in cache:  # a definition request reads a file's imports several times
            if len(cache) > 4096:
                cache.clear()
            cache[key] = paths.rewrite(imports, importer, self._is_file)
        return dict(cache[key])

    def module_of(self, specifier: str, importer: str) -> str | None:
        paths = self._current()
        return paths.module_of(specifier, importer, self._is_file) if paths else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return -1.0
