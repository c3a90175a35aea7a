"""The real `code-intel` executable on fixture projects: summaries, navigation,
search, JSON output, and clear one-line errors for bad input."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).parent / "code-intel")


def run(*args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([EXE, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in proc.stderr, proc.stderr
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_json(*args: str, cwd: Path) -> dict:
    return json.loads(run(*args, "--json", cwd=cwd).stdout)


@pytest.fixture
def shop(fixture_copy) -> Path:
    root = fixture_copy("python_pkg")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(64))
    return root


def test_index_prints_a_summary(shop):
    human = run("index", ".", cwd=shop).stdout
    assert "python" in human and "symbols" in human
    assert "binary" in human  # skipped files are reported with their reason
    summary = run_json("index", ".", cwd=shop)
    assert summary["languages"]["python"] == 7
    assert summary["symbols"] > 40
    assert summary["skipped"] == {"binary": 1}
    assert summary["skipped_files"] == {"logo.png": "binary"}
    assert summary["added"] == 0 and summary["unchanged"] == 8  # second run: nothing to do
    assert summary["elapsed_seconds"] >= 0
    # the CLI leaves without the interpreter's teardown: the store was closed (its
    # write-ahead log checkpointed and removed) and a bad path still fails with status 2
    assert not (shop / ".code-intel" / "index.db-wal").exists()
    missing = run("index", "no-such-dir", cwd=shop, check=False)
    assert missing.returncode == 2 and "not a directory" in missing.stderr


def test_index_parses_its_own_arguments_and_leaves_the_rest_to_typer(shop):
    """`code-intel index` skips typer's parameter coercion, which imports pydantic and
    builds a validator per parameter (0.04-0.05 s at the start of every build), and with
    `--json` typer and rich altogether (0.035 s more)."""
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "code_intel.cli", "index", ".", "--json"],
                            cwd=shop, capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(traced.stdout)["languages"]["python"] == 7
    assert "code_intel.indexing.sync" in traced.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.splitlines()}
    assert not {"pydantic", "typer", "rich", "code_intel.commands"} & imported
    forced = run_json("index", "--force", cwd=shop)  # flags before or without the path
    assert forced["modified"] == forced["files"] and forced["workspace"] == str(shop)
    bogus = run("index", ".", "--bogus", cwd=shop, check=False)
    assert bogus.returncode == 2 and "No such option" in bogus.stderr
    assert "Index a workspace" in run("index", "--help", cwd=shop).stdout


def test_human_index_into_a_pipe_imports_neither_typer_nor_rich(shop):
    """The human summary of `code-intel index` (what a script or a log keeps) is written
    without rich where nothing can be styled (rich's console and table: ~20 ms after the
    last file), and typer, rich's progress bar and the other commands are not imported
    when nothing can draw the bar: 0.06 s of a start that is all serial."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS")}
    traced = subprocess.run([sys.executable, "-X", "importtime", "-m", "code_intel.cli", "index", "."],
                            cwd=shop, capture_output=True, text=True, timeout=120, check=True, env=env)
    assert f"Indexed {shop}" in traced.stdout and "python" in traced.stdout and "binary" in traced.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.splitlines()}
    assert not {"typer", "rich", "code_intel.commands"} & imported


def test_defs_refs_outline(shop):
    run("index", ".", cwd=shop)
    defs = run_json("defs", "LoginService", cwd=shop)["definitions"]
    assert [(d["path"], d["kind"], d["selection_range"]["start"]["line"]) for d in defs] == [
        ("shop/auth/login.py", "class", 22)
    ]
    qualified = run_json("defs", "shop.orders.service.OrderService.checkout", cwd=shop)
    assert [d["name"] for d in qualified["definitions"]] == ["checkout"]
    human = run("defs", "checkout", cwd=shop).stdout
    assert "shop/orders/service.py:66:9" in human

    refs = run_json("refs", "hash_password", cwd=shop)["references"]
    assert sorted((r["path"], r["range"]["start"]["line"] + 1) for r in refs) == [
        ("manage.py", 6),
        ("manage.py", 12),
        ("shop/auth/login.py", 39),
    ]

    outline = run_json("outline", "shop/auth/login.py", cwd=shop)["files"]["shop/auth/login.py"]
    service = next(n for n in outline if n["name"] == "LoginService")
    assert [c["name"] for c in service["children"]] == [
        # attributes assigned in __init__ are fields of the class
        "__init__", "users", "clock", "sessions", "login", "logout", "_record_failure"
    ]
    tree = run("outline", "shop", cwd=shop).stdout
    assert "shop/orders/service.py" in tree and "place_order" in tree


