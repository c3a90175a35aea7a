"""What a long request is about: pasted issues, tracebacks and code, reduced to the
parts a search can use.

Agents paste whole bug reports (tens of kilobytes: prose, a traceback, a code
sample, a log). Fed to BM25 as-is, a 5,000-word request is an OR of every word and
ranks the files that share the most common ones; fed to an encoder, it is cut at the
model's window after the first paragraph of pleasantries. `parse_request` pulls out:

* traceback frames (`File "pkg/mod.py", line 12, in func`, `at pkg/mod.js:12:3`,
  `pkg/mod.php:12`, `pkg/mod.py:12: in func`) — direct evidence when the path is in
  the workspace;
* file paths the request names (`src/app/models.py`);
* identifiers: names in code spans, dotted names, CamelCase and snake_case words;
* error lines (`ValueError: invalid literal …`);
* a short lead (title + first paragraph) for the encoder.

Pure functions over text; nothing here reads the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: requests longer than this are treated as documents: their words are selected, not all used
LONG_REQUEST_CHARS = 600
#: what the encoder sees of a long request
VECTOR_LEAD_CHARS = 500

_PY_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?')
_PYTEST_FRAME = re.compile(r"^([\w./\\-]+\.\w+):(\d+):(?: in ([\w<>.]+))?", re.MULTILINE)
_JS_FRAME = re.compile(r"\bat (?:([\w$.<>]+) )?\(?((?:[A-Za-z]:)?[\w./\\@-]+\.\w+):(\d+)(?::\d+)?\)?")
_PHP_FRAME = re.compile(r"((?:[A-Za-z]:)?[\w./\\-]+\.php)(?:\((\d+)\)|:(\d+)| on line (\d+))")
_PATH = re.compile(r"(?<![\w/.-])((?:[\w@.-]+/)*[\w@-][\w.@-]*\.(?:py|pyi|js|jsx|ts|tsx|mjs|cjs|vue|php|go|java|rb|rs|c|h|cpp|cs|css|scss|html|json|yaml|yml|toml|cfg|ini|sql|md|rst))\b")
_CODE_SPAN = re.compile(r"```[\w+-]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)
_ERROR_LINE = re.compile(r"^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))(?::\s*(.*))?$",
                         re.MULTILINE)
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


@dataclass(frozen=True)
class Frame:
    """One stack frame a request quotes: `path` as written, 1-based `line`."""

    path: str
    line: int | None
    function: str | None


@dataclass
class ParsedRequest:
    text: str
    frames: list[Frame] = field(default_factory=list)  # innermost first
    paths: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lead: str = ""

    @property
    def is_long(self) -> bool:
        return len(self.text) > LONG_REQUEST_CHARS

    def vector_text(self) -> str:
        """Title and first paragraph, then the error line: what the request is about."""
        if not self.is_long:
            return self.text
        extra = " ".join(self.errors[:2])
        return (self.lead + ("\n" + extra if extra else ""))[: VECTOR_LEAD_CHARS + 200]


def _frames(text: str) -> list[Frame]:
    """Stack frames, innermost (where the error was raised) first."""
    # Python prints the innermost frame last; pytest, JS and PHP print it first.
    out: list[Frame] = [Frame(m.group(1), int(m.group(2)), m.group(3)) for m in _PY_FRAME.finditer(text)][::-1]
    for m in _PYTEST_FRAME.finditer(text):
        out.append(Frame(m.group(1), int(m.group(2)), m.group(3)))
    for m in _JS_FRAME.finditer(text):
        out.append(Frame(m.group(2), int(m.group(3)), m.group(1)))
    for m in _PHP_FRAME.finditer(text):
        line = m.group(2) or m.group(3) or m.group(4)
        out.append(Frame(m.group(1), int(line) if line else None, None))
    seen: set[tuple[str, int | None]] = set()
    unique = []
    for f in out:
        key = (f.path, f.line)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique


def _lead(text: str) -> str:
    """The first lines of prose (a title and its first paragraph), code blocks removed."""
    prose = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", prose) if p.strip()]
    lead = "\n".join(paragraphs[:2])
    return lead[:VECTOR_LEAD_CHARS]


def _is_code_name(word: str) -> bool:
    """CamelCase, snake_case, or with digits: a name someone wrote in code, not prose."""
    if "_" in word.strip("_"):
        return True
    inner = word[1:]
    return any(ch.isupper() for ch in inner) and any(ch.islower() for ch in word)


def parse_request(text: str) -> ParsedRequest:
    """Frames, paths, identifiers, error lines and a lead, each de-duplicated in order."""
    frames = _frames(text)
    paths = list(dict.fromkeys(
        [f.path for f in frames] + [m.group(1) for m in _PATH.finditer(text)]
    ))
    idents: dict[str, None] = {}
    for m in _CODE_SPAN.finditer(text):
        span = m.group(1) or m.group(2) or ""
        for w in _IDENT.findall(span):
            if len(w) >= 3:
                idents.setdefault(w, None)
    for m in _DOTTED.finditer(text):
        if not _PATH.fullmatch(m.group(0)):
            for part in m.group(0).split("."):
                if len(part) >= 3:
                    idents.setdefault(part, None)
    for w in _IDENT.findall(text):
        if _is_code_name(w):
            idents.setdefault(w, None)
    for f in frames:
        if f.function and f.function.isidentifier():
            idents.setdefault(f.function, None)
    errors = list(dict.fromkeys(
        (m.group(1) + (": " + m.group(2).strip() if m.group(2) else "")) for m in _ERROR_LINE.finditer(text)
    ))
    return ParsedRequest(text, frames, paths, list(idents), errors, _lead(text))
