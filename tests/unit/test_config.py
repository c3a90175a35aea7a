"""Config loading: defaults, and errors that name the key and the expected type."""

from __future__ import annotations

import json

import pytest
from code_intel.indexing.config import Config, ConfigError, load_config, parse_config


def write(root, text: str) -> None:
    (root / ".code-intel").mkdir(exist_ok=True)
    (root / ".code-intel" / "config.json").write_text(text)


def test_missing_file_gives_spec_defaults(tmp_path):
    config = load_config(tmp_path)
    assert config == Config()
    assert "**/node_modules/**" in config.exclude_patterns
    assert config.max_file_bytes == 1024 * 1024
    assert config.chunk_max_tokens == 512
    assert config.search_weights.definition == 0.3


def test_values_are_read(tmp_path):
    write(tmp_path, json.dumps({"max_file_bytes": 2048, "exclude_patterns": ["build/**"]}))
    config = load_config(tmp_path)
    assert config.max_file_bytes == 2048
    assert config.exclude_patterns == ["build/**"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"max_file_bytes": "10"}, "key 'max_file_bytes': expected an integer, got '10'"),
        ({"exclude_patterns": "dist"}, "key 'exclude_patterns': expected a list of strings"),
        ({"vector_store": {"port": "x"}}, "key 'vector_store.port': expected an integer"),
        ({"vector_store": {"mode": "cloud"}}, "'cloud' is not allowed, expected one of 'persistent', 'http'"),
        ({"sync_on_start": 1}, "key 'sync_on_start': expected true or false"),
        ({"chunk_max_tokens": 0}, "chunk_max_tokens must be greater than 0"),
        ({"exclude_pattern": []}, "unknown key(s) exclude_pattern"),
    ],
)
def test_wrong_values_name_the_key_and_type(data, expected):
    with pytest.raises(ConfigError) as info:
        parse_config(data)
    assert expected in str(info.value)


def test_broken_json_names_the_file_and_position(tmp_path):
    write(tmp_path, '{"max_file_bytes": 10,,}')
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert "config.json: not valid JSON" in str(info.value)
    assert "line 1" in str(info.value)


def test_top_level_must_be_an_object(tmp_path):
    write(tmp_path, "[1, 2]")
    with pytest.raises(ConfigError, match="expected a JSON object"):
        load_config(tmp_path)


def test_cattrs_loads_only_when_a_config_file_is_read(tmp_path):
    """Every `code-intel index` reads the config; without a file it must not pay for
    cattrs (7 ms of the start), and with one it validates exactly as before."""
    import subprocess
    import sys

    write(tmp_path, json.dumps({"max_file_bytes": "big"}))
    script = (
        "import sys, pathlib\n"
        "from code_intel.indexing.config import ConfigError, load_config\n"
        "load_config(pathlib.Path(sys.argv[1]) / 'nothing')\n"
        "print('cattrs' in sys.modules)\n"
        "try:\n"
        "    load_config(pathlib.Path(sys.argv[1]))\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
        "print('cattrs' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "False"
    assert "key 'max_file_bytes': expected an integer, got 'big'" in lines[1]
    assert lines[2] == "True"