def test_queries_see_edits_without_an_explicit_index(shop):
    run("index", ".", cwd=shop)
    (shop / "shop/auth/login.py").write_text(
        (shop / "shop/auth/login.py").read_text().replace("def logout", "def sign_out")
    )
    assert run_json("defs", "sign_out", cwd=shop)["definitions"]
    missing = run("defs", "logout", cwd=shop, check=False)
    assert missing.returncode == 1 and "no definition" in missing.stdout


def test_grep_uses_ripgrep(shop):
    result = run_json("grep", r"def (login|logout)\(", "-C", "1", cwd=shop)
    assert result["total"] == 2
    first = result["matches"][0]
    assert first["path"] == "shop/auth/login.py" and first["line"] == 31
    assert first["before"] == [""] and "Check the credentials" in first["after"][0]
    typed = run_json("grep", "OrderService", "--type", "py", "--path", "shop/orders", cwd=shop)
    assert {m["path"] for m in typed["matches"]} == {"shop/orders/service.py"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("outline", "../../etc/passwd"), "outside the workspace"),
        (("outline", "/etc/passwd"), "outside the workspace"),
        (("outline", "nope.py"), "does not exist"),
        (("grep", "(unclosed"), "invalid pattern"),
        (("grep", "x", "--path", "../.."), "outside the workspace"),
        (("grep", "x", "--type", "klingon"), "unknown file type"),
        (("defs", "  "), "NAME is empty"),
        (("index", "no/such/dir"), "is not a directory"),
    ],
)
def test_bad_input_gets_one_clear_line(shop, args, message):
    proc = run(*args, cwd=shop, check=False)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_bad_config_names_the_key(shop):
    (shop / ".code-intel").mkdir()
    (shop / ".code-intel/config.json").write_text('{"max_file_bytes": "big"}')
    proc = run("index", ".", cwd=shop, check=False)
    assert proc.returncode == 2
    assert "max_file_bytes" in proc.stderr and "expected an integer" in proc.stderr


def test_sync_killed_midway_leaves_a_usable_index(tmp_path):
    root = tmp_path / "big"
    (root / "pkg").mkdir(parents=True)
    body = "\n".join(f"    total += helper_{i}(value)" for i in range(60))
    for i in range(1500):
        (root / "pkg" / f"mod_{i}.py").write_text(
            f"def old_name_{i}(value):\n    total = 0\n{body}\n    return total\n"
        )
    (root / ".code-intel").mkdir()
    (root / ".code-intel/config.json").write_text('{"workers": 1}')
    run("index", ".", cwd=root)
    for i in range(1500):
        path = root / "pkg" / f"mod_{i}.py"
        path.write_text(path.read_text().replace("old_name_", "new_name_"))

    proc = subprocess.Popen(
        [EXE, "index", ".", "--json"], cwd=root, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    db = root / ".code-intel/index.db"
    deadline = time.monotonic() + 60
    renamed = 0
    while time.monotonic() < deadline and proc.poll() is None:
        conn = sqlite3.connect(db, timeout=5)
        renamed = conn.execute(
            "SELECT COUNT(*) FROM symbols WHERE name LIKE 'new\\_name\\_%' ESCAPE '\\'"
        ).fetchone()[0]
        conn.close()
        if renamed >= 200:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < renamed < 1500, "the sync should have been killed half-way"

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # every file is either fully old or fully new: exactly one definition each
    per_file = conn.execute(
        "SELECT COUNT(*) FROM files f WHERE (SELECT COUNT(*) FROM symbols s "
        "WHERE s.path = f.path AND s.kind = 'function') = 1"
    ).fetchone()[0]
    assert per_file == 1500
    done_before_kill = conn.execute(
        "SELECT COUNT(*) FROM symbols WHERE name LIKE 'new\\_name\\_%' ESCAPE '\\'"
    ).fetchone()[0]
    conn.close()
    old = run_json("defs", "old_name_1499", "--no-sync", cwd=root)["definitions"]
    new = run_json("defs", "new_name_0", "--no-sync", cwd=root)["definitions"]
    assert old or new

    summary = run_json("index", ".", cwd=root)
    assert summary["modified"] == 1500 - done_before_kill  # only the unfinished files
    assert run_json("defs", "new_name_1499", "--no-sync", cwd=root)["definitions"]
    assert not run_json("defs", "old_name_0", "--no-sync", cwd=root)["definitions"]
