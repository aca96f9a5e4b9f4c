"""``plot_tree``: a fitted tree drawn with matplotlib (the optional extra ``rootwise[plot]``).

The picture is ``picture.tree_picture``'s: boxes in a tidy layout, tinted by class (or value), a
proportion bar in each, branch tests above the children. Data coordinates are em of the chosen
font size, y pointing down, so each box is sized to its text. Artists carry ``gid``s naming what
they draw ("node 5", "edge 1-5", "label 5", "share 5 0") for whoever inspects the figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .fonts import family_for
from .picture import BAR, DEFAULT_MAX_NODES, EDGE_LABEL_H, LEGEND_COLUMNS, LINE, NOTE_H, PAD_Y, tree_picture

if TYPE_CHECKING:
    from typing import Any

    from .._typing import Model

FONT_SIZE = 9.0  # points, for a new figure
LEGIBLE_SIZE = 8.0  # points: below this the tree is cut to its top levels instead
DEFAULT_WIDTH = 20.0  # inches: the widest new figure when figsize is not given

def require_matplotlib():
    """matplotlib's pyplot, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("rootwise's plots need matplotlib: pip install rootwise[plot]") from e
    return plt


def plot_tree(model: Model, *, max_depth: int | None = None, ax: Any = None, decimals: int = 3,
              fontsize: float | None = None, figsize: tuple[float, float] | None = None,
              node: int = 0, node_ids: bool = False, max_nodes: int = DEFAULT_MAX_NODES,
              show_missing: str = "auto") -> Any:
    """Draw a fitted tree; returns the matplotlib Axes.

    Split nodes show the tested attribute, leaves the predicted class (or value); every box shows
    its weight ``n`` (fractional for C4.5), the class counts when at most three are non-zero, a bar
    of class proportions, and, for a column that had missing cells in training, how the split
    handles missing values (C4.5 sends such rows down every branch; CART tries its surrogates, and
    the branch marked "or missing" takes the rest; ``show_missing="all"``: at every split). Branch
    tests are written above the children: ``<= 0.382``, ``清晰``, ``in {单身, 离婚}``.

    fontsize: points (default 9). figsize: (width, height) in inches of a new figure; default: the
        size of the tree at ``fontsize``, at most 20 inches wide. The text shrinks to fit the
        figure (or ``ax``), but never below 8 points: a tree too large for that is drawn to the
        deepest level that fits, and a banner above it says how many levels and leaves are hidden
        and how to see them.
    max_depth: draw nodes down to this many levels below the top node; a cut split says how many
        nodes are below it. At most ``max_nodes`` boxes are drawn.
    node: draw the subtree below this node (numbers as ``apply`` gives them; ``node_ids=True``
        prints them in the boxes, as used by ``rootwise.explain(..., node=k)``).
    ax: draw into these axes (the font is scaled to fit them, at most ``fontsize``).
    """
    plt = require_matplotlib()
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyBboxPatch, Rectangle

    size = _positive(fontsize, "fontsize") if fontsize is not None else FONT_SIZE
    if figsize is not None:
        if (not isinstance(figsize, (tuple, list)) or len(figsize) != 2):
            raise ValueError(f"figsize must be (width, height) in inches, got {figsize!r}.")
        figsize = (_positive(figsize[0], "figsize width"), _positive(figsize[1], "figsize height"))
    if ax is not None:
        box = ax.get_window_extent()
        room = (box.width / ax.figure.dpi, box.height / ax.figure.dpi)
    else:
        room = figsize if figsize is not None else (DEFAULT_WIDTH, None)
    margin = 0.5
    pic = legible_picture(model, room, margin, max_depth=max_depth, decimals=decimals,
                          node_ids=node_ids, max_nodes=max_nodes, node=node,
                          show_missing=show_missing)
    width, height = pic.width + 2 * margin, pic.height + 2 * margin
    size = min(size, _fitting_size(room, width, height))
    if ax is None:
        fig = plt.figure(figsize=figsize or (width * size / 72, height * size / 72))
        ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(-margin, pic.width + margin)
    ax.set_ylim(pic.height + margin, -margin)  # y down, as the layout
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_axis_off()
    family = _font_family(pic)
    text = {"fontsize": size, "fontfamily": family} if family else {"fontsize": size}
    weight = "normal" if family else "bold"  # CJK fonts seldom come in bold: no fake bold

    for parent, children in pic.kids.items():
        p = pic.boxes[parent]
        for child in children:
            c = pic.boxes[child]
            ax.add_artist(Line2D([p.x, c.x], [p.y + p.h, c.y], color="#6b6b6b", linewidth=0.8,
                               zorder=1, gid=f"edge {parent}-{child}"))
            ax.text(c.x, c.y - EDGE_LABEL_H / 2 - 0.15, c.edge, ha="center", va="center",
                    zorder=3, color="#333333", gid=f"label {child}",
                    bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none"}, **text)
    for node in pic.order:
        b = pic.boxes[node]
        left = b.x - b.w / 2
        ax.add_artist(FancyBboxPatch((left, b.y), b.w, b.h, boxstyle="round,pad=0,rounding_size=0.35",
                                    fc=b.fill, ec="#555555", lw=0.8, ls="--" if b.dashed else "-",
                                    zorder=2, gid=f"node {node}"))
        ax.text(b.x, b.y + PAD_Y + LINE / 2, b.title, ha="center", va="center", fontweight=weight,
                zorder=3, gid=f"title {node}", **text)
        if b.lines:
            ax.text(b.x, b.y + PAD_Y + LINE * (1 + len(b.lines) / 2), "\n".join(b.lines),
                    ha="center", va="center", linespacing=1.1, zorder=3, gid=f"text {node}", **text)
        bar_top = b.y + b.h - PAD_Y - BAR
        bar_w = b.w - 1.2
        at = b.x - bar_w / 2
        ax.add_artist(Rectangle((at, bar_top), bar_w, BAR, fc="white", ec="#888888", lw=0.4, zorder=3,
                               gid=f"bar {node}"))
        for k, (share, colour) in enumerate(b.shares):
            ax.add_artist(Rectangle((at, bar_top), bar_w * share, BAR, fc=colour, ec="none", zorder=3,
                                   gid=f"share {node} {k}"))
            at += bar_w * share
    if pic.legend:
        from matplotlib.patches import Patch

        handles = [Patch(fc=colour, ec="#555555", label=name) for name, colour in pic.legend]
        top = NOTE_H * (pic.note.count("\n") + 1) if pic.note else 0.0
        ax.legend(handles=handles, loc="upper left", ncol=min(len(handles), LEGEND_COLUMNS),
                  bbox_to_anchor=(-margin / 2, top), bbox_transform=ax.transData, frameon=False,
                  prop={"size": size, **({"family": family} if family else {})},
                  handlelength=1.2, borderaxespad=0.2, columnspacing=1.2)
    if pic.note:  # a banner across the top, in the size of the boxes' text
        n_lines = pic.note.count("\n") + 1
        ax.text(-margin / 2, NOTE_H * n_lines / 2, pic.note, ha="left", va="center",
                color="#3d2600", linespacing=1.25, gid="note", zorder=4,
                bbox={"boxstyle": "round,pad=0.35", "fc": "#fff3cd", "ec": "#c99a2e", "lw": 0.8},
                **text)
    return ax


def legible_picture(model, room, margin: float, *, max_depth, node, max_nodes, **kwargs):
    """The picture of the deepest levels (down to ``max_depth``) whose text is at least
    LEGIBLE_SIZE points in ``room`` ((width, height or None) inches); when levels had to be left
    out, a note says how many levels and leaves are hidden and how to draw them."""
    pic = tree_picture(model, max_depth=max_depth, node=node, max_nodes=max_nodes, **kwargs)
    asked = pic
    while (_fitting_size(room, pic.width + 2 * margin, pic.height + 2 * margin) < LEGIBLE_SIZE
           and _levels(pic) > 1):
        pic = tree_picture(model, max_depth=_levels(pic) - 2, node=node, max_nodes=max_nodes,
                           **kwargs)
    if pic is asked and not asked.note:
        return pic
    shown, total = _levels(pic), _levels(pic) + pic.hidden_levels
    top = "the tree" if node == 0 else f"the subtree below node {node}"
    note = (f"Showing {shown} of {total} levels of {top}: {pic.hidden_levels} levels and "
            f"{pic.hidden_leaves} leaves are hidden (boxes \"+k nodes below\").\n"
            f"max_depth=k draws k levels; node=n the subtree below node n (node_ids=True).")
    return tree_picture(model, max_depth=shown - 1, node=node, max_nodes=max_nodes, note=note,
                        **kwargs)


def _levels(pic) -> int:
    """Levels drawn in ``pic``."""
    depth = {pic.order[0]: 0}
    for parent in pic.order:
        for child in pic.kids.get(parent, ()):
            depth[child] = depth[parent] + 1
    return max(depth.values()) + 1


def _fitting_size(room, width: float, height: float) -> float:
    """The font size (points) at which ``width`` x ``height`` em fill ``room`` (inches)."""
    size = room[0] * 72 / width
    return size if room[1] is None else min(size, room[1] * 72 / height)


def _positive(v, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not (
            np.isfinite(v) and v > 0):
        raise ValueError(f"{what} must be a positive number, got {v!r}.")
    return float(v)


def _font_family(pic) -> list[str] | None:
    """The family list for the labels (``fonts.family_for``): None when the default font has every
    character, else DejaVu Sans followed by fonts with the others (a CJK one for the textbook's
    tables). The caller of ``plot_tree`` is warned once about characters no font has."""
    words = [b.title for b in pic.boxes.values()] + [s for b in pic.boxes.values() for s in b.lines]
    words += [b.edge or "" for b in pic.boxes.values()] + [name for name, _ in pic.legend]
    words.append(pic.note or "")
    return family_for(words, stacklevel=4)  # the warning points at plot_tree's caller
