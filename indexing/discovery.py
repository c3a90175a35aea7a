"""Which files of a workspace are indexed, and why the others are not.

Honours every `.gitignore` on the way down (patterns relative to their directory, as
git does), the config's `exclude_patterns` and `source_dirs`, and never follows a
symlink out of the workspace. Directory symlinks inside the workspace are skipped too:
their target is indexed under its own path, and following them invites loops.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from .config import CONFIG_DIR, Config

ALWAYS_SKIPPED_DIRS = frozenset({".git", CONFIG_DIR, ".hg", ".svn"})


@dataclass(frozen=True, slots=True)
class Candidate:
    rel_path: str
    abs_path: str
    size: int
    mtime_ns: int


@dataclass
class Discovery:
    files: dict[str, Candidate] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # rel path -> reason


#: A named group of pathspec's pattern regexes (its directory mark): one name may appear
#: once in a regex, so the screen makes them plain groups.
_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")
_NEVER = re.compile(r"(?!)")


@dataclass(frozen=True, slots=True)
class IgnoreSpec:
    """A gitignore-style `pathspec.GitIgnoreSpec`, screened by one regex: the
    alternation of all its patterns. A path none of them matches is not ignored,
    whatever their order and negations, and that is most paths; the rest get the
    spec's own answer. pathspec tries each pattern in turn (21 regex searches a path
    on sympy, whose .gitignore has 60 lines), all of it serial before the first file
    is sent to a parser. With the .gitignore files read only where a directory has
    one, the walk's CPU (min of 15): sympy 67 -> 34 ms, Laravel 32 -> 21 ms."""

    spec: pathspec.PathSpec
    screen: re.Pattern[str] | None  # None: the spec answers every path

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> IgnoreSpec:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        active = [p for p in spec.patterns if p.include is not None]
        if any(getattr(p, "regex", None) is None for p in active):  # a kind without a regex
            return cls(spec, None)
        parts = [_NAMED_GROUP.sub("(?:", p.regex.pattern) for p in active]
        if not parts:
            return cls(spec, _NEVER)
        # anchored patterns (most are), anchored once: then a search tries the path's
        # start only, not every position of it
        anchored = all(p.startswith("^") for p in parts)
        if anchored:
            parts = [p[1:] for p in parts]
        try:
            joined = "|".join(f"(?:{p})" for p in parts)
            screen: re.Pattern[str] | None = re.compile(f"^(?:{joined})" if anchored else joined)
        except (re.error, TypeError):  # a pattern kind this does not know: no screen
            screen = None
        return cls(spec, screen)

    def match_file(self, path: str) -> bool:
        if self.screen is not None and self.screen.search(path) is None:
            return False
        return self.spec.match_file(path)


@dataclass(frozen=True)
class _Ignore:
    base: str  # rel dir of the .gitignore ("" for the root), with trailing "/"
    spec: IgnoreSpec

    def matches(self, rel: str, is_dir: bool) -> bool:
        if self.base and not rel.startswith(self.base):
            return False
        local = rel[len(self.base) :]
        return self.spec.match_file(local + "/" if is_dir else local)


def is_within(root: Path, target: Path) -> bool:
    try:
        target.relative_to(root)
        return True
    except ValueError:
        return False


def discover(root: Path, config: Config) -> Discovery:
    root = root.resolve()
    result = Discovery()
    excludes = IgnoreSpec.from_lines(config.exclude_patterns)
    starts = [""]
    if config.source_dirs:
        starts = [d.strip("/") for d in config.source_dirs if (root / d).is_dir()]
    for start in starts:
        inherited = _ancestor_ignores(root, start)
        for cand_or_skip in _walk(root, start, inherited, excludes, config):
            if isinstance(cand_or_skip, Candidate):
                result.files[cand_or_skip.rel_path] = cand_or_skip
            else:
                rel, reason = cand_or_skip
                result.skipped[rel] = reason
    return result


def _ancestor_ignores(root: Path, start: str) -> list[_Ignore]:
    ignores = []
    parts = start.split("/") if start else []
    for i in range(len(parts) + 1):
        rel_dir = "/".join(parts[:i])
        ignore = _load_gitignore(root, rel_dir)
        if ignore:
            ignores.append(ignore)
    return ignores


def _load_gitignore(root: Path, rel_dir: str) -> _Ignore | None:
    path = root / rel_dir / ".gitignore"
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _Ignore(f"{rel_dir}/" if rel_dir else "", IgnoreSpec.from_lines(lines))


def _walk(
    root: Path,
    rel_dir: str,
    ignores: list[_Ignore],
    excludes: IgnoreSpec,
    config: Config,
) -> Iterator[Candidate | tuple[str, str]]:
    try:
        entries = sorted(os.scandir(os.path.join(root, rel_dir)), key=lambda e: e.name)
    except OSError as exc:
        yield (rel_dir or ".", f"unreadable directory ({exc.strerror})")
        return
    # read only where the listing has one: trying every directory cost sympy 258 failed
    # opens (and their exceptions), 0.01-0.02 s before the first file was parsed
    if rel_dir and any(e.name == ".gitignore" for e in entries):
        here = _load_gitignore(root, rel_dir)
        if here:
            ignores = [*ignores, here]
    for entry in entries:
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        try:
            is_link = entry.is_symlink()
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_link:
            target = Path(os.path.realpath(entry.path))
            if not is_within(root, target):
                yield (rel, "symlink leaves the workspace")
                continue
            if target.is_dir():
                yield (rel, "symlinked directory (its target is indexed under its own path)")
                continue
            if not target.is_file():
                yield (rel, "broken symlink")
                continue
        if is_dir:
            if entry.name in ALWAYS_SKIPPED_DIRS:
                continue
            if excludes.match_file(rel + "/") or any(i.matches(rel, True) for i in ignores):
                continue
            yield from _walk(root, rel, ignores, excludes, config)
            continue
        if entry.name == ".gitignore":
            continue
        if excludes.match_file(rel) or any(i.matches(rel, False) for i in ignores):
            continue
        try:
            st = entry.stat(follow_symlinks=True)
        except OSError as exc:
            yield (rel, f"unreadable ({exc.strerror})")
            continue
        if not entry.is_file(follow_symlinks=True):
            continue
        if st.st_size > config.max_file_bytes:
            yield (rel, f"larger than max_file_bytes ({config.max_file_bytes} bytes)")
            continue
        yield Candidate(rel, entry.path, st.st_size, st.st_mtime_ns)


def admits(root: Path, config: Config, rel_path: str) -> bool:
    """Would `discover` consider this workspace-relative file (ignoring its size)?

    The language server asks this for single paths (an opened buffer, a watched-file
    event) so that one file costs a few pattern matches rather than a tree walk.
    """
    parts = rel_path.split("/")
    if any(p in ALWAYS_SKIPPED_DIRS for p in parts[:-1]) or parts[-1] == ".gitignore":
        return False
    if config.source_dirs and not any(
        rel_path == d.strip("/") or rel_path.startswith(d.strip("/") + "/") for d in config.source_dirs
    ):
        return False
    excludes = IgnoreSpec.from_lines(config.exclude_patterns)
    ignores = _ancestor_ignores(root.resolve(), "/".join(parts[:-1]))
    for i in range(1, len(parts)):
        rel_dir = "/".join(parts[:i])
        if excludes.match_file(rel_dir + "/") or any(g.matches(rel_dir, True) for g in ignores):
            return False
    return not (excludes.match_file(rel_path) or any(g.matches(rel_path, False) for g in ignores))
