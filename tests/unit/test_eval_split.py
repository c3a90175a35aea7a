"""`retrieval_eval.py --only requests --split tune` ranks the tune cases only: weights are
chosen on them, and the held-out cases must not be ranked or printed while choosing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from retrieval_eval import only_split

SETS = [
    {"app": "a", "cases": [{"id": "a-01", "split": "tune"}, {"id": "a-02", "split": "heldout"}]},
    {"app": "b", "cases": [{"id": "b-01", "split": "heldout"}]},
    {"app": "c", "cases": [{"id": "c-01"}]},  # no label: tune (the older sets)
]


def test_tune_keeps_the_tune_cases_and_drops_apps_with_none():
    kept = only_split(SETS, "tune")
    assert [(s["app"], [c["id"] for c in s["cases"]]) for s in kept] == [("a", ["a-01"]), ("c", ["c-01"])]
    assert SETS[0]["cases"][1]["id"] == "a-02"  # the caller's sets are not changed


def test_heldout_and_all():
    assert [s["app"] for s in only_split(SETS, "heldout")] == ["a", "b"]
    assert only_split(SETS, "all") is SETS
