"""A katakana loanword back to the English word a workspace spells it with.

Why: a katakana word is English written by ear (フラッピング flapping, リファラ referrer,
ファネル funnel, トラッカー tracker). UniDic knows the origin of the common ones; the rest
get no English term at all, or a wrong one when MeCab splits them into words it knows
(フラッ + ピング → "ping"), or the dictionary's everyday origin (ソース → "sauce") where
the code says "source". The workspace's own vocabulary is the right candidate list: the
request is about this code, and the code spells the word. So the katakana is turned into
a coarse sound key and compared with the keys of the workspace's words; only a match
that agrees on every consonant and (nearly) every vowel, and that no other word of the
workspace matches as well, is used.

The key follows how Japanese borrows English: l and r are one sound, so are b and v;
vowels a Japanese word must add after a consonant (ト in トースト, グ in ピング) are not
evidence; ー and ッ lengthen a sound the English spelling does not; an r after a vowel
is not pronounced (サーバー server); a final e is silent. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexical import STOPWORDS

# ---- katakana → romaji ------------------------------------------------------------------

_KANA = dict(zip(
    "アイウエオカキクケコガギグゲゴサシスセソザジズゼゾタチツテトダヂヅデドナニヌネノ"
    "ハヒフヘホバビブベボパピプペポマミムメモヤユヨラリルレロワヲンヴ",
    ["a", "i", "u", "e", "o", "ka", "ki", "ku", "ke", "ko", "ga", "gi", "gu", "ge", "go",
     "sa", "shi", "su", "se", "so", "za", "ji", "zu", "ze", "zo", "ta", "chi", "tsu", "te", "to",
     "da", "ji", "zu", "de", "do", "na", "ni", "nu", "ne", "no", "ha", "hi", "fu", "he", "ho",
     "ba", "bi", "bu", "be", "bo", "pa", "pi", "pu", "pe", "po", "ma", "mi", "mu", "me", "mo",
     "ya", "yu", "yo", "ra", "ri", "ru", "re", "ro", "wa", "o", "n", "vu"], strict=True))
_SMALL_VOWEL = {"ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o"}
_SMALL_Y = {"ャ": "a", "ュ": "u", "ョ": "o"}
_KATAKANA_WORD = re.compile(r"^[\u30a1-\u30fa\u30fc]+$")


def is_katakana_word(text: str) -> bool:
    """Katakana (and ー) only: a loanword candidate."""
    return bool(_KATAKANA_WORD.match(text))


def romanize(kana: str) -> str:
    """Hepburn-like romaji with the loanword spellings (ファ fa, ティ ti, ウィ wi, ヴ v);
    ッ is dropped (a doubled consonant English spells singly), ー doubles its vowel."""
    out: list[str] = []
    i = 0
    while i < len(kana):
        ch = kana[i]
        nxt = kana[i + 1] if i + 1 < len(kana) else ""
        i += 1
        if ch == "ッ":
            continue
        if ch == "ー":  # a long vowel: its vowel again (ビーコン biikon)
            if out and out[-1][-1] in "aeiou":
                out.append(out[-1][-1])
            continue
        base = _KANA.get(ch)
        if base is None:
            if ch in _SMALL_VOWEL:
                out.append(_SMALL_VOWEL[ch])
            elif ch in _SMALL_Y:
                out.append("y" + _SMALL_Y[ch])
            continue
        if nxt in _SMALL_Y:  # キャ kya, シャ sha, チュ chu
            stem = base[:-1]
            out.append((stem if stem in ("sh", "ch", "j") else stem + "y") + _SMALL_Y[nxt])
            i += 1
        elif nxt in _SMALL_VOWEL:  # ファ fa, ティ ti, ウィ wi, ヴァ va, シェ she
            stem = "w" if ch == "ウ" else "v" if ch == "ヴ" else base[:-1] if len(base) > 1 else base
            out.append(stem + _SMALL_VOWEL[nxt])
            i += 1
        else:
            out.append(base)
    return "".join(out)


# ---- sound keys -------------------------------------------------------------------------

_VOWELS = frozenset("aeiouy")
# consonant classes both languages are reduced to (s/z, g/j, r/l, b/v are one each)
_CLASS = {"z": "s", "j": "g", "l": "r", "v": "b", "q": "k", "c": "k"}


@dataclass(frozen=True, slots=True)
class Sound:
    """A word as consonant classes and the vowel groups around them: `vowels[0]` comes
    before the first consonant, `vowels[k + 1]` after consonant k. `letters` keeps each
    consonant's letter before classing (an exact letter scores above a class match)."""

    consonants: str
    letters: str
    vowels: tuple[str, ...]


