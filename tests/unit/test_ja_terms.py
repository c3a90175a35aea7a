"""Japanese request → English search terms, with the real segmenter (fugashi + UniDic-lite)
and the real dictionary (JMdict from jamdict-data); and a Japanese request found by words
alone (no vectors) in the Laravel fixture."""

from __future__ import annotations

import subprocess
import sys

import pytest
from code_intel.indexing import ja_terms
from code_intel.indexing.search import hybrid_query


def terms(text: str) -> list[str]:
    return ja_terms.english_terms(ja_terms.glosses(text))


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("スレッドを削除する", {"thread", "delete"}),  # loanword + a software term
        ("記事の閲覧数を解析サービスから更新する", {"article", "view", "service", "update"}),
        ("返信の中でメンションされたユーザーに通知する", {"reply", "mention", "user", "notify"}),
        ("パスワードを変更する", {"password", "change"}),  # dictionary glosses
        ("コメントを投稿する", {"comment", "post"}),
        ("管理画面のユーザー統計ウィジェット", {"admin", "user", "statistics", "widget"}),  # ウィ+ジェット rejoined
        ("サイトマップを生成する", {"sitemap", "generate"}),  # loanwords glued as code glues names
        ("GitHubでログインする", {"login"}),
    ],
)
def test_japanese_words_become_the_english_words_code_uses(request_text, expected):
    assert expected <= set(terms(request_text))


@pytest.mark.parametrize(
    ("request_text", "present", "absent"),
    [
        # 決済 ("payment") is a software term, but here it straddles 解決 + 済み ("resolved")
        ("解決済みのスレッドを一覧表示する", {"solution", "thread", "list"}, {"payment", "checkout"}),
        # 未 is the prefix "un-" of 未決済, not the noun "sheep" it is alone
        ("未決済の注文を取得する", {"payment", "order", "get"}, {"sheep", "ram"}),
    ],
)
def test_a_software_term_inside_a_longer_word_is_not_cut_out_of_it(request_text, present, absent):
    found = set(terms(request_text))
    assert present <= found
    assert not absent & found


@pytest.mark.parametrize(
    ("request_text", "absent"),
    [
        ("状態が切り替わるチェックについて通知する", {"lit", "lighted", "catch"}),  # に + つい(て) "about"
        ("管理者によって削除されたスレッド", {"depend", "due", "base"}),  # に + よっ(て) "by"
        ("注文に関する通知", {"relate", "concern"}),  # に + 関する "concerning"
    ],
)
def test_compound_particles_after_ni_are_grammar_not_words(request_text, absent):
    assert not absent & set(terms(request_text))


def test_framing_words_and_particles_are_not_searched():
    found = terms("ユーザーを登録する処理はどこ")
    assert "user" in found and "register" in found
    # 処理 "processing", どこ "where", する "do" frame the request; they name no code
    assert not {"processing", "treatment", "where", "do", "doing"} & set(found)


def test_a_reversal_verb_prefixes_its_object_as_english_code_does():
    assert "unblock" in terms("ブロックを解除する")
    assert "unban" in terms("ユーザーのBANを解除する")  # the object may be an ASCII word
    assert "disapprove" in terms("記事の承認を取り消す")
    assert "unlike" in terms("記事のいいねを取り消す")
    assert "unuser" not in terms("ユーザーのBANを解除する")  # only the word it undoes


def test_odd_input_never_breaks_the_bridge():
    assert "user" in terms("ユーザー\ud800を\x00削除😀")  # a lone surrogate is valid JSON
    ja_terms.translate_request("ア" * 3000)  # a long katakana run is cut into pieces, not tried whole


def test_definition_phrase_gives_both_word_orders():
    phrase = ja_terms.definition_phrase(ja_terms.glosses("スレッドを削除する"))
    assert "thread delete" in phrase and "delete thread" in phrase  # → DeleteThread


