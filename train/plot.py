"""A loss chart drawn with characters, for the end of a run in the terminal."""
from __future__ import annotations


def loss_chart(steps: list[int], series: dict[str, list[float]], width: int = 60,
               height: int = 12) -> str:
    """Plot each named series against `steps`; each gets its own mark, '*' where they overlap."""
    marks = dict(zip(series, "ox+#"))
    values = [v for vs in series.values() for v in vs]
    if not steps or not values:
        return "(no evaluations to plot)"
    lo, hi = min(values), max(values)
    span = hi - lo or 1.0
    first, last = steps[0], steps[-1]
    grid = [[" "] * width for _ in range(height)]
    for name, vs in series.items():
        for step, v in zip(steps, vs):
            col = 0 if last == first else round((step - first) / (last - first) * (width - 1))
            row = round((hi - v) / span * (height - 1))
            cell = grid[row][col]
            grid[row][col] = marks[name] if cell in (" ", marks[name]) else "*"
    lines = []
    for r, row in enumerate(grid):
        label = f"{hi - r * span / (height - 1):7.3f}" if r in (0, height // 2, height - 1) else ""
        lines.append(f"{label:>7} |{''.join(row)}")
    lines.append(" " * 8 + "+" + "-" * width)
    lines.append(" " * 9 + f"step {first}".ljust(width - len(f"step {last}")) + f"step {last}")
    lines.append(" " * 9 + "   ".join(f"{marks[n]} {n}" for n in series))
    return "\n".join(lines)