def _split(phones: str) -> Sound:
    cons: list[str] = []
    letters: list[str] = []
    vowels = [""]
    for ch in phones:
        if ch in _VOWELS:
            vowels[-1] += ch
            continue
        cls = _CLASS.get(ch, ch)
        if cons and cls == cons[-1] and not vowels[-1]:  # a doubled consonant
            continue
        cons.append(cls)
        letters.append(ch)
        vowels.append("")
    return Sound("".join(cons), "".join(letters), tuple(vowels))


def katakana_sound(kana: str) -> Sound:
    """The sound key of a katakana word."""
    r = romanize(kana)
    r = r.replace("sh", "s").replace("ch", "c").replace("ts", "t")
    return _split(r)


_EN_RULES: tuple[tuple[str, str], ...] = (
    (r"[^a-z]", ""),
    (r"tion|sion|ssion", "son"),
    (r"ph", "f"),
    (r"ck", "k"),
    (r"gh", ""),
    (r"^wr", "r"),
    (r"^kn", "n"),
    (r"wh", "w"),
    (r"th", "s"),
    (r"sh", "s"),
    (r"tch|ch", "c"),
    (r"x", "ks"),
    (r"c(?=[eiy])", "s"),
    (r"dg(?=[ei])", "j"),
    (r"g(?=[ei])", "j"),
    (r"(?<=[aeiou])w(?![aeiou])", ""),  # a glide after a vowel (view, flow): no consonant of its own
    (r"ts", "t"),
    (r"^y(?=[aeiou])", ""),
    (r"m(?=[pb])", "n"),  # Japanese writes ン before p and b (complete コンプリート)
)


@lru_cache(maxsize=262_144)
def english_sound(word: str, whole: bool = True) -> Sound:
    """The sound key of an English word. `whole=False` for a stem cut off a longer word
    (a porter stem, `referr`): its end is not the word's end, so the end-of-word rules
    (silent e, a final unpronounced r) are not applied."""
    w = word.lower()
    for pattern, repl in _EN_RULES:
        w = re.sub(pattern, repl, w)
    if whole and len(w) > 3 and w.endswith("e") and w[-2] not in _VOWELS:
        w = w[:-1]  # silent e (complete, table → tabl)
    # an r after a vowel and before a consonant (or the end) is not pronounced
    w = re.sub(r"(?<=[aeiouy])r+(?=[^aeiouyr])", "", w)
    if whole:
        w = re.sub(r"(?<=[aeiouy])r+$", "", w)
    return _split(w)


# vowels Japanese writes for an English vowel letter (cut カット, server サーバー, love ラブ)
_ALLOWED = {"a": "ae", "e": "eia", "i": "i", "o": "oau", "u": "aue", "y": "i"}
def _epenthetic(ja: str, prev: str) -> bool:
    """A vowel Japanese must add after a consonant English ends a syllable with: one short
    u (o after t and d: ト, ド; i after ch and j: チ, ジ), or none."""
    if not ja:
        return True
    if prev in ("t", "d"):
        return ja in ("o", "u")
    if prev in ("c", "g"):
        return ja in ("i", "u")
    return ja == "u"


def _vowels_agree(ja: str, en: str, before: str, prev: str = "") -> bool:
    """Does the katakana's vowel group render the English one? `before` is the
    consonant class that follows (an English a is オ only as in auto, ball, law),
    `prev` the one before (which vowel Japanese adds after it)."""
    ja = ja.lstrip("y") or ja
    en = en.lstrip("y") or en
    if not en:
        return _epenthetic(ja, prev)
    if not ja:
        return en == "e"
    if en[0] in "iy" and ja.startswith("ai"):  # file ファイル, type タイプ
        return True
    if en[0] == "a" and ja[0] == "o":
        return en[1:2] in ("u", "w") or before == "r"
    return ja[0] in _ALLOWED.get(en[0], en[0])


def _same_vowel(ja: str, en: str) -> bool:
    ja, en = ja.lstrip("y"), en.lstrip("y")
    return bool(ja and en) and ja[0] == en[0]


@dataclass(frozen=True, slots=True)
class Match:
    word: str
    misses: int  # vowel groups that disagree
    exact: int  # consonants spelled with the same letter
    same: int  # vowel groups written with the same first vowel

    @property
    def order(self) -> tuple[int, int, int]:
        """Better first."""
        return (self.misses, -self.exact, -self.same)