def test_gloss_terms_drop_descriptions_and_join_nominalisations_to_verbs():
    assert ja_terms.gloss_terms(["to exceed", "drawing up (e.g. legal document, contract, will, etc.)"]) == [
        "exceed", "drawingup"]
    assert ja_terms.gloss_terms(["opening to the public something very long"]) == []
    assert ja_terms.gloss_terms(["notification"]) == ["notification", "notify"]
    assert ja_terms.gloss_terms(["subscription"]) == ["subscription", "subscribe"]


def test_a_phrasal_verb_is_one_word_not_its_particle():
    # "drawing up", "cross out", "turn off", "carry out": the particle alone is one of the
    # commonest words of any code base, and the verb alone means something else
    assert ja_terms.gloss_terms(["to cross out", "to turn off", "to log in"]) == ["crossout", "turnoff", "login"]
    for request_text, absent in [
        ("ブックマークを作成する", {"up", "drawing"}),   # 作成 "drawing up; preparing"
        ("不要な行を消す", {"out", "cross"}),            # 消す "to cross out"
        ("通知を止める", {"off", "turn"}),               # 止める "to turn off"
        ("タグで絞り込む", {"out", "down"}),             # 絞り込む "to wring out; to narrow down"
    ]:
        found = set(terms(request_text))
        assert found and not absent & found, (request_text, found)
    assert "create" in terms("ブックマークを作成する")


def test_an_auxiliary_verb_after_te_is_not_searched():
    # ～てしまう / ～ておく / ～てみる add aspect to the verb before them: "finish" and
    # "put" are not what these requests ask about; the verb before them still is
    gone = ja_terms.glosses("タグなしのエントリーまで消えてしまうバグ")
    assert {g.source for g in gone} >= {"タグ", "エントリー", "消え", "バグ"}
    assert "しまう" not in {g.source for g in gone}
    assert not {"finish", "stop", "end", "put"} & set(ja_terms.english_terms(gone))
    assert not {"put", "place", "leave"} & set(terms("現在の組織がなければセットしておく"))
    assert "attempt" in terms("接続を試してみる") and "look" not in terms("接続を試してみる")
    assert "put" in terms("ファイルを置く")  # the same verb standing alone is searched


def test_a_prefix_cut_off_by_mecab_is_read_with_its_noun():
    # 再 + 計算, 再 + 起動, 非 + 同期: the prefixed word is a word of its own
    # (recalculate, restart, asynchronous) that neither piece says
    assert "recalculate" in terms("プロジェクトの合計時間を再計算するジョブ")
    assert "restart" in terms("サーバーを再起動する")
    assert "asynchronous" in terms("非同期でインポートする")
    # the noun keeps its own senses (未決済 "outstanding", 決済 "payment"), and a
    # prefix the dictionary does not know with its noun is not searched
    assert {"outstanding", "payment"} <= set(terms("未決済の注文"))
    assert terms("全ユーザーに通知する")[:1] == ["user"]


def test_a_katakana_homophone_is_read_as_software_says_it():
    # UniDic and JMdict read ロール as "roll" only, ソース as "sauce", パス as "pass"
    assert terms("各ロールの権限を一覧する")[0] == "role"
    assert "source" in terms("ソースを表示する")
    assert "path" in terms("保存先のパスを返す")
    assert "path" not in terms("パスワードを変更する")  # a word of its own: not cut out of it
    assert "role" not in terms("ページのスクロールを止める")


def test_english_and_code_requests_are_left_alone():
    assert ja_terms.glosses("delete a thread") == []
    assert ja_terms.translate_request("findByEmail") == ja_terms.Translation()


def test_translation_marks_sources_and_keeps_literal_words_literal():
    t = ja_terms.translate_request("ユーザーのBANを解除する", literal=["ban"])
    assert "user" in t.terms and "ban" not in t.terms
    assert t.sources["user"] == "ユーザー"
    assert "ユーザー→user" in t.note
    assert t.marked(["user", "ban"]) == {"user": "ユーザー"}


def test_ascii_words_inside_japanese_are_searched_as_written():
    # "ユーザーをBANする処理" is one word to the tokenizer: BAN would be lost
    t = ja_terms.translate_request("ユーザーをBANする処理", literal=["ユーザーをbanする処理"])
    assert t.terms[:2] == ("ban", "user")
    assert "ban" not in t.sources  # written, not translated


