"""A katakana loanword no dictionary knows is spelled back to the word the workspace uses
(フラッピング → flapping, リファラ → referrer, ファネル → funnel), and only then: an
unrelated or ambiguous word of the workspace is never taken. The sound keys are pure
functions; the last tests use a real FTS5 index, real MeCab and real JMdict."""

from __future__ import annotations

import pytest
from code_intel.indexing import ja_terms, loanwords
from code_intel.indexing.lexical import LexicalIndex
from code_intel.indexing.search import _workspace_spelling, _workspace_uses

from tests.conftest import indexed_words


@pytest.mark.parametrize(("kana", "romaji"), [
    ("フラッピング", "furapingu"),
    ("リファラー", "rifaraa"),
    ("ウィジェット", "wijeto"),
    ("ヴァリデーション", "varideeshon"),
    ("ティッカー", "tikaa"),
])
def test_romanize_spells_loanword_kana(kana, romaji):
    assert loanwords.romanize(kana) == romaji


@pytest.mark.parametrize(("kana", "word"), [
    ("フラッピング", "flapping"),
    ("リファラ", "referrer"),
    ("オートコンプリート", "autocomplete"),
    ("ファネル", "funnel"),
    ("トラッカー", "tracker"),
    ("トースト", "toast"),
    ("ページネーション", "pagination"),
    ("ウィジェット", "widget"),
    ("サーバーレス", "serverless"),
])
def test_a_loanword_sounds_like_its_english_word(kana, word):
    sound = loanwords.katakana_sound(kana)
    match = loanwords.compare(sound, word)
    assert match is not None and loanwords.acceptable(match, sound), (sound, loanwords.english_sound(word))


@pytest.mark.parametrize(("kana", "word"), [
    ("トースト", "test"),  # same consonants, the vowel says otherwise
    ("ファネル", "final"),
    ("リファラ", "refresh"),
    ("フラッピング", "flip"),
])
def test_a_different_word_is_not_taken_for_the_loanword(kana, word):
    sound = loanwords.katakana_sound(kana)
    match = loanwords.compare(sound, word)
    assert match is None or not loanwords.acceptable(match, sound)


def test_best_spelling_reads_porter_stems_and_prefers_one_word_family():
    # FTS5 stores porter stems: flapping → flap, referrer → referr, referral → referr
    stems = {"flap": 3, "ping": 40, "test": 90, "referr": 12, "refer": 2, "funnel": 7, "final": 5}
    # the word is read by ear (flaping); the workspace's own spelling is looked up after
    assert loanwords.best_spelling("フラッピング", stems)[0] == "flap"
    assert loanwords.best_spelling("リファラ", stems)[0] == "referr"
    assert loanwords.best_spelling("ファネル", stems)[0] == "funnel"


def test_no_spelling_when_nothing_fits_or_two_words_fit_equally():
    assert loanwords.best_spelling("トースト", {"test": 90, "taste": 3}) is None
    assert loanwords.best_spelling("ファネル", {"funnel": 4, "fennel": 4}) is None  # either
    assert loanwords.best_spelling("ファネル", {"funnel": 4, "final": 4}) == ("funnel", "funnel")
    # two consonants are too few to tell words apart (load, lord, road; those, source)
    assert loanwords.best_spelling("ロード", {"load": 4}) is None
    assert loanwords.best_spelling("ソース", {"those": 9}) is None


FILES = {
    "src/flapping.py": "def send_flapping_notices(checks):\n"
                       "    # a check whose status keeps changing is flapping\n"
                       "    return [c for c in checks if c.flapping]\n",
    "src/ping.py": "def record_ping(check):\n    # a ping arrived: detect the new status\n    return check.ping()\n",
    "src/referrers.py": "def top_referrers(rows):\n    return count_by(rows, 'referrer_domain')\n",
    "src/tests_util.py": "def run_test(case):\n    return case.test()\n",
    "src/mail.py": "def send_mail(to, subject):\n    return smtp(to, subject)\n",
    "src/tax.py": "def compute_tax(amount, rate):\n    return amount * rate\n",
    # consonants like トラッカー (track) and a stem that fits フラッピング by ear only with
    # an ending its words never have (fwrap + ing)
    "src/wrap.py": "def fwrap(func):\n    return track(func)\n",
    # sounds like ビーコン (beacon), which UniDic knows as one word
    "src/hail.py": "def beckon(user):\n    return wave(user)\n",
}


@pytest.fixture(scope="module")
def lexical(tmp_path_factory) -> LexicalIndex:
    return indexed_words(tmp_path_factory.mktemp("ws"), FILES)[1]


def _translate(text: str, lexical: LexicalIndex) -> ja_terms.Translation:
    return ja_terms.translate_request(text, (), _workspace_uses(lexical), _workspace_spelling(lexical))


def test_unknown_loanword_finds_the_workspace_identifier_it_transliterates(lexical):
    # MeCab cuts フラッピング into フラッ + ピング ("ping"): without the workspace's spelling
    # the request searches for ping and finds the ping handler
    plain = ja_terms.translate_request("フラッピングを検出する", (), _workspace_uses(lexical))
    assert "ping" in plain.terms and "flapping" not in plain.terms
    t = _translate("フラッピングを検出する", lexical)
    assert "flapping" in t.terms and "ping" not in t.terms
    assert t.english.split()[0] == "flapping"
    hits = lexical.search_chunks("フラッピングを検出する", 5, list(t.terms), t.groups)
    assert hits[0].path == "src/flapping.py"


def test_a_loanword_no_dictionary_knows_gets_the_workspace_word(lexical):
    assert ja_terms.translate_request("リファラの一覧", (), _workspace_uses(lexical)).terms[:1] != ("referrer",)
    t = _translate("リファラの一覧", lexical)
    assert t.terms[0] == "referrer"
    assert lexical.search_chunks("リファラの一覧", 3, list(t.terms), t.groups)[0].path == "src/referrers.py"


def test_an_unrelated_identifier_is_not_matched(lexical):
    # トースト (toast) has consonants like "test", which the workspace uses: not taken
    t = _translate("トーストを表示する", lexical)
    assert "test" not in t.terms
    # トラッカー is "tracker", which this workspace never writes: "track" is not taken
    assert "track" not in _translate("トラッカーを表示する", lexical).terms
    # a loanword nothing in the workspace sounds like stays as the dictionary gave it
    assert _translate("ファネルを表示する", lexical).terms == ja_terms.translate_request(
        "ファネルを表示する", (), _workspace_uses(lexical)).terms


def test_a_loanword_the_workspace_already_uses_is_left_alone(lexical):
    spelled: list[str] = []
    spell = _workspace_spelling(lexical)

    def spy(kana: str) -> str | None:
        spelled.append(kana)
        return spell(kana)

    t = ja_terms.translate_request("チェックを送信する", (), _workspace_uses(lexical), spy)
    assert "check" in t.terms and spelled == []


def test_a_word_the_dictionary_knows_whole_keeps_its_origin(lexical):
    # the workspace never says "beacon"; "beckon" only sounds like it
    assert loanwords.sounds_like(loanwords.katakana_sound("ビーコン"), "beckon")
    t = _translate("ビーコンを送る", lexical)
    assert "beacon" in t.terms and "beckon" not in t.terms
