"""`code-intel index`'s summary written without rich is the text rich writes."""

from __future__ import annotations

import io

import pytest

from code_intel.summary_text import plain, rich_print, summary


def _stats(languages: dict[str, int], skipped: dict[str, int], syntax_errors: int) -> dict:
    return {"files": sum(languages.values()), "languages": languages, "chunks": 7849, "symbols": 7962,
            "references": 191549, "skipped": skipped, "syntax_error_files": syntax_errors}


CASES = [
    ("/work/q", _stats({"python": 162}, {}, 0)),
    ("/w/laravel src", _stats({"php": 1843, "blade": 9, "javascript": 3, "css": 3, "json": 1},
                              {"binary": 13, "larger than max_file_bytes (1048576 bytes)": 2}, 4)),
    ("/tmp/empty", _stats({}, {"symlink leaves the workspace": 1}, 0)),
    ("/tmp/[brackets] :smile: café", _stats({"typescript": 100000, "c_sharp": 1}, {}, 1)),
]


@pytest.mark.parametrize(("root", "stats"), CASES)
def test_plain_summary_is_what_rich_prints_to_a_pipe(monkeypatch, root, stats):
    monkeypatch.delenv("COLUMNS", raising=False)
    s = summary(root, stats, 162, 3, 2, 10, 1.234, 2)
    drawn = io.StringIO()
    rich_print(s, drawn)
    assert plain(s) == drawn.getvalue()
    assert drawn.getvalue().startswith(f"Indexed {root}\n")


def test_rich_draws_what_plain_text_might_render_otherwise():
    wide = summary("/w", _stats({"x" * 90: 1}, {}, 0), 1, 0, 0, 0, 0.1, 1)
    assert plain(wide) is None  # wider than rich's 80 columns: rich lays it out
    assert plain(summary("/w\x1b[2J", _stats({"python": 1}, {}, 0), 1, 0, 0, 0, 0.1, 1)) is None
