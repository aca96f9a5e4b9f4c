"""Where the boxes of a tree picture go: a tidy layout in which no two boxes overlap.

Each node owns a horizontal interval, its *span*: a leaf's span is its own width; a parent's is
the wider of its own box and its children's spans side by side (with a gap between them). A
parent's children share its interval left to right, so two nodes of one level never share any
part of it; the parent is centred over its first and last child, kept inside its own interval.
The picture is therefore as wide as its leaves (and wide labels) need, and boxes cannot overlap.

Node ids of a rootwise tree are larger than their parent's (``Tree.validate``), so one pass in
reverse id order sees every child before its parent and one pass in id order every parent before
its children: no recursion, whatever the depth. The report's script (``report.js``) lays out a
tree with some subtrees collapsed by the same rule.
"""

from __future__ import annotations

import unicodedata

# width of a character in em: wide (CJK) characters take a full em; the others are taken wide
# enough for the digits and capitals of common sans-serif fonts (DejaVu Sans' digits are 0.636 em)
NARROW_EM = 0.64
WIDE_EM = 1.0


def text_width(text: str, *, bold: bool = False) -> float:
    """Estimated width of ``text`` in em (a font size's worth of points)."""
    width = sum(WIDE_EM if unicodedata.east_asian_width(ch) in "WF" else NARROW_EM for ch in text)
    return width * (1.08 if bold else 1.0)


def tidy_layout(order: list[int], kids: dict[int, list[int]], width: dict[int, float],
                height: dict[int, float], *, h_gap: float, v_gap: float,
                top: float = 0.0) -> tuple[dict[int, float], dict[int, float], float, float]:
    """(x centre, y top, total width, total height) of each node.

    ``order``: the nodes drawn, every parent before its children (ascending ids do); ``kids``:
    the drawn children of each node, left to right; ``width`` / ``height``: box sizes (a box's
    width may include a label drawn above it). Levels are stacked top-down from ``top``, each
    as tall as its tallest box, ``v_gap`` apart; siblings are ``h_gap`` apart."""
    span: dict[int, float] = {}
    for node in reversed(order):
        below = kids.get(node, [])
        inner = sum(span[c] for c in below) + h_gap * max(len(below) - 1, 0)
        span[node] = max(width[node], inner)

    level: dict[int, int] = {}
    left: dict[int, float] = {}
    x: dict[int, float] = {}
    root = order[0]
    level[root], left[root] = 0, 0.0
    for node in order:
        below = kids.get(node, [])
        inner = sum(span[c] for c in below) + h_gap * max(len(below) - 1, 0)
        at = left[node] + (span[node] - inner) / 2
        for c in below:
            left[c], level[c] = at, level[node] + 1
            at += span[c] + h_gap
    # children first: a parent is centred over its first and last child, inside its interval
    for node in reversed(order):
        below = kids.get(node, [])
        half = width[node] / 2
        if below:
            mid = (x[below[0]] + x[below[-1]]) / 2
            x[node] = min(max(mid, left[node] + half), left[node] + span[node] - half)
        else:
            x[node] = left[node] + span[node] / 2

    n_levels = max(level.values()) + 1
    tallest = [0.0] * n_levels
    for node in order:
        tallest[level[node]] = max(tallest[level[node]], height[node])
    level_top = [top]
    for d in range(1, n_levels):
        level_top.append(level_top[-1] + tallest[d - 1] + v_gap)
    y = {node: level_top[level[node]] for node in order}
    return x, y, span[root], level_top[-1] + tallest[-1]
