"""SVG markup for the HTML report: the tree picture (``picture.py``) and the CP chart.

The tree is drawn complete, so that it shows even where scripts do not run (a notebook opened
untrusted); the report's script then moves the node groups when subtrees are collapsed. Each node
is a ``<g class="rw-node" data-node="k">`` whose contents are placed relative to the box's top
left corner; each edge a ``<g class="rw-edge" data-child="k">`` with a line and the branch label.
"""

from __future__ import annotations

from html import escape

import numpy as np

from .picture import BAR, EDGE_LABEL_H, LINE, PAD_Y, Picture

EM = 12.0  # pixels per em: the report's font size
MARGIN = 8.0  # pixels around the tree
TOGGLE_R = 6.5  # radius of the fold / unfold button under a split


def px(v: float) -> str:
    return f"{v * EM:.1f}"


def tree_svg(pic: Picture) -> str:
    """The whole tree as one ``<svg>`` element (sizes in pixels, ``EM`` per em)."""
    width = pic.width * EM + 2 * MARGIN
    height = pic.height * EM + 2 * MARGIN
    out = [f'<svg class="rw-tree" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" viewBox="{-MARGIN} {-MARGIN} {width:.0f} {height:.0f}" '
           'role="img" aria-label="decision tree">']
    if pic.note:
        out.append(f'<text class="rw-note" x="0" y="{px(0.8)}">{escape(pic.note)}</text>')
    out.append('<g class="rw-edges">')
    for parent, children in pic.kids.items():
        p = pic.boxes[parent]
        for child in children:
            c = pic.boxes[child]
            out.append(
                f'<g class="rw-edge" data-child="{child}"><line x1="{px(p.x)}" y1="{px(p.y + p.h)}" '
                f'x2="{px(c.x)}" y2="{px(c.y)}"/><text x="{px(c.x)}" '
                f'y="{px(c.y - EDGE_LABEL_H / 2 - 0.15)}">{escape(c.edge or "")}</text></g>')
    out.append('</g><g class="rw-nodes">')
    for node in pic.order:
        out.append(_node(pic, node))
    out.append("</g></svg>")
    return "".join(out)


def _node(pic: Picture, node: int) -> str:
    b = pic.boxes[node]
    kind = "leaf" if node not in pic.kids and not b.hidden else "split"
    classes = f"rw-node rw-{kind}" + (" rw-empty" if b.dashed else "") + (" rw-cut" if b.hidden else "")
    out = [f'<g class="{classes}" data-node="{node}" tabindex="0" '
           f'transform="translate({px(b.x - b.w / 2)},{px(b.y)})">',
           f"<title>node {node}</title>",
           f'<rect class="rw-box" width="{px(b.w)}" height="{px(b.h)}" rx="5" fill="{b.fill}"/>',
           f'<text class="rw-title" x="{px(b.w / 2)}" y="{px(PAD_Y + LINE / 2)}">{escape(b.title)}</text>']
    for i, line in enumerate(b.lines):
        out.append(f'<text x="{px(b.w / 2)}" y="{px(PAD_Y + LINE * (i + 1.5))}">{escape(line)}</text>')
    bar_w = b.w - 1.2
    top = b.h - PAD_Y - BAR
    out.append(f'<rect class="rw-bar" x="{px(0.6)}" y="{px(top)}" width="{px(bar_w)}" height="{px(BAR)}"/>')
    at = 0.6
    for share, colour in b.shares:
        out.append(f'<rect x="{px(at)}" y="{px(top)}" width="{px(bar_w * share)}" height="{px(BAR)}" '
                   f'fill="{colour}"/>')
        at += bar_w * share
    if node in pic.kids:  # the button that folds the subtree away
        out.append(f'<g class="rw-toggle" transform="translate({px(b.w / 2)},{b.h * EM + TOGGLE_R:.1f})">'
                   f'<circle r="{TOGGLE_R}"/><text y="0.5">−</text></g>')
    out.append("</g>")
    return "".join(out)


# --------------------------------------------------------------------------- the CP chart

CHART_W, CHART_H = 640.0, 300.0
PLOT = (62.0, 40.0, 620.0, 236.0)  # left, top, right, bottom of the plotting area


