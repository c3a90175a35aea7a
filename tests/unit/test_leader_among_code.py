"""The vectors' clear leader is chosen among code when tests rank below code.

The shape that failed on a real app (solidtime, set (b) tune, English: "issue a share secret
when a report is made public"): the vectors' best file was the report service (0.429), an
end-to-end spec came second (0.389) and the next code file far lower (0.338). Measured
against the spec, the service's lead was too small to trust, so it got no bonus and the
files the words preferred stayed above it; the spec itself is ranked below code anyway.
"""

from __future__ import annotations

from code_intel.indexing import file_kinds, search
from code_intel.indexing.file_kinds import PROSE_KINDS

GREY = 0.25  # the model's grey-zone width (fact − reject)
SERVICE = "app/Service/ReportService.php"  # the vectors' first file
SPEC = "e2e/shared-reports.spec.ts"  # a test, the vectors' second
CONTROLLER = "app/Http/Controllers/Api/V1/Public/ReportController.php"  # the words' first
OTHERS = [f"app/Other/O{i}.php" for i in range(8)]
DEMOTED = PROSE_KINDS | {file_kinds.UI, file_kinds.TEST}


def _candidates() -> list[search._Candidate]:
    vec = [(SERVICE, 0.429), (SPEC, 0.389), (CONTROLLER, 0.338)] + [(p, 0.33 - 0.01 * i) for i, p in enumerate(OTHERS)]
    lex = [CONTROLLER, *OTHERS]  # the words do not find the service
    out = []
    for rank, (path, sim) in enumerate(vec, 1):
        kw: dict = {"vector": sim, "vector_rank": rank}
        if path in lex:
            kw["lexical"], kw["lexical_rank"] = 12.0 - lex.index(path), lex.index(path) + 1
        out.append(search._Candidate(path + "#c", path, "f", "function", "f", 0, 10, **kw))
    return out


def _ranked(demoted: frozenset[str]) -> list[str]:
    files = search._rank_files(_candidates(), {}, {}, "rrf", 20, demoted, GREY)
    return [f.path for f in files]


def test_a_test_does_not_hide_the_code_files_clear_lead():
    ranked = _ranked(DEMOTED)
    assert ranked[0] == SERVICE
    assert ranked.index(SPEC) > ranked.index(CONTROLLER)
    # a request that asks for tests has the spec as the service's rival: no clear lead
    assert _ranked(DEMOTED - {file_kinds.TEST})[0] == CONTROLLER
