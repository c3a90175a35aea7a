"""A Japanese word's sense counts as used by the code only where the code writes that word
(ja_terms.choose_terms through search._workspace_uses), not where FTS5's porter stemmer
merely joins it to another word: porter("edition") is "edit", porter("incremental") is
"increment". Real FTS5 index over a small workspace."""

from __future__ import annotations

import pytest
from code_intel.indexing import ja_terms
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import SENSE_FILES_COUNTED, _workspace_uses

from tests.conftest import indexed_words

FILES = {
    # many files edit things (stem "edit", like "edition") ...
    "src/editor.py": "def edit_post(post):\n    post.edited = True\n    return post\n",
    "src/comments.py": "def edit_comment(comment):\n    return comment.edit()\n",
    "src/profile.py": "def can_edit(user):\n    return user.editable\n",
    "src/pages.py": "def edit_page(page):\n    return page\n",
    "src/counter.py": "def increment(counter):\n    counter.value += 1\n    return counter\n",
    "src/stats.py": "def increment_views(article):\n    return increment(article.views)\n",
    # ... and some name versions and compute diffs
    "src/release.py": "def bumpVersion(package):\n    package.versions.append(package.version + 1)\n",
    "src/api.py": "API_VERSION = 2\n",
    "src/migrations.py": "def versioned(table):\n    return table\n",
    "src/changes.py": "def diff_lines(old, new):\n    return [line for line in new if line not in old]\n",
    "src/review.py": "def show_diff(change):\n    return change.diffs\n",
    "src/history.py": "def count_diffs(a, b):\n    return len(diff(a, b))\n",
    # a derivation of a written sense, joined to it by the stemmer
    "src/dedupe.py": "def find_duplicates(rows):\n    return duplicate_rows(rows)\n",
}


@pytest.fixture(scope="module")
def lexical(tmp_path_factory) -> LexicalIndex:
    return indexed_words(tmp_path_factory.mktemp("ws"), FILES)[1]


def test_a_sense_whose_stem_only_collides_with_another_word_is_not_used(lexical):
    # 版 is "edition, version, printing" in the dictionary; this code edits things and
    # names versions: the request means version, and the notes say so
    t = ja_terms.translate_request("版を上げる", (), _workspace_uses(lexical))
    assert t.terms[0] == "version" and "edition" not in t.terms
    assert "版→version" in t.note
    # 差分 is "incremental, difference, diff": the code increments counters, diffs lines
    t = ja_terms.translate_request("差分を表示する", (), _workspace_uses(lexical))
    assert t.terms[0] == "diff" and "incremental" not in t.terms
    assert lexical.search_chunks("差分を表示する", 3, list(t.terms), t.groups)[0].path in {
        "src/changes.py", "src/review.py", "src/history.py"}


def test_a_word_the_code_writes_only_in_passing_keeps_the_dictionary_order(lexical):
    # "release" is written in one file only, "edition" matches four by its stem alone:
    # a passing mention is no evidence to reorder the dictionary's senses by
    uses = _workspace_uses(lexical)
    found = [ja_terms.Gloss("版", ("edition", "release", "printing"), "dictionary")]
    assert uses("release") == 1 and uses.matched("edition") == 4
    assert ja_terms.choose_terms(found, uses)[0].terms == ("edition", "release", "printing")


def test_a_derivation_of_a_written_sense_counts_as_written(lexical):
    # "duplication" is never written, but matches exactly the files "duplicate" matches
    uses = _workspace_uses(lexical)
    assert uses("duplication") == 0 and lexical.same_matches("duplication", "duplicate")
    assert not lexical.same_matches("edition", "version")
    found = [ja_terms.Gloss("重複", ("duplicate", "duplication", "overlap"), "dictionary")]
    assert ja_terms.choose_terms(found, uses)[0].terms == ("duplicate", "duplication")


def test_the_word_itself_and_its_inflections_count(lexical):
    uses = _workspace_uses(lexical)
    assert uses("edition") == 0 and lexical.document_frequencies(["edition"])[0]["edition"] == 4
    assert uses("edit") == 4  # edit_post, edit(), can_edit, edited
    assert uses("version") == 3  # bumpVersion (camelCase part), versions, API_VERSION, versioned
    assert uses("increment") == 2 and uses("incremental") == 0
    assert uses("line") == 1  # diff_lines (snake part, plural)
    assert uses("diff") == 3  # diff_lines, diffs, count_diffs


def test_counts_stop_at_the_cap(lexical):
    assert lexical.files_writing("edit", 2) == 2
    assert lexical.files_writing("edit", 0) == 0
    assert SENSE_FILES_COUNTED >= ja_terms.RARE_SENSE * ja_terms.RARE_SENSE_MARGIN


@pytest.mark.parametrize(("word", "text", "writes"), [
    ("edit", "edit", True), ("edit", "x.edited = 1", True), ("edit", "(editing)", True),
    ("edit", "credit", False), ("edit", "edition", False), ("edit", "reedit edits", True),
    ("category", "categories", True), ("stop", "stopped", True), ("e-mail", "email e_mail", True),
    ("e-mail", "femail", False), ("version", "v2version", False), ("version", "2 versions", True),
])
def test_a_words_written_forms_are_found_at_word_starts_only(word, text, writes):
    from code_intel.indexing.lexical import written_forms

    lead, pattern = written_forms(word)
    assert (pattern.search(text) is not None) == writes
    assert text.find(lead) != -1 or not writes
