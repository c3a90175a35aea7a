"""How much the MCP tool definitions cost: a model client sends every tool's name,
description and input schema with every request (Claude Code defers some behind its
ToolSearch, but a client that does not pays for all of them).

    python -m benchmarks.tool_definitions [--tokenizer PATH]

prints each tool's size and the total in characters and chars/4. With `--tokenizer`
pointing at an npm install of `@anthropic-ai/tokenizer` (offline, it ships its
vocabulary: `npm install --prefix /work/peers/anthropic-tokenizer
@anthropic-ai/tokenizer@0.0.4`, then pass that directory) it also counts real tokens
with that tokenizer (the older Claude one: an approximation of today's models, but a
real BPE count rather than a rule of thumb).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from code_intel.mcp_bridge.server import Bridge

COUNT_JS = (
    "const {countTokens}=require('@anthropic-ai/tokenizer');"
    "const items=JSON.parse(require('fs').readFileSync(0,'utf8'));"
    "console.log(JSON.stringify(items.map(countTokens)));"
)


def definitions() -> list[dict[str, Any]]:
    """What a client sends per tool: name, description, input_schema."""
    return [{"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in Bridge(Path(".")).tools()]


def as_sent(tool: dict[str, Any]) -> str:
    return json.dumps(tool, separators=(",", ":"), ensure_ascii=False)


def real_tokens(texts: list[str], tokenizer_dir: Path) -> list[int]:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is not on the PATH: it runs @anthropic-ai/tokenizer")
    modules = tokenizer_dir / "node_modules"
    if not (modules / "@anthropic-ai/tokenizer").is_dir():
        raise SystemExit(f"{modules} has no @anthropic-ai/tokenizer; install it there with "
                         "npm install --prefix DIR @anthropic-ai/tokenizer@0.0.4")
    done = subprocess.run([node, "-e", COUNT_JS], input=json.dumps(texts), text=True,
                          capture_output=True, env={"NODE_PATH": str(modules)}, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"the tokenizer failed: {done.stderr.strip()[-500:]}")
    return [int(n) for n in json.loads(done.stdout)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", type=Path, help="npm prefix holding @anthropic-ai/tokenizer")
    args = parser.parse_args()
    tools = definitions()
    texts = [as_sent(t) for t in tools]
    tokens = real_tokens(texts, args.tokenizer) if args.tokenizer else None
    print(f"{'tool':28s} {'chars':>6s} {'chars/4':>8s}" + (f" {'tokens':>7s}" if tokens else ""))
    for i, (tool, text) in enumerate(zip(tools, texts, strict=True)):
        extra = f" {tokens[i]:7d}" if tokens else ""
        print(f"{tool['name']:28s} {len(text):6d} {len(text) // 4:8d}{extra}")
    total = sum(len(t) for t in texts)
    extra = f" {sum(tokens):7d}" if tokens else ""
    print(f"{'all ' + str(len(tools)) + ' tools':28s} {total:6d} {total // 4:8d}{extra}")


if __name__ == "__main__":
    main()
