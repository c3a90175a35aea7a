"""Write checks (SPEC §4.8, seed 002 `validate_write_target`, §7 bad paths).

Order of the rules in `decide_write`:

1. a path outside the workspace (`..`, an absolute path elsewhere, a symlink whose
   target is elsewhere) is refused in every phase, and so is the gate's own state
   (`.code-intel/`);
2. documentation (`write_exempt_patterns`, by default `**/*.md`, `**/*.rst`,
   `**/*.txt`, `docs/**`) is allowed in every phase: a gate that blocks a README edit
   only wastes the agent's turns;
3. anything else needs phase READY;
4. a file that a rejected hypothesis named is refused;
5. an existing file must have been explored: submitted in `files_analyzed`, returned
   by one of the session's tool calls, confirmed in VERIFICATION or added with
   `add_explored_files`;
6. a new file needs `allow_new_files` and an explored parent directory.

A refusal in READY carries `recovery_options`, each naming a tool READY allows
(reading the file, add_explored_files for a new file, revert_to_exploration).
Only `resolve_target` touches the filesystem; `decide_write` is pure.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import attrs
import pathspec

from .model import Phase, WriteDecision

PROTECTED_DIRS = (".code-intel",)


@attrs.frozen
class Target:
    """A user-given path placed in the workspace: `rel` is None when it is outside."""

    given: str
    rel: str | None
    exists: bool = False
    is_dir: bool = False
    outside_reason: str | None = None


def resolve_target(root: Path, file_path: str) -> Target:
    """Resolve `file_path` (relative to the workspace, or absolute) with symlinks."""
    if not isinstance(file_path, str) or not file_path.strip() or "\x00" in file_path:
        return Target(str(file_path), None, outside_reason="not a usable path")
    root = root.resolve()
    given = Path(file_path)
    candidate = given if given.is_absolute() else root / given
    lexical = Path(os.path.normpath(candidate))
    if not _within(lexical, root):
        why = (
            "an absolute path outside the workspace"
            if given.is_absolute()
            else "'..' leads outside the workspace"
        )
        return Target(file_path, None, outside_reason=why)
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops
        return Target(file_path, None, outside_reason=f"cannot be resolved ({exc})")
    if not _within(resolved, root):
        return Target(file_path, None, outside_reason="a symlink leads outside the workspace")
    rel = resolved.relative_to(root).as_posix()
    if rel == ".":
        return Target(file_path, None, outside_reason="the workspace root itself is not a file")
    return Target(file_path, rel, resolved.exists(), resolved.is_dir())


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class ExemptFiles:
    """Documentation paths (gitignore-style patterns) exempt from exploration."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)

    def __contains__(self, rel: str) -> bool:
        return self._spec.match_file(rel)


def is_protected(rel: str) -> bool:
    return rel.split("/", 1)[0] in PROTECTED_DIRS


def explored_dirs(files: Iterable[str], dirs: Iterable[str] = ()) -> frozenset[str]:
    """Parents of explored files plus directories added explicitly ('' = root)."""
    return frozenset({posixpath.dirname(f) for f in files} | {d.rstrip("/") for d in dirs})


def explored_under(directory: str, explored_files: Iterable[str]) -> bool:
    """Has the session explored code under `directory` ('' = the root)? Any depth
    counts, except at the root, where only a file directly in it does (anything is
    under the root). Pass only code files: documentation never opens a directory."""
    if directory == "":
        return any("/" not in f for f in explored_files)
    prefix = directory.rstrip("/") + "/"
    return any(f.startswith(prefix) for f in explored_files)


def judge_addition(
    target: Target, explored_files: Collection[str], code_files: Collection[str],
    nearest_existing: str,
) -> tuple[str | None, str | None]:
    """One path given to add_explored_files → (the entry to add, or None; the problem).

    Only what the session has seen can be added (SPEC §4.8, issue 14): an existing file
    it explored (its own Read, or a code-intel result), a directory with explored code
    under it, or a new path (file or `dir/`) whose nearest existing directory
    `nearest_existing` has explored code under it — the way to a new file in a new
    directory. `code_files` are the explored files that are not documentation.
    """
    rel, given = target.rel, target.given
    if rel is None:
        return None, f"{given!r}: {target.outside_reason}"
    if is_protected(rel):
        return None, f"{given!r}: .code-intel/ is code-intel's own state"
    if target.exists and not target.is_dir:
        if rel in explored_files:
            return rel, None
        return None, (f"{rel} has not been seen in this session; only files you have read can "
                      f"be added: read it (analyze_structure(path={rel!r}), "
                      "get_function_at_line, or your own Read) — that alone makes it explored")
    if target.exists:
        if explored_under(rel, code_files):
            return rel + "/", None
        return None, (f"{rel}/ has no explored code in it; explore it first "
                      f"(get_symbols(path={rel!r}), then read a file there)")
    entry = rel + "/" if given.endswith("/") else rel
    if explored_under(nearest_existing, code_files):
        return entry, None
    shown = nearest_existing or "."
    return None, (f"{rel} does not exist and nothing under its nearest existing directory "
                  f"{shown} has been explored; explore {shown} first "
                  f"(get_symbols(path={shown!r}), then read a file there) and add {rel} again")


