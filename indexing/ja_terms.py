"""English search terms for a Japanese request: the bridge from Japanese to the words code is written in.

Why: BM25 and the definition signal match words, and a Japanese request ("スレッドを削除する")
shares no word with English code (`DeleteThread`). The request is segmented by MeCab (fugashi
with UniDic-lite), each content word is looked up in JMdict (the jamdict-data package's
SQLite copy, read directly) and its first glosses become search terms. Katakana loanwords
take their English origin from UniDic's lemma (`ユーザー-user`) before the dictionary; one
neither knows (or whose terms the code never uses) is spelled back to the workspace's own
word by sound (respell, loanwords.py: リファラ → referrer).

A short list of software terms (`SOFTWARE_TERMS`) comes first where JMdict's everyday
sense is not what code calls it (作成 "drawing up" → create, 一覧 "glance" → list).
Reversal verbs (解除, 取り消す, 外す) make prefixed terms of the words around them
(ブロックを解除 → unblock), because English code negates with a prefix where Japanese
uses a verb.

Everything heavy is imported and opened on first use, and only for a request that
contains Japanese: the LSP, hook and definition paths never import MeCab or open the
dictionary.
"""

from __future__ import annotations

import importlib.util
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lexical import STOPWORDS, query_terms

_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
_KANA_ONLY = re.compile(r"^[\u3040-\u30ff\u30fc]+$")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_KATAKANA = re.compile(r"^[\u30a0-\u30ff]+$")
_GLOSS_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_PARENS = re.compile(r"\([^)]*\)")

#: Per Japanese word, at most this many English terms.
TERMS_PER_WORD = 3
#: Per Japanese word, this many dictionary terms are candidates; the TERMS_PER_WORD
#: searched are the first ones the workspace's code uses (see choose_terms).
CANDIDATE_TERMS = 8
#: Senses of a dictionary entry read for candidates (the first ones are the everyday ones).
CANDIDATE_SENSES = 2
#: A candidate sense found in at most RARE_SENSE files of the workspace is incidental
#: when another sense of the word is found in RARE_SENSE_MARGIN times as many (see
#: choose_terms).
RARE_SENSE = 2
RARE_SENSE_MARGIN = 4
#: A gloss longer than this many words describes rather than names: skipped.
MAX_GLOSS_WORDS = 2
#: A loanword MeCab split is rejoined from at most this many pieces.
MAX_KATAKANA_PARTS = 4

# Words a request about code uses to frame what it asks, not to name it.
_JA_STOP = frozenset(
    ["する", "為る", "ある", "有る", "いる", "居る", "なる", "成る", "できる", "出来る", "れる", "られる", "せる", "させる", "こと", "事", "もの", "物", "人", "件", "ため", "為", "よう", "様", "処理", "機能", "部分", "場合", "時", "とき", "方法", "方", "所", "ところ", "箇所", "どこ", "何", "なに", "実装", "コード", "ファイル", "関数", "メソッド", "クラス", "感じ", "行う", "おこなう", "使う", "使用", "利用", "それ", "これ", "ここ", "そこ", "際", "中", "後", "前", "上", "下", "的", "等", "など", "仕組み", "流れ", "場所", "教える", "知る", "済み", "済", "見る", "いう", "言う", "思う", "欲しい", "ほしい", "一つ", "全て", "すべて", "全部", "もう", "ない", "無い", "過ぎる", "すぎる"]
)

# English gloss words that carry no search intent (on top of BM25's own stopwords).
_EN_STOP = frozenset(
    ["a", "an", "the", "of", "to", "in", "on", "at", "for", "from", "by", "with", "and", "or", "not", "is", "are", "be", "one's", "someone", "something", "some", "etc", "eg", "e.g.", "oneself", "thing", "things", "kind", "sort", "way", "making", "being", "having", "doing", "one"]
)

# Adverbial particles that make a phrasal verb of the verb before them ("cross out",
# "turn off", "look up", "carry out"): the pair means what neither word means alone, so
# neither is searched alone; code glues the pair into one word (lookup, setup, logout,
# checkout, cleanup, rollback), and only that form is a candidate.
_PARTICLES = frozenset(["up", "down", "out", "off", "back", "through", "over", "away", "in", "on",
                        "around", "about", "along", "apart", "aside", "forward", "together"])