def cp_svg(table, regression: bool) -> str:
    """rpart's plotcp as SVG: CV error of each subtree (simplest left) with one-standard-error
    bars, the dashed one-standard-error line, the chosen subtree ringed; alphas below, leaves
    above."""
    order = np.argsort(table.n_leaves, kind="stable")
    error, se = table.cv_error[order], table.cv_std_error[order]
    best = int(np.argmin(table.cv_error))
    line = float(table.cv_error[best] + table.cv_std_error[best])
    low = float(min((error - se).min(), line))
    high = float(max((error + se).max(), line))
    ticks = nice_ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    left, top, right, bottom = PLOT
    n = len(order)

    def sx(i: float) -> float:
        return left + (right - left) * ((i + 0.5) / n)

    def sy(v: float) -> float:
        return bottom - (bottom - top) * ((v - low) / (high - low) if high > low else 0.5)

    out = [f'<svg class="rw-cp" xmlns="http://www.w3.org/2000/svg" width="{CHART_W:.0f}" '
           f'height="{CHART_H:.0f}" viewBox="0 0 {CHART_W:.0f} {CHART_H:.0f}" role="img" '
           'aria-label="cross-validated error of each subtree">',
           f'<rect class="rw-frame" x="{left}" y="{top}" width="{right - left}" height="{bottom - top}"/>']
    for t in ticks:
        out.append(f'<line class="rw-grid" x1="{left}" x2="{right}" y1="{sy(t):.1f}" y2="{sy(t):.1f}"/>'
                   f'<text class="rw-ytick" x="{left - 5}" y="{sy(t):.1f}">{t:.4g}</text>')
    step = max(1, -(-n // 10))
    for i in range(0, n, step):
        k = int(order[i])
        out.append(f'<text class="rw-xtick" x="{sx(i):.1f}" y="{bottom + 14}">{table.alpha[k]:.3g}</text>'
                   f'<text class="rw-xtick" x="{sx(i):.1f}" y="{top - 6}">{int(table.n_leaves[k])}</text>')
    out.append(f'<text class="rw-axis" x="{(left + right) / 2}" y="{CHART_H - 22}">alpha</text>'
               f'<text class="rw-axis" x="{(left + right) / 2}" y="12">leaves</text>'
               f'<text class="rw-axis" transform="translate(14,{(top + bottom) / 2}) rotate(-90)">'
               f'CV {"mean squared error" if regression else "error rate"}</text>')
    out.append(f'<line class="rw-1se" x1="{left}" x2="{right}" y1="{sy(line):.1f}" y2="{sy(line):.1f}">'
               f'<title>min + 1 SE = {line:.4g}</title></line>')
    points = " ".join(f"{sx(i):.1f},{sy(float(e)):.1f}" for i, e in enumerate(error))
    out.append(f'<polyline class="rw-cv" points="{points}"/>')
    for i in range(n):
        x, lo, hi = sx(i), sy(float(error[i] - se[i])), sy(float(error[i] + se[i]))
        k = int(order[i])
        out.append(f'<g class="rw-point" data-row="{k}"><line x1="{x:.1f}" x2="{x:.1f}" y1="{lo:.1f}" '
                   f'y2="{hi:.1f}"/><circle cx="{x:.1f}" cy="{sy(float(error[i])):.1f}" r="3"/>'
                   f'<title>alpha {table.alpha[k]:.4g}, {int(table.n_leaves[k])} leaves: CV error '
                   f'{error[i]:.4g} ± {se[i]:.4g}</title></g>')
    at = int(np.flatnonzero(order == table.chosen)[0])
    out.append(f'<circle class="rw-chosen" cx="{sx(at):.1f}" cy="{sy(float(error[at])):.1f}" r="8"/>')
    out.append(f'<text class="rw-legend" x="{right - 4}" y="{top + 14}">dashed: min + 1 SE = '
               f'{line:.4g}; ringed: chosen ({escape(table.rule)})</text>')
    out.append("</svg>")
    return "".join(out)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten apart) covering [low, high]."""
    if not high > low:
        return [low]
    raw = (high - low) / count
    power = 10 ** np.floor(np.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = np.floor(low / step) * step
    return [float(first + i * step) for i in range(int(np.ceil((high - first) / step)) + 1)]
