"""Which request terms a BM25 hit "matched" (shown as evidence, and used by the fusion):
a term matches a whole word, or the start of a word when it is longer than three
letters — the same answer as tokenising the text, without tokenising it."""

import random
import re

from code_intel.indexing.lexical import matched_terms


def tokenised(terms: list[str], text: str) -> tuple[str, ...]:
    words = re.findall(r"\w+", text.lower())
    return tuple(t for t in terms if any(w == t or (len(t) > 3 and w.startswith(t)) for w in words))


def test_words_and_word_starts_match_but_not_inner_parts():
    text = "def login_user(self): return self.logins  # sub-expr and Expr, ユーザー一覧"
    terms = ["login", "logins", "user", "self", "sub", "expr", "ogin", "ex", "ユーザー", "一覧", "def"]
    # "一覧" is inside the word "ユーザー一覧" (kana and kanji are both word characters)
    assert matched_terms(terms, text) == ("login", "logins", "self", "sub", "expr", "ユーザー", "def")


def test_short_terms_match_whole_words_only():
    assert matched_terms(["ex", "log"], "exp logs ex_a") == ()
    assert matched_terms(["ex", "log"], "(ex) log.") == ("ex", "log")


def test_the_same_answer_as_tokenising_on_generated_texts():
    rng = random.Random(7)
    alphabet = ["ab", "abc", "abcd", "_", " ", ".", "x", "é", "1", "B"]
    terms = ["ab", "abc", "abcd", "abcdx", "x", "é", "b1", "bab"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert matched_terms(terms, text) == tokenised(terms, text), text