# Where JMdict's first, everyday sense is not what code calls the thing. Each entry says
# what the dictionary gives first; the dictionary's own terms follow these.
SOFTWARE_TERMS: dict[str, tuple[str, ...]] = {
    "作成": ("create",),            # "drawing up; preparing; writing"
    "新規作成": ("create", "new"),
    "一覧": ("list", "index"),      # "look; glance; sight"
    "取得": ("get", "fetch"),       # "acquisition; obtaining"
    "表示": ("show", "display"),    # "indication; expression"
    "保存": ("save", "store"),      # "preservation; conservation"
    "設定": ("settings", "config"),  # "establishment; creation"
    "認証": ("auth", "verify"),      # "certification"
    "管理者": ("admin",),            # "manager; landlord; warden"
    "管理": ("admin", "manage"),    # "control; management"
    "管理画面": ("admin", "dashboard"),
    "検証": ("validate", "verify"),  # "verification; inspection"
    "変換": ("convert",),           # "change; conversion"
    "判定": ("check",),             # "judgement; decision"
    "削除": ("delete", "remove"),   # "deletion; elimination"
    "編集": ("edit", "update"),     # "editing; compilation"
    "追加": ("add",),               # "addition; supplement"
    "公開": ("publish", "public"),  # "opening to the public"
    "非公開": ("private",),
    "発行": ("create", "issue"),    # "publication; issue"
    "連携": ("connect", "integration"),  # "cooperation; coordination"
    "送信": ("send",),              # "transmission"
    "受信": ("receive",),
    "通知": ("notify", "notification"),  # "notice; notification"
    "有効": ("enable", "active"),   # "valid; effective"
    "無効": ("disable", "inactive"),
    "失敗": ("fail", "failure"),    # "failure; mistake"
    "並べる": ("sort", "order"),    # "to line up"
    "並び替え": ("sort", "order"),
    "並べ替え": ("sort", "order"),
    "絞り込み": ("filter",),
    "集計": ("count", "aggregate"),  # "totalization"
    "件数": ("count",),
    "一括": ("bulk", "batch"),      # "lump; bundle"
    "重複": ("duplicate",),         # "duplication; repetition"
    "一意": ("unique",),            # "one meaning; one thought"
    "閲覧": ("view", "read"),       # "inspection; reading; perusal"
    "一日": ("daily", "day"),       # "one day"
    "確認": ("confirm", "check"),   # framing word in requests, a verb in code
    "探す": ("find", "search"),     # "to search; to seek"
    "検索": ("search", "find"),     # "looking up; retrieval"
    "承認": ("approve",),           # "recognition; acknowledgement"
    "却下": ("reject", "decline"),  # "rejection; dismissal"
    "購読": ("subscribe", "subscription"),  # "buying and reading"
    "投稿": ("post", "submit"),     # "contribution; submission"
    "同期": ("sync",),              # "same period; same year"
    "生成": ("generate",),          # "creation; generation"
    "いいね": ("like",),            # MeCab reads いい + ね ("good")
    "登録": ("register", "registration"),  # "registration" (the stemmer keeps it apart)
    "更新": ("update",),            # "renewal; update; innovation"
    "商品": ("product", "item"),    # "commodity; goods; merchandise"
    "既読": ("read", "mark"),       # "already read": code marks things as read
    "状態": ("status", "state"),    # "state; condition; situation"
    "整形": ("format",),            # "orthopedics; shaping"
    "形式": ("format",),            # "form; formality; method"
    "返金": ("refund",),            # "repayment"
    "決済": ("payment", "checkout"),  # "settlement (of an account)"
    # added after reading the tune halves' translations (set (b)), general vocabulary:
    "計算": ("calculate", "compute"),  # "calculation; reckoning; count"
    "複製": ("copy", "clone", "duplicate"),  # "reproduction; duplication; reprinting"
    "消去": ("clear", "erase", "delete"),  # "elimination; erasure"
    "月次": ("monthly",),           # JMdict's first entry is 月並み "trite; commonplace"
    "一時停止": ("pause",),         # "suspension; pause"
    "出力": ("output", "export"),   # "output; power output"
    # general software vocabulary where JMdict's everyday senses come first (rank7): what
    # code calls the thing in any application. A few were seen in set (b)'s tune requests
    # (権限, 統合); 実行 → run, 移動 → move and 読み込む → load were tried and dropped (tune
    # data lower: generic code words that match everywhere)
    "権限": ("permission", "role"),  # "power; authority; jurisdiction"
    "統合": ("merge", "integrate"),  # "integration; unification"
    "端末": ("device", "terminal"),  # "terminal; computer"
    "分割": ("split", "chunk"),      # "partition; division; separation"
    "結合": ("join", "merge"),       # "combination; union; binding"
    "置換": ("replace",),            # "substitution; replacement"
    "比較": ("compare",),            # "comparison"
    "圧縮": ("compress", "zip"),     # "compression; condensation"
    "展開": ("expand", "extract"),   # "development; evolution"
    "暗号化": ("encrypt",),          # "encryption; encipherment"
    "復号": ("decrypt", "decode"),   # "decoding; decryption"
    "解析": ("parse", "analyze"),    # "analysis; analytical"
    "書き込む": ("write",),          # "to fill out; to post (a message)"
    "初期化": ("init", "initialize", "reset"),  # "initialization; formatting"
    "起動": ("start", "boot", "launch"),  # "startup; booting up; activation"
    "停止": ("stop", "disable"),     # "stoppage; coming to a stop"
    "参加": ("join",),               # "participation; joining; entry"
    "招待": ("invite", "invitation"),  # "invitation"
    "共有": ("share",),              # "joint ownership; co-ownership; sharing"
    "期限": ("expire", "expiry", "deadline"),  # "term; period; time frame"
    "添付": ("attach", "attachment"),  # "attaching; appending; affixing"
    "埋め込む": ("embed",),          # "to bury; to embed"
    "埋め込み": ("embed",),
    "集約": ("aggregate", "group"),  # "intensiveness; collecting; summarizing"
    "既定": ("default",),            # "established; fixed; prearranged"
    "初期値": ("default", "initial"),  # "initial value"
    "再送": ("resend", "retry"),     # "re-sending; re-transmission"
    "取り込む": ("import",),         # "to take in; to bring in"
    "書き出す": ("export", "write"),  # "to begin to write"
    "切り替え": ("toggle", "switch"),  # "change; exchange; conversion"
    "切り替える": ("toggle", "switch"),
    "判別": ("detect", "check"),     # "distinction; discrimination"
    "識別子": ("id", "identifier"),  # "identifier"
    "照合": ("match", "verify"),     # "collation; comparison"
    "一致": ("match",),              # "coincidence; agreement; union"
    "順位": ("rank",),               # "order; rank; position"
    "上限": ("limit", "max"),        # "upper limit; supremum"
    "除外": ("exclude", "ignore"),   # "exception; exclusion"
    "許可": ("allow", "permission"),  # "permission; permit; approval"
    "拒否": ("deny", "reject", "block"),  # "refusal; rejection; denial"
    "制限": ("limit", "restrict"),   # "restriction; restraint"
    # katakana words with two English origins, where UniDic's lemma and JMdict give only
    # the everyday one, or give it first (the dictionary's own terms still follow)
    "ロール": ("role",),             # "roll" only
    "ソース": ("source",),           # "sauce; Worcestershire sauce"
    "パス": ("path",),               # "pass; passing; ticket"
    "ルート": ("route", "root"),     # "route; path; channel": the root directory, user
    "ポスト": ("post",),             # "postbox; mailbox; mail"
}