def test_the_segmenter_and_dictionary_load_only_for_japanese():
    code = (
        "import sys\n"
        "from code_intel.indexing import search, ja_terms\n"
        "ja_terms.translate_request('delete a thread')\n"
        "assert 'fugashi' not in sys.modules, 'loaded for English'\n"
        "ja_terms.translate_request('スレッドを削除する')\n"
        "assert 'fugashi' in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("request_text", "path", "source"),
    [
        ("支払いゲートウェイ", "app/Interfaces/PaymentGateway.php", "支払い"),
        ("商品の一覧を表示する", "app/Http/Controllers/ProductController.php", "商品"),
        ("注文の合計金額を計算する", "app/Models/Order.php", "注文"),
    ],
)
def test_a_japanese_request_finds_english_code_by_words_alone(laravel_words, request_text, path, source):
    store, lexical = laravel_words
    result = hybrid_query(request_text, store=store, lexical=lexical, vectors=None, top=10)
    files = [f.path for f in result.files]
    assert path in files[:3], files
    ev = result.files[files.index(path)].evidence
    assert source in ev["lexical"]["translated"].values()
    assert any(n.startswith("Japanese searched as English words too") for n in result.notes)


# ---- the workspace's words choose among a word's senses ----------------------------------


def test_a_word_takes_the_senses_the_code_uses_in_dictionary_order():
    found = [ja_terms.Gloss("解決", ("settlement", "solution", "resolution", "answer"), "dictionary")]
    chosen = ja_terms.choose_terms(found, known={"solution", "answer"}.__contains__)
    assert chosen[0].terms == ("solution", "answer")


def test_a_word_the_code_never_uses_keeps_the_dictionary_order():
    found = [ja_terms.Gloss("猶予", ("postponement", "deferment", "extension", "grace"), "dictionary")]
    assert ja_terms.choose_terms(found, known=lambda t: False)[0].terms == ("postponement", "deferment", "extension")
    assert ja_terms.choose_terms(found)[0].terms == ("postponement", "deferment", "extension")


def test_literal_words_and_reversals_are_not_chosen_among():
    found = [ja_terms.Gloss("BAN", ("ban",), "literal"), ja_terms.Gloss("BAN", ("unban", "disban"), "reversal")]
    assert ja_terms.choose_terms(found, known=lambda t: False) == found


def test_a_sense_the_code_mentions_in_passing_is_left_out():
    # umami: 短縮 ("shortening") is "contraction" in one comment, and "short" in seven files
    # about its short links; チェック's "plaid" is in one file of healthchecks
    uses = {"check": 466, "plaid": 1, "checkered": 2, "monitoring": 65, "short": 7, "contraction": 1}
    found = [ja_terms.Gloss("チェック", ("check", "plaid", "checkered", "monitoring"), "loanword"),
             ja_terms.Gloss("短縮", ("shortening", "short", "contraction"), "dictionary")]
    chosen = ja_terms.choose_terms(found, known=lambda t: uses.get(t, 0))
    # the left-out senses' slots stay empty: "monitoring" (4th) does not move up
    assert [g.terms for g in chosen] == [("check",), ("short",)]


def test_the_first_used_sense_stays_even_when_rare():
    # 付けられた: "attach" is in one file of umami, "join" and "add" in a hundred
    uses = {"attach": 1, "join": 128, "add": 144}
    found = [ja_terms.Gloss("付け", ("attach", "join", "add"), "dictionary")]
    assert ja_terms.choose_terms(found, known=lambda t: uses.get(t, 0))[0].terms == ("attach", "join", "add")


def test_shortening_is_searched_as_short():
    assert ja_terms.gloss_terms(["shortening", "contraction"]) == ["shortening", "short", "contraction"]
    t = ja_terms.translate_request("短縮リンクを作成する", known={"short": 7, "contraction": 1, "link": 181,
                                                                "create": 300}.get)
    assert t.english.split()[0] == "short" and "contraction" not in t.terms


