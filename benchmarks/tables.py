"""Plain-text tables for the benchmarks' reports (aligned columns, floats to 3 places)."""

from __future__ import annotations


def table(title: str, header: list[str], rows: list[list[object]]) -> str:
    cells = [header] + [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    line = "-+-".join("-" * w for w in widths)
    out = [f"\n{title}", " | ".join(h.ljust(w) for h, w in zip(header, widths)), line]
    out += [" | ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells[1:]]
    return "\n".join(out)