# a verb's 連用形 (絞り込む → 絞り込み, 切り替える → 切り替え) is also the noun of the
# action, and software Japanese writes either for the same thing: the two share an entry
_U_TO_I = dict(zip("うくぐすつぬぶむる", "いきぎしちにびみり", strict=True))
_I_TO_U = {i: u for u, i in _U_TO_I.items()}
_E_ROW = frozenset("えけげせぜてでねべめれ")


def software_terms(word: str) -> tuple[str, ...]:
    """SOFTWARE_TERMS' entry for a word, or for its verb/noun pair when it has none: a
    list written with one of the two covers both (絞り込み lists filter, so 絞り込む is
    filter too)."""
    if word in SOFTWARE_TERMS or len(word) < 2:
        return SOFTWARE_TERMS.get(word, ())
    last = word[-1]
    pairs = []
    if last in _U_TO_I:  # a verb: its godan or ichidan 連用形
        pairs.append(word[:-1] + _U_TO_I[last])
        if last == "る" and word[-2] in _E_ROW:
            pairs.append(word[:-1])
    if last in _I_TO_U:  # a godan 連用形 noun: its verb
        pairs.append(word[:-1] + _I_TO_U[last])
    if last in _E_ROW:  # an ichidan 連用形 noun: its verb
        pairs.append(word + "る")
    return next((SOFTWARE_TERMS[p] for p in pairs if p in SOFTWARE_TERMS), ())


_SOFTWARE_RE = re.compile("|".join(sorted(map(re.escape, SOFTWARE_TERMS), key=len, reverse=True)))

# Verbs that undo what their object names: English code writes unX / disX.
_REVERSAL = frozenset(["解除", "取り消す", "取り消し", "外す", "キャンセル", "取り下げる", "撤回"])
_PREFIXES = ("un", "dis")


class JapaneseUnavailable(RuntimeError):
    """The segmenter or the dictionary is not installed (or unreadable)."""


@dataclass(frozen=True, slots=True)
class Gloss:
    """One Japanese word of a request and the English terms it is searched by."""

    source: str  # the word as the request writes it
    terms: tuple[str, ...]  # most likely first
    # "software" | "loanword" | "dictionary" | "reversal" | "literal" (an ASCII word of
    # the request, kept for word order: it is searched as written, not translated)
    origin: str


def has_japanese(text: str) -> bool:
    """Does the text hold kana or kanji (and so need the bridge)?"""
    return bool(_JAPANESE.search(text))


def gloss_terms(glosses: Iterable[str], limit: int = TERMS_PER_WORD) -> list[str]:
    """Search terms from dictionary glosses, in order: parentheses and "to " dropped,
    descriptive glosses (more than MAX_GLOSS_WORDS words) skipped, stopwords out, a
    phrasal verb glued (see _PARTICLES: "drawing up" is no "up", "cross out" no "out"),
    an affix's gloss skipped (人 as a suffix: "-ian (e.g. Italian)", "-er": no word "ian")."""
    out: list[str] = []
    for g in glosses:
        text = _PARENS.sub(" ", g.lower()).strip()
        if text.startswith("-") or text.endswith("-"):
            continue
        raw = _GLOSS_WORD.findall(text)
        if len(raw) == 3 and raw[0] == "to":
            raw = raw[1:]
        if len(raw) == 2 and raw[1] in _PARTICLES and raw[0] not in _PARTICLES | _EN_STOP | STOPWORDS:
            words = [raw[0] + raw[1]]  # a phrasal verb: one word, as code writes it
        else:
            words = [w for w in raw if w not in _EN_STOP and w not in STOPWORDS]
        if text.startswith("to ") and words[:1] == ["to"]:
            words = words[1:]
        if not words or len(words) > MAX_GLOSS_WORDS:
            continue
        for w in words:
            for t in _word_forms(w):
                if t not in out and len(t) >= 2:
                    out.append(t)
        if len(out) >= limit:
            break
    return out[:limit]