def test_a_hyphenated_gloss_is_also_searched_as_code_writes_it():
    assert ja_terms.gloss_terms(["time-stamp"]) == ["time-stamp", "timestamp"]
    assert ja_terms.gloss_terms(["log-in", "sign-in"]) == ["log-in", "login", "sign-in"]
    assert "timestamp" in terms("タイムスタンプを付けるプロセッサ")


def test_solution_not_settlement_when_the_code_speaks_of_solutions():
    # JMdict's first sense of 解決 is "settlement" (of a dispute); a forum's code marks a
    # reply as the thread's solution.
    code_words = {"reply", "solution", "mark", "thread", "resolution"}
    t = ja_terms.translate_request("返信を解決策としてマークする", known=code_words.__contains__)
    assert "settlement" not in t.terms and "solution" in t.terms
    # best term per word, once each (解決策 and its part 解決 both give "solution"), in order
    assert t.english.split()[:2] == ["reply", "solution"] and t.english.split().count("solution") == 1
    assert t.english.split()[-1] == "mark"
    # without the workspace's words the dictionary's everyday sense comes first
    assert "settlement" in ja_terms.translate_request("返信を解決策としてマークする").english


def test_english_terms_for_the_vector_query_follow_the_request():
    assert ja_terms.translate_request("スレッドを削除する").english == "thread delete"
    assert ja_terms.translate_request("delete a thread").english == ""


@pytest.mark.parametrize(("request_text", "term", "everyday"), [
    ("チームからメンバーを外す権限があるか確認する", "permission", "power"),   # 権限: "power; authority"
    ("複数のタグを一つのタグに統合する", "merge", "integration"),             # 統合: "integration; unification"
    ("セッションIDのソルトを日ごとに切り替える", "switch", "change"),          # 切り替える: "change; exchange"
    ("有効期限が切れたトークンを削除する", "expire", "term"),                  # 期限: "term; period"
])
def test_software_vocabulary_comes_before_the_everyday_sense(request_text, term, everyday):
    """Where JMdict's everyday senses come first, the word code uses for the thing is
    searched first (when the workspace uses it; the everyday sense when it does not)."""
    code_words = {term, everyday, "team", "member", "tag", "session", "salt", "token", "delete", "day"}
    t = ja_terms.translate_request(request_text, known=code_words.__contains__)
    assert term in t.terms and term in t.english.split()
    if everyday in t.terms:
        assert t.terms.index(term) < t.terms.index(everyday)


def test_an_affix_gloss_is_not_a_word():
    # JMdict glosses 人 as a suffix first ("-ian (e.g. Italian)", "-ite", "-er"): the
    # request "the person who opened the link" was searched for "ian", "ite" and "er"
    assert ja_terms.gloss_terms(["-ian (e.g. Italian)", "-er (e.g. performer, etc.)", "man", "person"]) == [
        "man", "person"]
    assert not {"ian", "ite", "er"} & set(terms("招待リンクを開いた人"))


def test_generic_heads_of_a_request_are_not_searched():
    # "the person who …" and "the matter of …" frame a request as こと and もの do
    assert not {"person", "man", "people"} & set(terms("招待リンクを開いた人"))
    assert "matter" not in terms("インポートに失敗していた件")
    assert "count" in terms("件数を数える")  # a word of its own


def test_a_nominalisation_in_ution_is_also_searched_as_its_verb():
    # 実行 "execution": code writes execute (the porter stems differ: execut / execution)
    assert "execute" in terms("クエリを実行する")


def test_a_verb_shares_the_software_terms_of_its_noun_form():
    # 絞り込み (the noun) is listed as filter; the verb 絞り込む was "squeeze" and
    # 並び替える "line up" while 並び替え was sort
    assert terms("タグでブックマークを絞り込む")[2] == "filter"
    assert terms("タグで絞り込んで表示する")[1] == "filter"
    assert terms("日付で並び替える")[1] == "sort"
    assert ja_terms.software_terms("埋め込み") == ja_terms.software_terms("埋め込む") == ("embed",)
    assert ja_terms.software_terms("見る") == ()
