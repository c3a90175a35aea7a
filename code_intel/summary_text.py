"""The human summary of `code-intel index`: a heading, one table and lines of text.

Rich drew it after every build: importing rich's console and table and rendering cost the
CLI's parent 114 M instructions (~20 ms), serial, after the last file (the callgrind of
sympy/core + printing: a tenth of all the parent does after its workers start). Where
nothing can be styled (standard output is not a terminal and no variable tells rich to
act as one: a pipe, a log, what scripts and benchmarks read) `plain` writes the very
characters rich would: rich renders a table without a box as each cell padded by one
space on both sides to its column's width, and prints a text without markup as it is.
Wherever rich could write something else (a terminal's styles, a set width, text rich
would sanitise, a table wider than rich's 80 columns) `plain` gives None and rich
draws it. Either way the workspace's path and the lines are text, never rich markup:
`/tmp/[x]/y :smile:` was printed as `/tmp//y 😄`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, TextIO

#: rich's width for a file that is not a terminal, when COLUMNS does not set one
RICH_DEFAULT_WIDTH = 80
#: variables under which rich may treat standard output as a terminal, or set its width
_RICH_ENVIRONMENT = ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS", "JUPYTER_COLUMNS")


HEADING = "Indexed"  # bold, before the workspace's path
HEADER = ("language", "files")


@dataclass(frozen=True)
class Summary:
    """What the summary says: HEADING and the workspace's path, the table of files by
    language (HEADER, then a row per language), then `lines`."""

    root: str
    languages: list[tuple[str, str]]
    lines: list[str]


def summary(root: str, stats: dict[str, Any], added: int, modified: int, deleted: int, unchanged: int,
            elapsed: float, workers: int) -> Summary:
    lines = [
        (f"{stats['files']} files, {stats['chunks']} chunks, {stats['symbols']} symbols, "
         f"{stats['references']} references"),
        (f"this run: {added} added, {modified} modified, {deleted} deleted, {unchanged} unchanged "
         f"in {elapsed:.2f}s ({workers} worker(s))"),
    ]
    if stats["skipped"]:
        lines.append("skipped:")
        lines += [f"  {count:>5}  {reason}" for reason, count in stats["skipped"].items()]
    if stats["syntax_error_files"]:
        lines.append(f"{stats['syntax_error_files']} file(s) have syntax errors (indexed as far as they parse)")
    languages = [(lang, str(count)) for lang, count in stats["languages"].items()]
    return Summary(root, languages, lines)


def plain(s: Summary) -> str | None:
    """The summary's text exactly as rich prints it to a file that is not a terminal; None
    where rich might print anything else (see the module docstring)."""
    cells = [*HEADER, *(cell for row in s.languages for cell in row)]
    texts = [s.root, *s.lines]
    if not all(c.isascii() and c.isprintable() for c in cells) or not all(t.isprintable() for t in texts):
        return None  # rich measures wide characters and strips control codes its own way
    widths = [max(len(row[i]) for row in [HEADER, *s.languages]) for i in range(2)]
    if sum(widths) + 4 > RICH_DEFAULT_WIDTH:
        return None
    table = [f" {lang.ljust(widths[0])}  {files.rjust(widths[1])} " for lang, files in [HEADER, *s.languages]]
    return "".join(f"{line}\n" for line in [f"{HEADING} {s.root}", *table, *s.lines])


def rich_print(s: Summary, file: TextIO | None = None) -> None:
    """The summary through rich (a terminal's styles): the same text, the heading bold."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    out = Console(file=file, highlight=False, soft_wrap=True)
    out.print(Text.assemble((HEADING, "bold"), f" {s.root}"))
    table = Table(show_header=True, header_style="bold", box=None)
    table.add_column(HEADER[0])
    table.add_column(HEADER[1], justify="right")
    for row in s.languages:
        table.add_row(*row)
    out.print(table)
    for line in s.lines:
        out.print(line, markup=False, emoji=False)


def may_be_terminal(stream: TextIO, variables: tuple[str, ...]) -> bool:
    """False only where rich surely treats `stream` as no terminal: it is not a tty and
    none of `variables` (those rich reads to force a terminal or a width) is set."""
    if any(name in os.environ for name in variables):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except (OSError, ValueError):
        return False


def may_style_stdout() -> bool:
    """False only where rich surely writes no style and uses its default width to
    standard output."""
    return may_be_terminal(sys.stdout, _RICH_ENVIRONMENT)


def print_summary(s: Summary) -> None:
    text = None if may_style_stdout() else plain(s)
    if text is None:
        rich_print(s)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