def compare(kana: Sound, word: str) -> Match | None:
    """How well an English word sounds like the katakana word: None when a consonant
    differs, else its vowel disagreements and exact consonant letters."""
    en = english_sound(word)
    if en.consonants != kana.consonants:
        return None
    after = [*kana.consonants, ""]
    before = ["", *kana.consonants]
    misses = sum(not _vowels_agree(j, e, after[k], before[k])
                 for k, (j, e) in enumerate(zip(kana.vowels, en.vowels, strict=True)))
    exact = sum(a == b for a, b in zip(kana.letters, en.letters, strict=True))
    same = sum(_same_vowel(j, e) for j, e in zip(kana.vowels, en.vowels, strict=True))
    return Match(word, misses, exact, same)


#: A key with fewer consonants than this is too short to tell words apart (ソース "ss"
#: matches "those" as well as "source"; ロード load, lord and road).
MIN_CONSONANTS = 3
#: Below this many consonants every vowel must agree; from it on one may disagree.
LENIENT_FROM = 4


def acceptable(m: Match, kana: Sound) -> bool:
    """A match close enough to trust on its own."""
    if len(kana.consonants) < MIN_CONSONANTS:
        return False
    return m.misses == 0 or (m.misses == 1 and len(kana.consonants) >= LENIENT_FROM)


def sounds_like(kana: Sound, word: str) -> bool:
    """Is `word` close enough to the katakana word to be taken for it?"""
    m = compare(kana, word)
    return m is not None and acceptable(m, kana)


def stem_fits(kana: Sound, stem: str, slack: int = 3) -> bool:
    """Could a word with this (porter) stem be the katakana word? The stem's consonants
    start the katakana's, leaving at most `slack` for its ending (-ing, -er, -tion)."""
    n = len(kana.consonants)
    for whole in (False, True):
        c = english_sound(stem, whole).consonants
        if len(c) >= min(MIN_CONSONANTS, n) and kana.consonants.startswith(c) and n - len(c) <= slack:
            return True
    return False


# endings the porter stemmer takes off (flapping → flap, referrer → referr, pagination →
# pagin, complete → complet, query → queri): a stem is compared as the words it stands for
_ENDINGS = ("", "e", "s", "er", "ing", "ion", "ation", "ed", "or", "ent", "ate", "ity")


def stem_words(stem: str) -> list[str]:
    """The words a porter stem may stand for (spelling by ear: doubled consonants and a
    y turned i are both fine for the sound key)."""
    words = [stem + e for e in _ENDINGS]
    if stem.endswith("i"):
        words.append(stem[:-1] + "y")
    return words


#: first letters an English word may start with, by the katakana's first consonant
#: class ("" = it starts with a vowel)
_INITIALS = {"": "aeiouyh", "k": "kcq", "g": "gj", "s": "sczt", "t": "t", "d": "d", "n": "nk",
             "h": "hw", "f": "fp", "b": "bv", "p": "p", "m": "m", "r": "rlw", "w": "w", "c": "c",
             "y": "uy"}


def initials(kana: Sound) -> str:
    """The letters a workspace word that could spell this katakana word starts with."""
    if kana.vowels[0] or not kana.consonants:
        return _INITIALS[""]
    return _INITIALS.get(kana.consonants[0], kana.consonants[0])


def best_spelling(kana: str, stems: dict[str, int]) -> tuple[str, str] | None:
    """(stem, word): the one workspace stem the katakana word transliterates, with the
    word it was read as; `stems` maps the workspace's stems to how many files use them.
    None when no stem is close enough, or when two unrelated stems are equally close
    (the caller then keeps what the dictionary gave). Stems of one word family
    (refer, referr) are one candidate: the one more files use stands for it."""
    sound = katakana_sound(kana)
    if len(sound.consonants) < MIN_CONSONANTS:
        return None
    best: dict[str, Match] = {}
    longest = 2 * len(romanize(kana)) + 2
    for stem in stems:
        if len(stem) > longest or not stem.isalpha() or stem in STOPWORDS or not stem_fits(sound, stem):
            continue
        for word in stem_words(stem):
            m = compare(sound, word)
            # the stem's plainest word that fits best (same vowels do not pick an ending)
            if m is not None and acceptable(m, sound) and (
                    stem not in best or m.order[:2] < best[stem].order[:2]):
                best[stem] = m
    if not best:
        return None
    top = min(m.order for m in best.values())
    tied = [s for s, m in best.items() if m.order == top]
    root = min(tied, key=len)
    if any(not s.startswith(root) for s in tied):
        return None
    stem = max(tied, key=lambda s: (stems[s], -len(s)))
    return stem, best[stem].word
