"""SPEC §4.2: quote validation, value consistency, investigation guidance, the
extraction prompt and schema."""

from __future__ import annotations

import pytest
from code_intel.gating.errors import GatingError
from code_intel.gating.interfaces import SimilarityThresholds
from code_intel.gating.model import Slot
from code_intel.gating.query_frame import (
    SLOT_SCHEMA,
    extraction_prompt,
    investigation_guidance,
    normalize,
    parse_slots,
    quote_in_query,
    validate_frame,
)
from test_gating_fakes import DETAILED, DETAILED_SLOTS, FakeEmbedder, make_engine

QUERY = "ログイン機能でパスワードが空のときにエラーが出ないので、エラーを出すように修正して"


def validate(slots, query=QUERY, embedder=None):
    e = embedder or FakeEmbedder()
    return validate_frame(parse_slots(slots), query, e.similarity, e.thresholds)


def test_quote_found_verbatim_is_accepted():
    r = validate({"target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"}})
    assert r.accepted == {Slot.TARGET_FEATURE: ("ログイン機能", "ログイン機能で")}
    assert not r.rejected


def test_hallucinated_quote_is_rejected_and_listed():
    r = validate(
        {
            "target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"},
            "observed_issue": {"value": "500エラー", "quote": "500エラーが発生する"},
        }
    )
    assert Slot.OBSERVED_ISSUE not in r.accepted
    assert [x.slot for x in r.rejected] == [Slot.OBSERVED_ISSUE]
    assert "not found in the request" in r.rejected[0].error


def test_quote_matching_is_nfkc_and_whitespace_normalised():
    query = "ＡＰＩの　ログイン\n機能で  timeout が出る"
    assert normalize(query) == "APIの ログイン 機能で timeout が出る"
    assert quote_in_query("APIの ログイン 機能で", query)
    assert quote_in_query("timeout  が出る", query)
    # normalisation is not fuzziness: a different word is still not a quote
    assert not quote_in_query("timeout が出ない", query)
    assert not quote_in_query("   ", query)


def test_full_width_quote_of_a_half_width_request_is_accepted():
    r = validate({"target_feature": {"value": "API", "quote": "ＡＰＩ"}}, query="APIが遅い")
    assert Slot.TARGET_FEATURE in r.accepted


def test_value_contained_in_its_quote_is_consistent():
    r = validate({"trigger_condition": {"value": "パスワードが空", "quote": "パスワードが空のときに"}})
    assert Slot.TRIGGER_CONDITION in r.accepted


def test_value_consistent_by_embedding_similarity():
    # "login feature" is not contained in the Japanese quote; the embedder relates them
    r = validate({"target_feature": {"value": "login feature", "quote": "ログイン機能"}})
    assert Slot.TARGET_FEATURE in r.accepted


def test_value_inconsistent_with_its_quote_is_rejected():
    r = validate({"target_feature": {"value": "ログアウト", "quote": "ログイン機能で"}})
    assert not r.accepted
    assert "not consistent with its quote" in r.rejected[0].error


def test_consistency_threshold_is_the_backends():
    # similarity 0.5: consistent for a backend calibrated at 0.45, not at the default 0.6
    pair = ("sign-in page", "ログイン機能")
    lenient = FakeEmbedder(SimilarityThresholds(consistency=0.45), overrides={pair: 0.5})
    strict = FakeEmbedder(overrides={pair: 0.5})
    slots = {"target_feature": {"value": "sign-in page", "quote": "ログイン機能"}}
    assert Slot.TARGET_FEATURE in validate(slots, embedder=lenient).accepted
    assert Slot.TARGET_FEATURE not in validate(slots, embedder=strict).accepted


def test_missing_quote_or_value_is_a_listed_rejection():
    r = validate(
        {
            "target_feature": {"value": "ログイン機能", "quote": ""},
            "desired_action": {"value": "", "quote": "修正して"},
        }
    )
    assert {x.slot for x in r.rejected} == {Slot.TARGET_FEATURE, Slot.DESIRED_ACTION}


def test_null_slot_is_missing_not_an_error():
    r = validate({"observed_issue": None})
    assert r.cleared == (Slot.OBSERVED_ISSUE,) and not r.rejected


@pytest.mark.parametrize(
    "slots, fragment",
    [
        ({"target": {"value": "a", "quote": "a"}}, "unknown slot"),
        ({"target_feature": "ログイン"}, "must be an object"),
        ({"target_feature": {"value": "a", "quote": "a", "confidence": 1}}, "unknown key"),
        ({"target_feature": {"value": 3, "quote": "a"}}, "must be a string"),
        (["target_feature"], "slots must be an object"),
    ],
)
def test_malformed_slots_are_refused_with_a_message(slots, fragment):
    with pytest.raises(GatingError) as err:
        parse_slots(slots)
    assert fragment in err.value.message and err.value.code == "invalid_params"


def test_investigation_guidance_for_each_missing_slot():
    g = investigation_guidance((Slot.OBSERVED_ISSUE, Slot.TRIGGER_CONDITION))
    assert [h["slot"] for h in g["hints"]] == ["observed_issue", "trigger_condition"]
    assert all(h["hint"] and h["action"] and h["tools"] for h in g["hints"])
    assert g["recommended_tools"] == ["search_text", "query", "find_definitions"]


def test_extraction_prompt_and_schema_demand_quotes():
    prompt = extraction_prompt(QUERY)
    assert QUERY in prompt and "quote" in prompt and "set_query_frame" in prompt
    slot = SLOT_SCHEMA["$defs"]["slot_data"]
    assert slot["required"] == ["value", "quote"]
    assert set(SLOT_SCHEMA["properties"]) == {s.value for s in Slot}


# ---- through the engine ---------------------------------------------------------------


def test_set_query_frame_stores_accepted_slots_as_fact_and_lists_rejections(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", QUERY)["session_id"]
    r = engine.set_query_frame(
        sid,
        {
            "target_feature": {"value": "ログイン機能", "quote": "ログイン機能で"},
            "observed_issue": {"value": "エラーが出ない", "quote": "エラーが表示されない"},
        },
    )
    assert r["success"] is False
    assert [e["slot"] for e in r["validation_errors"]] == ["observed_issue"]
    frame = engine.get_session_status(sid)["query_frame"]
    assert frame["target_feature"] == "ログイン機能"
    assert frame["slot_source"] == {"target_feature": "FACT"}
    assert frame["observed_issue"] is None
    assert "observed_issue" in r["missing_slots"]
    assert {h["slot"] for h in r["investigation_guidance"]["hints"]} == set(r["missing_slots"])


def test_a_rejected_slot_clears_an_earlier_value(tmp_path):
    engine = make_engine(tmp_path)
    sid = engine.start_session("MODIFY", DETAILED)["session_id"]
    engine.set_query_frame(sid, DETAILED_SLOTS)
    engine.set_query_frame(sid, {"observed_issue": {"value": "x", "quote": "not in the request"}})
    status = engine.get_session_status(sid)
    assert status["query_frame"]["observed_issue"] is None
    assert status["risk"] == "HIGH"  # MODIFY without observed_issue
