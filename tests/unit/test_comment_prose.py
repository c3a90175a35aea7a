"""`comment_prose`: a comment's lines without their markers, by string methods, the
same text as the per-line regex it replaced (half of PHP's docstring hook)."""

from __future__ import annotations

import re

import pytest
from code_intel.indexing.chunking.base import comment_prose
from code_intel.indexing.chunking.walks import clean_block_comment
from hypothesis import given, settings
from hypothesis import strategies as st

_COMMENT_PREFIX = re.compile(r"^\s*(/\*\*?|\*/|\*|//+|#+|--)\s?")


def reference_prose(text: str) -> str | None:
    """The definition: each line's marker removed by the regex, blank lines dropped."""
    cleaned = [_COMMENT_PREFIX.sub("", line).rstrip() for line in text.splitlines()]
    return "\n".join(line for line in cleaned if line.strip()).strip() or None


EXAMPLES = [
    "/**\n * Create a new instance.\n *\n * @param  string  $name\n * @return void\n */",
    "/** one line */", "/***/", "/**/", "/* plain\n   continued */", "// a\n//b\n///  c",
    "# hash\n## two\n#", "-- sql\n--x", "-x", "/x", "*", "*/", "**", "*\tTabbed", "* \u00a0nbsp",
    "\u2003* em space indent", "   no marker", "\n\n", "", "*/ after", "/** @var int */",
    " * trailing   \r\n * crlf\r * cr\x85 * nel\u2028 * ls", "*x", "**x", "/***x", "#!shebang",
]


@pytest.mark.parametrize("text", EXAMPLES)
def test_each_marker_is_removed_as_the_regex_removed_it(text: str) -> None:
    assert comment_prose(text) == reference_prose(text)
    assert clean_block_comment(text) == reference_prose(text.removesuffix("*/"))


_PIECE = st.sampled_from(
    ["/", "*", "#", "-", " ", "\t", "\u00a0", "\u2003", "\n", "\r", "\r\n", "\x85", "\u2028", "a", "@param", "x y"]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_PIECE, max_size=30))
def test_any_text_gets_the_regex_definitions_prose(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert comment_prose(text) == reference_prose(text)


def test_a_php_docblock_reads_as_its_prose() -> None:
    assert comment_prose("/**\n     * Get the user.\n     *\n     *  @return User\n     */") == (
        "Get the user.\n @return User"
    )
