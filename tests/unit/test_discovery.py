"""File discovery: ignore rules, excludes, size limits and symlinks."""

from __future__ import annotations

import os

from code_intel.indexing.config import Config
from code_intel.indexing.discovery import discover


def make(root, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_gitignore_nested_gitignore_and_negation(tmp_path):
    make(
        tmp_path,
        {
            ".gitignore": "*.log\n/dist/\n!keep.log\n",
            "app/main.py": "x = 1\n",
            "app/debug.log": "noise\n",
            "keep.log": "kept\n",
            "dist/bundle.js": "var a;\n",
            "app/sub/.gitignore": "generated_*.py\n",
            "app/sub/generated_models.py": "y = 2\n",
            "app/sub/real.py": "z = 3\n",
            "app/dist/kept.js": "// not the root dist\n",
        },
    )
    files = set(discover(tmp_path, Config()).files)
    assert files == {"app/main.py", "keep.log", "app/sub/real.py", "app/dist/kept.js"}


def test_default_excludes_and_config_excludes(tmp_path):
    make(
        tmp_path,
        {
            "node_modules/react/index.js": "",
            "web/node_modules/x/y.js": "",
            "vendor/laravel/framework/src/A.php": "",
            ".venv/lib/site.py": "",
            "src/__pycache__/m.cpython-311.pyc": "",
            "src/app.py": "",
            "build/out.py": "",
        },
    )
    assert set(discover(tmp_path, Config()).files) == {"src/app.py", "build/out.py"}
    config = Config(exclude_patterns=[*Config().exclude_patterns, "build/**"])
    assert set(discover(tmp_path, config).files) == {"src/app.py"}


def test_source_dirs_limit_the_walk(tmp_path):
    make(tmp_path, {"app/a.py": "", "lib/b.py": "", "scripts/c.py": ""})
    found = discover(tmp_path, Config(source_dirs=["app", "lib", "missing"]))
    assert set(found.files) == {"app/a.py", "lib/b.py"}


def test_oversized_files_are_skipped_with_a_reason(tmp_path):
    make(tmp_path, {"small.py": "x = 1\n", "big.sql": "-- " + "x" * 5000})
    found = discover(tmp_path, Config(max_file_bytes=1000))
    assert set(found.files) == {"small.py"}
    assert "max_file_bytes" in found.skipped["big.sql"]


def test_symlinks_out_of_the_workspace_loops_and_dirs_are_not_followed(tmp_path):
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    make(outside, {"secret.py": "password = 'x'\n"})
    make(root, {"src/a.py": "a = 1\n"})
    os.symlink(outside / "secret.py", root / "src" / "leak.py")
    os.symlink(outside, root / "outside_dir")
    os.symlink(root / "src", root / "src" / "loop")  # a directory loop
    os.symlink(root / "src" / "a.py", root / "alias.py")  # a file inside: fine
    os.symlink(root / "nowhere.py", root / "dangling.py")
    found = discover(root, Config())
    assert set(found.files) == {"src/a.py", "alias.py"}
    assert found.skipped["src/leak.py"] == "symlink leaves the workspace"
    assert found.skipped["outside_dir"] == "symlink leaves the workspace"
    assert found.skipped["src/loop"].startswith("symlinked directory")
    assert found.skipped["dangling.py"] in {"broken symlink", "symlink leaves the workspace"}


def test_screened_ignore_rules_answer_as_gitignore_does():
    """The one-regex screen in front of each ignore file (`IgnoreSpec`) must never change
    which files are indexed: every path gets pathspec's own gitignore answer."""
    import pathspec
    from code_intel.indexing.discovery import IgnoreSpec

    rule_sets = [
        ["*.log", "/dist/", "!keep.log"],
        ["**/node_modules/**", "**/.venv/**", "vendor/", "!vendor/keep/"],
        ["# comment", "", "\\#hash.py", "a/**/b", "*.py[cod]", "build", "!build/keep.py"],
        ["/*", "!/src/", "src/gen_*"],
        ["docs/*.md", "!docs/README.md", "**/tmp", "foo/"],
        [],
        ["# only comments", ""],
    ]
    paths = ["keep.log", "x.log", "dist/", "dist/a.js", "app/dist/a.js", "node_modules/", "a/node_modules/x.js",
             ".venv/lib/x.py", "vendor/", "vendor/keep/", "vendor/keep/x.php", "#hash.py", "a/b", "a/x/y/b",
             "m.pyc", "m.py", "build", "build/", "build/keep.py", "src/", "src/gen_x.py", "src/main.py",
             "top.py", "docs/a.md", "docs/README.md", "docs/sub/a.md", "x/tmp", "x/tmp/", "foo", "foo/"]
    for lines in rule_sets:
        ours, theirs = IgnoreSpec.from_lines(lines), pathspec.GitIgnoreSpec.from_lines(lines)
        for path in paths:
            assert ours.match_file(path) == theirs.match_file(path), (lines, path)
