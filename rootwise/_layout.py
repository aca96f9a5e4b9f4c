"""Text laid out within a width of terminal columns: wrapped lines and tables cut into blocks.

Widths are terminal columns, not characters: an East Asian wide character (纹理) takes two.
"""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"
# a wrapped line keeps at least this many columns for its text, however deep its indent
MIN_TEXT = 24


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal (East Asian wide and full-width characters: two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def wrap(text: str, limit: int, first: str = "", rest: str = "") -> list[str]:
    """``first + text`` in lines of at most ``limit`` columns, broken at spaces (a word longer
    than a line is cut), each line after the first starting with ``rest``. A prefix so deep that
    fewer than ``MIN_TEXT`` columns are left keeps that many: the text stays readable."""
    if width(first) + width(text) <= limit:
        return [first + text]
    lines: list[str] = []
    prefix, line, started = first, "", False

    def room() -> int:
        return max(limit - width(prefix), MIN_TEXT)

    for word in text.split(" "):
        longer = line + " " + word if started else word
        if width(longer) <= room():
            line, started = longer, True
            continue
        if started and line.strip():
            lines.append(prefix + line)
            prefix, line, started = rest, "", False
        while width(word) > room():  # a word wider than a whole line: cut it
            head = _cut(word, room())
            lines.append(prefix + head)
            prefix, word = rest, word[len(head):]
        line, started = word, True
    lines.append(prefix + line)
    return lines


def _cut(word: str, columns: int) -> str:
    """The longest start of ``word`` that takes at most ``columns`` columns."""
    out, used = [], 0
    for c in word:
        used += width(c)
        if used > columns:
            break
        out.append(c)
    return "".join(out)


def abbreviate(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` columns, ending with an ellipsis when cut."""
    if width(text) <= columns:
        return text
    return _cut(text, max(columns - 1, 0)) + ELLIPSIS


def table(rows: list[list[str]], right: frozenset | set = frozenset(), limit: int | None = None,
          keep: int = 1, gap: int = 2) -> str:
    """Rows of cells as aligned columns ``gap`` spaces apart (``right``: right-aligned columns).

    With ``limit``, a table wider than that many columns is cut into blocks of whole columns,
    one under the other with a blank line between, each repeating the first ``keep`` columns
    (the row names); a first column that alone leaves too little room is abbreviated with "…".
    Without it the table stays whole."""
    n = max(map(len, rows))
    rows = [list(r) + [""] * (n - len(r)) for r in rows]
    sizes = [max(width(r[i]) for r in rows) for i in range(n)]
    if limit is None or _span(sizes, gap) <= limit:
        return _lines(rows, range(n), sizes, right, gap)
    keep = min(keep, n - 1)
    head = list(range(keep))
    # the kept columns take at most half the width: abbreviate the longest names
    budget = max(limit // 2 - gap * keep, 4 * keep)
    for i in head:
        allowed = max(budget // keep, 4)
        if sizes[i] > allowed:
            for r in rows[1:]:
                r[i] = abbreviate(r[i], allowed)
            rows[0][i] = abbreviate(rows[0][i], allowed)
            sizes[i] = max(width(r[i]) for r in rows)
    blocks, current = [], []
    for i in range(keep, n):
        if current and _span([sizes[j] for j in head + current + [i]], gap) > limit:
            blocks.append(current)
            current = []
        current.append(i)
    blocks.append(current)
    return "\n\n".join(_lines(rows, head + b, sizes, right, gap) for b in blocks)


def _span(sizes: list[int], gap: int) -> int:
    return sum(sizes) + gap * max(len(sizes) - 1, 0)


def _lines(rows, columns, sizes, right, gap: int) -> str:
    out = []
    for r in rows:
        cells = []
        for i in columns:
            pad = " " * (sizes[i] - width(r[i]))
            cells.append(pad + r[i] if i in right else r[i] + pad)
        out.append((" " * gap).join(cells).rstrip())
    return "\n".join(out)