def recovery_options(
    rel: str | None, exists: bool = True, parent_explorable: bool = False,
    nearest_dir: str | None = None,
) -> tuple[dict[str, Any], ...]:
    """The ways out of a refusal in READY, each naming a tool READY allows: an existing
    file is explored by reading it (that alone admits it); a new file is added with
    add_explored_files once code near it was explored, else its directory is explored
    first."""
    if rel is None:
        return ()
    parent = posixpath.dirname(rel)
    revert = {
        "tool": "revert_to_exploration",
        "params": {"keep_results": True},
        "description": "go back to EXPLORATION keeping what was found, explore this part "
        "of the code and submit_understanding again",
    }
    if exists:
        first = {
            "tool": "analyze_structure",
            "params": {"path": rel},
            "description": f"read {rel} (analyze_structure, get_function_at_line or your own "
            "Read): a file you have read counts as explored; the session stays READY",
        }
    elif parent_explorable:
        first = {
            "tool": "add_explored_files",
            "params": {"paths": [rel]},
            "description": f"add the new file {rel} (code near it was explored); the "
            "session stays READY",
        }
    else:
        where = (parent if nearest_dir is None else nearest_dir) or "."
        first = {
            "tool": "get_symbols",
            "params": {"path": where},
            "description": f"explore {where} first (then read a file there), then "
            f"add_explored_files(paths=[{rel!r}]); the session stays READY",
        }
    return (first, revert)


def decide_write(
    *,
    session_id: str,
    phase: Phase,
    target: Target,
    explored_files: Collection[str],
    explored_directories: Collection[str],
    allow_new_files: bool,
    exempt: ExemptFiles,
    rejected_files: Collection[str] = (),
    new_file_addable: bool = False,
    nearest_dir: str | None = None,
) -> WriteDecision:
    """`new_file_addable`: for a new file, whether add_explored_files would accept it
    (code near it was explored); `nearest_dir`: its nearest existing directory. So the
    recovery offered is one that works."""

    def decide(allowed: bool, code: str, reason: str, recover: bool = False) -> WriteDecision:
        return WriteDecision(
            allowed=allowed,
            file_path=target.given,
            reason_code=code,
            reason=f"session {session_id}: {reason}",
            session_id=session_id,
            phase=phase,
            relative_path=target.rel,
            recovery_options=recovery_options(target.rel, target.exists, new_file_addable,
                                              nearest_dir)
            if recover else (),
        )

    rel = target.rel
    if rel is None:
        return decide(False, "outside_workspace", f"{target.given!r} is refused: "
                      f"{target.outside_reason}; only files inside the workspace can be written")
    if is_protected(rel):
        return decide(False, "protected", f"{rel} belongs to code-intel's own state "
                      "(.code-intel/) and is never written by an agent")
    if target.is_dir:
        return decide(False, "is_directory", f"{rel} is a directory, not a file")
    if rel in exempt:
        return decide(True, "documentation", f"{rel} matches write_exempt_patterns "
                      f"{list(exempt.patterns)}: documentation needs no exploration")
    if phase is not Phase.READY:
        return decide(False, "phase", f"writes are allowed only in READY and the session "
                      f"is in {phase.value}; finish the phase first")
    if rel in rejected_files:
        return decide(False, "rejected_hypothesis", f"{rel} was named by a hypothesis that "
                      "VERIFICATION rejected; implementing on it is refused", recover=True)
    if target.exists:
        if rel in explored_files:
            return decide(True, "explored", f"{rel} was explored in this session")
        return decide(False, "unexplored", f"{rel} was not explored in this session "
                      "(not in files_analyzed nor in any tool result)", recover=True)
    parent = posixpath.dirname(rel)
    if not allow_new_files:
        return decide(False, "new_file_not_allowed", f"{rel} does not exist; creating a file "
                      "needs allow_new_files=true", recover=True)
    if parent not in explored_directories:
        return decide(False, "unexplored_directory", f"{rel} is new and its directory "
                      f"{parent or '.'} was not explored", recover=True)
    return decide(True, "new_file", f"{rel} is a new file in the explored directory "
                  f"{parent or '.'}")