def _word_forms(word: str) -> list[str]:
    """The gloss word and, for a nominalisation the porter stemmer does not join to its
    verb, the verb code names (notification → notify, subscription → subscribe)."""
    for suffix, verb in (("ification", "ify"), ("ription", "ribe"), ("version", "vert"),
                         ("ission", "it"), ("ution", "ute")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return [word, word[: -len(suffix)] + verb]
    # a verb made from an adjective or noun with -en (shortening, lengthening, tightening):
    # code names the thing by the adjective (a short link, `shortUrl`, max length)
    if word.endswith("ening") and len(word) >= 9:
        return [word, word[:-5]]
    # the dictionary hyphenates what code writes as one word (time-stamp → timestamp,
    # e-mail → email, log-in → login)
    if "-" in word:
        return [word, word.replace("-", "")]
    return [word]


def english_terms(glosses: list[Gloss], limit: int = 24) -> list[str]:
    """All translated terms, breadth first (each word's best term before any second term)."""
    out: list[str] = []
    glosses = [g for g in glosses if g.origin != "literal"]
    depth = max((len(g.terms) for g in glosses), default=0)
    for i in range(depth):
        for g in glosses:
            if i < len(g.terms) and g.terms[i] not in out:
                out.append(g.terms[i])
    return out[:limit]


def definition_phrase(glosses: list[Gloss]) -> str:
    """Each word's best term in the request's order and reversed: Japanese puts the
    object first (スレッドを削除 → "thread delete"), English names put the verb first
    (`DeleteThread`), so both orders give the definition signal its adjacent pairs."""
    words = [g.terms[0] for g in glosses if g.terms and g.origin != "reversal"]
    prefixed = [t for g in glosses if g.origin == "reversal" for t in g.terms]
    return " ".join(words) + " . " + " ".join(reversed(words)) + (" . " + " ".join(prefixed) if prefixed else "")


# ---- segmentation and dictionary (lazy, shared, thread-safe) -----------------------------


class _Bridge:
    """MeCab tagger + JMdict connection, opened once on the first Japanese request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tagger: Any = None
        self._db: sqlite3.Connection | None = None
        self._cache: dict[str, tuple[str, ...]] = {}

    def _open(self) -> None:
        if self._tagger is not None:
            return
        try:
            import fugashi  # heavy: only for a request with Japanese
            import unidic_lite  # noqa: F401
        except ImportError as exc:
            raise JapaneseUnavailable(
                f"the Japanese segmenter is not installed ({exc.name}): reinstall code-intel "
                "(`pip install -e .` installs fugashi and unidic-lite)") from exc
        spec = importlib.util.find_spec("jamdict_data")
        db = Path(spec.origin).parent / "jamdict.db" if spec and spec.origin else None
        if db is None or not db.is_file():
            raise JapaneseUnavailable(
                "the Japanese-English dictionary (jamdict-data) is not installed: reinstall code-intel")
        self._db = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True, check_same_thread=False)
        self._tagger = fugashi.Tagger()

    def glosses(self, text: str) -> list[Gloss]:
        with self._lock:
            self._open()
            # A software term counts only where MeCab's words begin and end: 決済 inside
            # 解決済み (解決 + 済み) is no payment. The other words keep the tags MeCab gave
            # them in the whole sentence (未 of 未決済 stays a prefix, not "sheep").
            tokens = self._merge_prefixes(list(self._tagger(text)))
            offsets = _token_offsets(tokens)
            bounds = {b for span in offsets for b in span} | {0}
            words: list[_Word] = []
            pos = 0
            for segment, is_term in software_spans(text, bounds):
                end = pos + len(segment)
                if is_term:
                    words.append(_Word(segment, segment, "", "noun", software=True))
                else:
                    inside = [t for t, (a, b) in zip(tokens, offsets, strict=True) if pos <= a and b <= end]
                    words.extend(_words(self._merge_katakana(inside)))
                pos = end
            out: list[Gloss] = []
            reversed_object = ""
            for w in _with_compounds(words):
                if w.kind == "ascii":
                    out.append(Gloss(w.surface, (w.surface.lower(),), "literal"))
                    continue
                if w.base in _REVERSAL or w.surface in _REVERSAL:
                    reversed_object = reversed_object or _object_before(words, w)
                    continue
                out.extend(self._gloss(w))
                if w.noun:  # the noun a prefix was joined to keeps its own senses too
                    out.extend(self._gloss(_Word(*w.noun, "", "noun")))
            if reversed_object:
                obj = next((g.terms[0] for g in out if g.source == reversed_object and g.terms),
                           reversed_object.lower() if reversed_object.isascii() else "")
                if obj.isalpha():
                    out.append(Gloss(reversed_object, tuple(p + obj for p in _PREFIXES), "reversal"))
            return out

    def _gloss(self, w: _Word) -> list[Gloss]:
        terms = list(software_terms(w.base) or software_terms(w.surface))
        origin = "software" if terms else ("loanword" if w.english else "dictionary")
        if w.english:
            terms += [t for t in _GLOSS_WORD.findall(w.english.lower()) if t not in terms]
        for t in self._lookup(w.base) or self._lookup(w.surface):
            if t not in terms:
                terms.append(t)
        return [Gloss(w.surface, tuple(terms[:CANDIDATE_TERMS]), origin)] if terms else []

    def _merge_katakana(self, tokens: list[Any]) -> list[Any]:
        """MeCab splits loanwords it does not know (ウィジェット → ウィ + ジェット); a run of
        katakana tokens the dictionary knows as one word becomes one token again."""
        out: list[Any] = []
        i = 0
        while i < len(tokens):
            j = i
            while j < len(tokens) and _KATAKANA.match(tokens[j].surface):
                j += 1
            for end in range(min(j, i + MAX_KATAKANA_PARTS), i + 1, -1):  # longest known first
                joined = "".join(t.surface for t in tokens[i:end])
                known = self._lookup(joined)
                if known or joined in SOFTWARE_TERMS:
                    # サイト + マップ ("site map") → also "sitemap", glued as code glues
                    # names; not when the parts' origins misspell the word (ウィ + ジェット)
                    origins = [_loanword_origin(t) for t in tokens[i:end]]
                    glued = "".join(origins) if all(origins) else ""
                    out.append(_Joined(joined, glued if glued == "".join(known[:len(origins)]) else ""))
                    i = end
                    break
            else:
                out.append(tokens[i])
                i += 1
        return out

    def _merge_prefixes(self, tokens: list[Any]) -> list[Any]:
        """MeCab cuts a prefix off the noun it belongs to (再 + 計算, お + 知らせ, 非 + 同期);
        where the dictionary knows the prefixed word whole, it becomes one token again:
        再計算 is "recalculate", お知らせ "notification", 非同期 "asynchronous", while
        計算, 知らせ ("word"; "news") and 同期 ("synchronous") alone say something else or
        the opposite. The noun is searched too, after the prefixed word (未決済 is
        "outstanding" first, then 決済 "payment"), as a compound's parts follow it. A prefix
        the dictionary does not know with its noun (全 + ユーザー) stays a prefix, and is not
        searched."""
        out: list[Any] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if (tok.feature is not None and getattr(tok.feature, "pos1", "") == "接頭辞" and nxt is not None
                    and (nxt.feature is None or getattr(nxt.feature, "pos1", "") == "名詞")
                    and self._lookup(tok.surface + nxt.surface)):
                base = getattr(nxt.feature, "orthBase", None) or nxt.surface
                out.append(_Joined(tok.surface + nxt.surface, "", tok.white_space, (nxt.surface, base)))
                i += 2
                continue
            out.append(tok)
            i += 1
        return out

    def _lookup(self, word: str) -> tuple[str, ...]:
        if word in self._cache:
            return self._cache[word]
        assert self._db is not None
        kana = bool(_KANA_ONLY.match(word))
        rows = self._db.execute(
            "SELECT idseq, MAX(pri), MAX(kana_only) FROM ("
            " SELECT k.idseq AS idseq, EXISTS(SELECT 1 FROM KJP p WHERE p.kid = k.ID) AS pri, 0 AS kana_only"
            " FROM Kanji k WHERE k.text = ?"
            " UNION ALL SELECT n.idseq, EXISTS(SELECT 1 FROM KNP p WHERE p.kid = n.ID),"
            " NOT EXISTS(SELECT 1 FROM Kanji k2 WHERE k2.idseq = n.idseq)"
            "  OR EXISTS(SELECT 1 FROM Sense s JOIN misc m ON m.sid = s.ID WHERE s.idseq = n.idseq"
            "            AND m.text LIKE '%kana alone%')"
            " FROM Kana n WHERE n.text = ?"
            ") GROUP BY idseq ORDER BY " + ("MAX(kana_only) DESC, " if kana else "") + "MAX(pri) DESC, idseq LIMIT 1",
            (word, word),
        ).fetchall()
        terms: tuple[str, ...] = ()
        if rows:
            senses = self._db.execute("SELECT ID FROM Sense WHERE idseq = ? ORDER BY ID LIMIT ?",
                                      (rows[0][0], CANDIDATE_SENSES)).fetchall()
            glosses = [g for (sid,) in senses for (g,) in self._db.execute(
                "SELECT text FROM SenseGloss WHERE sid = ? ORDER BY rowid LIMIT 4", (sid,))]
            terms = tuple(gloss_terms(glosses, CANDIDATE_TERMS))
        if len(self._cache) < 50_000:
            self._cache[word] = terms
        return terms


@dataclass(frozen=True, slots=True)
class _Word:
    surface: str
    base: str  # dictionary form (orthBase: 超え → 超える)
    english: str  # a loanword's English origin from UniDic's lemma (ユーザー-user → user)
    kind: str  # "noun" | "suffix" | "word" | "ascii"
    software: bool = False
    noun: tuple[str, str] | None = None  # a prefixed word's noun (再計算: 計算), also searched


class _Joined:
    """A token rebuilt from a katakana run or a prefix and its noun (no UniDic features:
    looked up by its text)."""

    def __init__(self, surface: str, english: str, white_space: str = "",
                 noun: tuple[str, str] | None = None) -> None:
        self.surface = surface
        self.english = english
        self.white_space = white_space
        self.noun = noun  # a prefixed word's noun (surface, base): also searched
        self.feature = None


def _token_offsets(tokens: Iterable[Any]) -> list[tuple[int, int]]:
    """(start, end) character offsets of MeCab's words in the text it read (its surfaces
    and the whitespace before each concatenate to the text)."""
    out = []
    pos = 0
    for tok in tokens:
        pos += len(tok.white_space)
        out.append((pos, pos + len(tok.surface)))
        pos += len(tok.surface)
    return out


def software_spans(text: str, bounds: set[int] | None = None) -> list[tuple[str, bool]]:
    """The text cut at SOFTWARE_TERMS (longest first): (piece, is a software term).
    Matched before segmentation because MeCab may split them (いいね → いい + ね); with
    `bounds` (word boundaries) a term must start and end on one, so a term inside a
    longer word (決済 in 解決済み) is not cut out of it."""
    if not _SOFTWARE_RE.pattern:
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    pos = 0
    for start, end in _matches(text, bounds):
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def _matches(text: str, bounds: set[int] | None) -> Iterable[tuple[int, int]]:
    """(start, end) of SOFTWARE_TERMS left to right, longest first, on word boundaries
    when given (a shorter term at the same place may fit where the longer does not)."""
    pos = 0
    while (m := _SOFTWARE_RE.search(text, pos)) is not None:
        start = m.start()
        if bounds is None:
            ends = [m.end()]
        elif start in bounds:
            ends = [e for e in range(m.end(), start, -1) if e in bounds and text[start:e] in SOFTWARE_TERMS]
        else:
            ends = []
        if ends:
            yield start, ends[0]
            pos = ends[0]
        else:
            pos = start + 1


# Verb forms that, right after the particle に, make a compound particle: について
# "about", に対して "towards", によって/による "by", に関する "concerning", における "in",
# にとって "for". MeCab tags them as verbs (つい = 付く: "lit; catch" in the dictionary);
# the kanji 付く of 記事に付く画像 ("images attached to articles") stays a word.
_AFTER_NI = frozenset(["つい", "対し", "対する", "よっ", "よる", "関し", "関する", "おけ", "おい", "とっ"])


def _words(tokens: Iterable[Any]) -> Iterable[_Word]:
    """Content words (and ASCII words, which name a reversal's object: BANを解除 → unban).

    A verb UniDic marks as possibly non-independent (非自立可能) right after the
    conjunctive particle て/で is an auxiliary: it adds aspect or attitude to the verb
    before it, not an action of its own. 消えてしまう is "disappears (for good)", not
    "disappear and finish"; セットしておく "set (beforehand)", not "set and put"; 試してみる
    "try", not "try and see". Searched, it would add the auxiliary's everyday senses
    (finish, stop, end; put, place, leave) as if the request named them."""
    previous = ""
    conjunctive = False  # the token before is the conjunctive particle て/で
    for tok in tokens:
        surface = tok.surface
        f = tok.feature
        after, previous = previous, surface
        after_te = conjunctive
        conjunctive = surface in ("て", "で") and f is not None and getattr(f, "pos2", "") == "接続助詞"
        if after == "に" and surface in _AFTER_NI:
            yield _Word(surface, surface, "", "other")
            continue
        if after_te and getattr(f, "pos2", "") == "非自立可能":
            yield _Word(surface, surface, "", "other")  # an auxiliary verb
            continue
        if surface.isascii():
            if surface.isalnum():
                yield _Word(surface, surface, "", "ascii")
            continue
        pos1 = (getattr(f, "pos1", "") or "") if f is not None else "名詞"
        pos2 = (getattr(f, "pos2", "") or "") if f is not None else ""
        base = (getattr(f, "orthBase", None) or surface) if f is not None else surface
        origin = _loanword_origin(tok)
        if (pos1 not in ("名詞", "動詞", "形容詞", "形状詞", "接尾辞") or pos2 == "数詞"
                or not _JAPANESE.search(surface) or base in _JA_STOP or surface in _JA_STOP
                or (len(surface) == 1 and _KANA_ONLY.match(surface))):
            yield _Word(surface, base, "", "other")
            continue
        kind = "noun" if pos1 == "名詞" else "suffix" if pos1 == "接尾辞" else "word"
        yield _Word(surface, base, origin, kind, noun=getattr(tok, "noun", None))


def _loanword_origin(tok: Any) -> str:
    """UniDic writes a loanword's source word into its lemma: ユーザー-user → user."""
    if isinstance(tok, _Joined):
        return tok.english
    lemma = getattr(tok.feature, "lemma", None) or ""
    origin = lemma.split("-", 1)[1] if "-" in lemma else ""
    return origin if origin.isascii() and origin.replace("-", "").isalpha() else ""


def _with_compounds(words: list[_Word]) -> Iterable[_Word]:
    """Content words in order; a run of adjacent nouns (閲覧 + 数) is offered joined
    before its parts, and a suffix (者, 数) only as part of the joined word."""
    run: list[_Word] = []

    def flush() -> Iterable[_Word]:
        if len(run) > 1 and not any(w.software for w in run):
            joined = "".join(w.surface for w in run)
            # loanwords glue as code does: サイト + マップ → sitemap
            glued = "".join(w.english for w in run) if all(w.english for w in run) else ""
            yield _Word(joined, joined, glued, "noun")
        yield from (w for w in run if w.kind != "suffix")
        run.clear()

    for w in words:
        if w.kind in ("noun", "suffix"):
            run.append(w)
            continue
        yield from flush()
        if w.kind in ("word", "ascii"):
            yield w
    yield from flush()


def _object_before(words: list[_Word], verb: _Word) -> str:
    """The word a reversal verb undoes: the nearest content or ASCII word before it."""
    i = next((k for k, w in enumerate(words) if w is verb), len(words))
    for w in reversed(words[:i]):
        if w.kind in ("noun", "word", "ascii") and w.base not in _REVERSAL:
            return w.surface
    return ""


_BRIDGE = _Bridge()


def _incidental(uses: int, most: int) -> bool:
    """A sense the workspace mentions in a file or two while another sense of the same
    word runs through it: a passing mention (a comment, one label), not what it names."""
    return uses <= RARE_SENSE and most >= RARE_SENSE_MARGIN * uses


def glosses(text: str, known: Callable[[str], int] | None = None,
            spell: Callable[[str], str | None] | None = None) -> list[Gloss]:
    """The Japanese words of `text` with their English search terms (empty when the text
    has no Japanese); `known` says which terms the workspace's code uses (choose_terms),
    `spell` which workspace word a katakana word transliterates (respell).
    Raises JapaneseUnavailable when the segmenter or dictionary is missing."""
    if not has_japanese(text):
        return []
    # MeCab takes UTF-8: a lone surrogate (valid in a JSON string) becomes "?"
    text = text.encode("utf-8", "replace").decode("utf-8")
    return choose_terms(respell(_BRIDGE.glosses(text), text, known, spell), known)


# a katakana word as written (・ separates words, so it is not part of one)
_KATAKANA_RUN = re.compile(r"[\u30a1-\u30fa\u30fc]{3,}")


def respell(found: list[Gloss], text: str, known: Callable[[str], int] | None,
            spell: Callable[[str], str | None] | None) -> list[Gloss]:
    """Katakana words the dictionaries gave nothing the workspace uses, spelled back to
    the workspace's own word when `spell` finds one (loanwords.best_spelling).

    Why: a loanword UniDic and JMdict do not know gets no term (リファラ) or the terms of
    the pieces MeCab cut it into (フラッピング → フラッ + ピング "ping"; シリアライザー →
    シリア "Syria" + ライザー). A word as the request writes it is tried whole; its pieces'
    glosses give way to the spelled word, which takes the first piece's place (word order
    feeds the definition phrase and the pseudo-translation). A word whose whole gloss the
    workspace uses is left alone, and so is one the dictionaries know as one word: its
    origin says what it is (ビーコン beacon), and a workspace that never says "beacon"
    only has words that sound like it by chance (an audit over five apps and sympy found
    such matches for ビーコン, ハイライト, マークダウン, コホート)."""
    if spell is None:
        return found
    out = list(found)
    for m in _KATAKANA_RUN.finditer(text):
        run = m.group()
        if run in _JA_STOP or text.find(run) < m.start():  # a word written twice: once
            continue
        # the glosses of this word and its pieces (a piece also written elsewhere in the
        # request keeps its gloss)
        rest = text.replace(run, "\0")
        inside = [i for i, g in enumerate(out)
                  if g.origin not in ("literal", "reversal") and _KATAKANA.match(g.source) and g.source in run
                  and g.source not in rest]
        whole = [i for i in inside if out[i].source == run]
        if known is not None and any(known(t) for i in whole for t in out[i].terms):
            continue
        if whole and len(whole) == len(inside):
            continue  # one word the dictionaries know whole (トースト toast): its origin stands
        word = spell(run)
        if not word:
            continue
        at = inside[0] if inside else next(
            (i for i, g in enumerate(out) if text.find(g.source) > m.start()), len(out))
        out = [g for i, g in enumerate(out) if i not in inside]
        out.insert(at, Gloss(run, (word,), "loanword"))
    return out


@dataclass(frozen=True)
class Usage:
    """How the workspace's code uses English terms (search._workspace_uses), for
    choose_terms: `written` (called as the Usage itself) counts the files that write the
    word or its inflections, `matched` the files BM25 matches it in (porter stems), and
    `same` says whether two terms match the very same files (one stem).

    Why both counts: FTS5 stems, so a gloss whose stem is another, common word of the code
    matches that word's files (porter makes "edition" "edit", "incremental" "increment"):
    the code does not use the sense, and taking it as used made 版 "edition" in an app
    that edits things and names versions."""

    written: Callable[[str], int]
    matched: Callable[[str], int]
    same: Callable[[str, str], bool]

    def __call__(self, term: str) -> int:
        return self.written(term)


def _written_senses(terms: list[str], uses: dict[str, int], usage: Usage, limit: int) -> list[str]:
    """The senses choose_terms keeps when it knows which ones the code writes: among the
    first `limit` senses BM25 would match, the ones the code writes. `uses` is updated in
    place: a sense the code does not write but that matches exactly the files of a sense of
    the same word it writes is a form of that one (duplication ~ duplicate) and counts as
    written. A sense dropped for being unwritten leaves its slot empty rather than letting
    a farther sense in (組織 organization, formation, structure: "setup" does not take
    "formation"'s place). A word whose matched senses the code writes only in passing
    (RARE_SENSE files or fewer each) while another matches by its stem alone is treated as
    a word none of whose senses the code uses: a file or two is no evidence to overrule
    the dictionary's order with (情報 "news" in two files of umami against "information")."""
    for t in terms:
        if not uses[t] and usage.matched(t):
            sibling = next((o for o in terms if uses[o] and usage.same(t, o)), None)
            if sibling:
                uses[t] = uses[sibling]
    window = [t for t in terms if usage.matched(t)][:limit]
    written = [t for t in window if uses[t]]
    if written and len(written) < len(window) and all(uses[t] <= RARE_SENSE for t in written):
        return []
    return written or [t for t in terms if uses[t]][:limit]


def choose_terms(found: list[Gloss], known: Callable[[str], int] | None = None,
                 limit: int = TERMS_PER_WORD) -> list[Gloss]:
    """Each word's `limit` search terms out of its candidates: the ones the workspace's
    code uses, in the dictionary's order, when `known` (how many of the workspace's files
    use a term; a bool also works; a Usage also says which ones BM25 only matches by their
    stem: see _written_senses) says any is used, leaving out a sense the code uses
    only in passing (in RARE_SENSE files or fewer, while another of its senses is used in
    RARE_SENSE_MARGIN times as many).

    Why: JMdict orders a word's senses for everyday Japanese. 解決 is "settlement" before
    "solution", 履歴 is "personal history" before "history", and a loanword's other
    senses follow its origin (チェック: check, plaid, checkered). The code a request is
    about names things in its own words, so among the dictionary's candidates the ones
    the workspace uses are what the request means there; the rest would match nothing.
    Presence alone is not enough: a sense the code mentions once, in passing, is a rare
    word to BM25 and pulls that one file to the top (短縮 "contraction", in one comment
    of umami, against "short" in seven files that handle its short links).
    A word none of whose candidates the code uses keeps the dictionary's first terms.
    Literal ASCII words and reversal terms (unban) are kept as they are.
    """
    # a plain count is a Usage whose written and matched files are the same
    usage = known if known is None or isinstance(known, Usage) else Usage(known, known, lambda a, b: False)
    out = []
    for g in found:
        terms = list(g.terms)
        if usage is not None and g.origin not in ("literal", "reversal"):
            uses = {t: int(usage(t) or 0) for t in terms}
            used = _written_senses(terms, uses, usage, limit)
            most = max(uses.values(), default=0)
            # the first used sense stays (the dictionary's best guess the code knows);
            # a later one the code mentions only in passing goes, and leaves its slot empty
            terms = used[:1] + [t for t in used[1:] if not _incidental(uses[t], most)] or terms
        out.append(Gloss(g.source, tuple(terms[:limit]), g.origin))
    return out


#: A long request is translated from its first characters only (the lead says what it asks).
MAX_TRANSLATED_CHARS = 2_000


@dataclass(frozen=True)
class Translation:
    """What the word signals search for a request's Japanese."""

    terms: tuple[str, ...] = ()  # English terms for BM25, best first
    sources: dict[str, str] = field(default_factory=dict)  # term → the Japanese word it came from
    phrase: str = ""  # names for the definition signal (see definition_phrase)
    english: str = ""  # each word's best term in the request's order (for the vector query)
    note: str = ""  # for the answer's notes: what was searched, or why nothing was
    # `terms` split by the Japanese word they translate (one group per word, its senses
    # together; an ASCII word written in the request is a group of one): BM25 scores a
    # word's senses as one term (see lexical.grouped_scores)
    groups: tuple[tuple[str, ...], ...] = ()

    def marked(self, matched: Iterable[str]) -> dict[str, str]:
        """The matched terms that came from Japanese, with their source words."""
        return {t: self.sources[t] for t in matched if t in self.sources}


def translate_request(text: str, literal: Iterable[str] = (),
                      known: Callable[[str], int] | None = None,
                      spell: Callable[[str], str | None] | None = None) -> Translation:
    """English terms for the Japanese words of a request (none when it has none). Terms
    the request already writes (`literal`) stay literal evidence, not translated;
    `known` (a term the workspace's code uses?) chooses among a word's senses; `spell`
    spells a katakana word back to the workspace's word (respell)."""
    if not has_japanese(text):
        return Translation()
    try:
        found = glosses(text[:MAX_TRANSLATED_CHARS], known, spell)
    except JapaneseUnavailable as exc:
        return Translation(note=f"Japanese words were searched by meaning only: {exc}")
    except (OSError, sqlite3.Error) as exc:
        return Translation(note=f"Japanese words were searched by meaning only: the dictionary failed ({exc})")
    literal = set(literal)
    # ASCII words written inside Japanese ("BANを解除", "GitHubで") are one run with the
    # kana to the word tokenizer: searched here as the literal words they are.
    written = [t for t in query_terms(" ".join(_ASCII_WORD.findall(text[:MAX_TRANSLATED_CHARS])))
               if t not in literal]
    literal.update(written)
    terms = tuple(dict.fromkeys([*written, *(t for t in english_terms(found) if t not in literal)]))
    sources: dict[str, str] = {}
    for g in found:
        if g.origin != "literal":
            for t in g.terms:
                if t in terms:
                    sources.setdefault(t, g.source)
    shown = ", ".join(f"{g.source}→{g.terms[0]}" for g in found if g.origin != "literal" and g.terms)
    note = f"Japanese searched as English words too: {shown}" if shown else ""
    english = " ".join(dict.fromkeys(g.terms[0] for g in found if g.terms))
    return Translation(terms, sources, definition_phrase(found) if terms else "", english=english, note=note,
                       groups=word_groups(terms, found))


def word_groups(terms: Iterable[str], found: list[Gloss]) -> tuple[tuple[str, ...], ...]:
    """`terms` grouped by the Japanese word they came from, in `terms`' order: each term
    in the first word that gives it; a term of no word (an ASCII word) alone."""
    owner: dict[str, int] = {}
    for i, g in enumerate(found):
        if g.origin != "literal":
            for t in g.terms:
                owner.setdefault(t, i)
    groups: dict[tuple[str, int], list[str]] = {}
    for t in terms:
        key = ("word", owner[t]) if t in owner else (t, -1)
        groups.setdefault(key, []).append(t)
    return tuple(tuple(g) for g in groups.values())
