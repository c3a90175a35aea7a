"""A Japanese word's English senses count once in BM25: a file that mentions three senses
of one word (保存 → save, store, preservation) no longer outranks the file that matches
each of the request's distinct words. Real FTS5 index, real MeCab and JMdict."""

from __future__ import annotations

import math

import numpy as np
import pytest
from code_intel.indexing import ja_terms
from code_intel.indexing.lexical import LexicalIndex, grouped_scores

from tests.conftest import indexed_words

REQUEST = "下書きを保存する"  # "save a draft"
SENSES = "src/archive.py"  # three senses of 保存, no draft
WORDS = "src/drafts.py"  # a draft, saved

FILES = {
    SENSES: "def archive(rows):\n"
            "    # preservation: store, then save\n"
            "    return rows\n",
    WORDS: "def keep(item):\n"
           "    # save the draft item to disk\n"
           "    return item\n",
    # unrelated code, so that a word in one or two files is rare (a positive IDF)
    "src/mail.py": "def send_mail(to, subject):\n    return smtp(to, subject)\n",
    "src/tax.py": "def compute_tax(amount, rate):\n    return amount * rate\n",
    "src/users.py": "def find_user(email):\n    return lookup(email)\n",
    "src/report.py": "def render_report(rows):\n    return table(rows)\n",
    "src/clock.py": "def utc_now():\n    return time_source()\n",
    "src/color.py": "def parse_color(hex_code):\n    return rgb(hex_code)\n",
}


def _index(tmp_path) -> LexicalIndex:  # type: ignore[no-untyped-def]
    return indexed_words(tmp_path, FILES)[1]


def _translation(lexical: LexicalIndex) -> ja_terms.Translation:
    def uses(term: str) -> int:
        return lexical.document_frequencies([term])[0][term]

    t = ja_terms.translate_request(REQUEST, known=uses)
    # the shape under test: 保存 is searched by several senses, 下書き by draft
    assert {"save", "store", "preservation"} <= set(t.terms) and "draft" in t.terms, t.terms
    return t


def test_three_senses_of_one_word_no_longer_outrank_two_distinct_words(tmp_path):
    lexical = _index(tmp_path)
    t = _translation(lexical)
    summed = [h.path for h in lexical.search_chunks(REQUEST, 5, list(t.terms))]
    assert summed[0] == SENSES  # the plain OR query: every sense is a word of its own
    grouped = lexical.search_chunks(REQUEST, 5, list(t.terms), t.groups)
    assert list(dict.fromkeys(h.path for h in grouped))[:2] == [WORDS, SENSES], [(h.path, h.score) for h in grouped]
    assert {"draft", "save"} <= set(grouped[0].matched_terms)


def test_an_english_request_or_a_word_with_one_sense_is_the_plain_or_query(tmp_path):
    lexical = _index(tmp_path)
    plain = lexical.search_chunks("save the draft", 5)
    assert [(h.path, h.score) for h in lexical.search_chunks("save the draft", 5, None, ())] == \
        [(h.path, h.score) for h in plain]
    singles = lexical.search_chunks("", 5, ["save", "draft"], [("save",), ("draft",)])
    assert [(h.path, round(h.score, 9)) for h in singles] == [(h.path, round(h.score, 9)) for h in plain]


def test_a_translation_groups_its_terms_by_the_japanese_word():
    t = ja_terms.translate_request(REQUEST, known=lambda term: 3)
    assert sorted(t for g in t.groups for t in g) == sorted(t.terms)
    by_word = {g[0]: set(g) for g in t.groups}
    assert {"save", "store"} <= by_word["save"] and "draft" in by_word["draft"]
    # an ASCII word written in the request is a word of its own
    t = ja_terms.translate_request("ユーザーのBANを解除する")
    assert ("ban",) in t.groups and ("unban", "disban") in t.groups


def _idf(n: int, total: int) -> float:
    return math.log((total - n + 0.5) / (n + 0.5))


def _grouped(per_term: dict[str, dict[int, float]], groups, total: int, **kw) -> dict[int, float]:  # type: ignore[no-untyped-def]
    arrays = {t: (np.array(list(rows), dtype=np.int64), np.array(list(rows.values()), dtype=np.float64))
              for t, rows in per_term.items()}
    ids, scores = grouped_scores(arrays, groups, total, **kw)
    return dict(zip(ids.tolist(), scores.tolist(), strict=True))


def test_grouped_scores_take_each_words_best_sense_at_the_words_idf():
    per_term = {"save": {1: 1.0, 2: 1.0}, "store": {1: 2.0}, "draft": {2: 1.5}, "user": {1: 0.5}}
    groups = [("save", "store"), ("draft",)]
    # save is in 2 rows of 20, store in 1: the word (rows 1 and 2) has save's IDF
    store = 2.0 * _idf(2, 20) / _idf(1, 20)
    scores = _grouped(per_term, groups, 20, rest=0.0)
    assert scores == pytest.approx({1: max(store, 1.0) + 0.5, 2: 1.0 + 1.5})  # user: alone, as is
    scores = _grouped(per_term, groups, 20, rest=0.5)
    assert scores == pytest.approx({1: max(store, 1.0) + 0.5 * min(store, 1.0) + 0.5, 2: 2.5})
    assert _grouped({}, groups, 20) == {}
