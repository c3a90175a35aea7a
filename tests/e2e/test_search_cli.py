"""`code-intel search` as a user runs it: the real executable, the real model, a copy
of the Laravel fixture; ranked files and symbols with evidence, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.lean_probe import run_lean

EXE = str(Path(sys.executable).parent / "code-intel")
CONTROLLER = "app/Http/Controllers/Auth/LoginController.php"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([EXE, *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=300,
                          input=stdin)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    import shutil

    root = tmp_path_factory.mktemp("cli") / "laravel_app"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "laravel_app", root)
    first = run("search", "ログイン処理はどこ", "--json", cwd=root)  # indexes and embeds
    assert first.returncode == 0, first.stderr
    return root


def test_japanese_request_ranks_the_login_controller(shop):
    proc = run("search", "ログイン処理はどこ", "--json", "--top", "5", "--wait-model", "120", cwd=shop)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["status"] == "ok" and len(answer["files"]) <= 5
    assert CONTROLLER in [f["path"] for f in answer["files"][:3]]
    assert all("evidence" in s for s in answer["symbols"])
    assert (shop / ".code-intel" / "chroma").is_dir() and (shop / ".code-intel" / "lexical.db").exists()


def test_human_output_lists_files_and_symbols_with_evidence(shop):
    proc = run("search", "where is the login handled", "--top", "3", "--wait-model", "120", cwd=shop)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "files" in out and "symbols" in out
    assert "LoginController.php" in out
    assert "defines 'login'" in out and "bm25 #" in out


def test_collection_mode_is_plain_vector_search(shop):
    answer = json.loads(run("search", "注文の合計金額", "--collection", "forest", "--json", cwd=shop).stdout)
    assert answer["source"] == "forest" and answer["results"]
    assert answer["results"][0]["path"].startswith(("app/", "database/"))
    answer = json.loads(run("search", "注文の合計金額", "--collection", "map", "--json", cwd=shop).stdout)
    assert answer["source"] == "none" and answer["results"] == []


def test_without_a_server_the_answer_does_not_wait_for_the_model_and_says_so(shop):
    proc = run("search", "where is the login handled", "--json", "--wait-model", "0", cwd=shop)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["status"] == "partial"
    assert any("no vector signal" in n and "--wait-model" in n for n in answer["notes"])
    assert CONTROLLER in [f["path"] for f in answer["files"][:3]]  # the words still find it


def test_without_a_server_a_request_with_words_answers_by_words_without_loading_the_model(shop):
    """Loading the model and Chroma costs seconds per call; once vectors exist, a request
    with words is answered by words alone, and the answer says how to get vectors."""
    for request in ("where is the login handled", "ログイン処理はどこ"):
        out, heavy = run_lean(["search", request, "--json"], shop)
        answer = json.loads(out)
        assert heavy == [], f"search imported {heavy}"
        assert answer["status"] == "partial"
        assert any("no vector signal" in n and "code-intel lsp" in n for n in answer["notes"])
        assert CONTROLLER in [f["path"] for f in answer["files"][:3]], request


def test_without_a_server_a_request_without_words_still_gets_vectors(shop):
    proc = run("search", "それはどこですか", "--json", "--top", "5", cwd=shop)
    answer = json.loads(proc.stdout)
    assert answer["status"] == "ok"
    assert any("vector" in s["evidence"] for s in answer["symbols"])


def test_a_japanese_request_finds_english_code_by_its_translated_words_without_vectors(shop):
    proc = run("search", "支払いゲートウェイで返金する", "--json", "--wait-model", "0", cwd=shop)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["status"] == "partial"  # no vector signal: words alone
    files = [f["path"] for f in answer["files"]]
    assert "app/Interfaces/PaymentGateway.php" in files[:3], files
    lexical = answer["files"][files.index("app/Interfaces/PaymentGateway.php")]["evidence"]["lexical"]
    assert lexical["translated"]["payment"] == "支払い"
    assert any(s["symbol"] == "refund" for s in answer["symbols"][:5])
    assert any("支払い→payment" in n for n in answer["notes"])


def test_a_first_search_answers_from_fast_vectors_and_says_who_refines_them(tmp_path):
    import shutil

    root = tmp_path / "laravel_app"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "laravel_app", root)
    proc = run("search", "ログイン処理はどこ", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["status"] == "ok" and answer["files"]
    # a one-shot command does not stay to refine: the answer says the vectors are the fast ones
    assert any("searchable (fast)" in n and "language server" in n for n in answer["notes"]), answer["notes"]


def test_a_second_search_embeds_nothing_new(shop):
    before = (shop / ".code-intel" / "vectors.db").stat().st_mtime_ns
    proc = run("search", "商品のフォーム", "--json", "--no-sync", "--wait-model", "120", cwd=shop)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["files"]
    assert (shop / ".code-intel" / "vectors.db").stat().st_mtime_ns == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", ""], "query is empty"),
        (["search", "login", "--top", "0"], "--top must be between 1 and 100, got 0"),
        (["search", "login", "--top", "500"], "--top must be between 1 and 100, got 500"),
        (["search", "login", "--collection", "trees"], "unknown collection 'trees'"),
        (["search", "login", "--fusion", "max"], "unknown fusion 'max'"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(shop, args, message):
    proc = run(*args, cwd=shop)
    check_one_line_error(proc, message)


def check_one_line_error(proc: subprocess.CompletedProcess, message: str) -> None:
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stderr.strip().startswith("error:") and len(proc.stderr.strip().splitlines()) == 1


# A bug report as agents paste it: prose, a stack trace through the workspace, a log.
ISSUE = """Placing an order with an empty cart returns a 500 instead of a validation message

Steps: open the cart, remove every item, press "Place order".

Expected: a validation error. Actual: a server error.

Illuminate\\Database\\QueryException: SQLSTATE[23000]: Integrity constraint violation
#0 /var/www/html/vendor/laravel/framework/src/Illuminate/Database/Connection.php(801): runQueryCallback()
#1 /var/www/html/app/Http/Controllers/OrderController.php(38): Illuminate\\Database\\Eloquent\\Model->save()
#2 /var/www/html/vendor/laravel/framework/src/Illuminate/Routing/Controller.php(54): store()
""" + "[2024-05-01 10:00:00] production.ERROR: request failed {\"exception\":\"[object]\"}\n" * 700


def test_a_whole_pasted_issue_is_searched_by_what_it_names(shop):
    assert len(ISSUE) > 50_000
    proc = run("search", "-", "--json", "--top", "5", cwd=shop, stdin=ISSUE)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    first = answer["files"][0]
    assert first["path"] == "app/Http/Controllers/OrderController.php"
    assert first["evidence"]["named_in_request"] == {"rank": 1}
    framed = [s for s in answer["symbols"] if "traceback_frame" in s["evidence"]]
    assert framed and framed[0]["path"] == first["path"]
    assert any("long request" in n for n in answer["notes"])


def test_a_request_over_the_limit_is_refused_in_one_line(shop):
    proc = run("search", "-", cwd=shop, stdin="x" * 100_001)
    check_one_line_error(proc, "query is 100001 characters long; the limit is 100000")
