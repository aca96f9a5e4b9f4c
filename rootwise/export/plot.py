"""``plot_tree``: a fitted tree drawn with matplotlib (the optional extra ``rootwise[plot]``).

The picture is ``picture.tree_picture``'s: boxes in a tidy layout, tinted by class (or value), a
proportion bar in each, branch tests above the children. Data coordinates are em of the chosen
font size, y pointing down, so each box is sized to its text. Artists carry ``gid``s naming what
they draw ("node 5", "edge 1-5", "label 5", "share 5 0") for whoever inspects the figure.
"""

from __future__ import annotations

from .fonts import family_for
from .picture import BAR, DEFAULT_MAX_NODES, EDGE_LABEL_H, LEGEND_COLUMNS, LINE, NOTE_H, PAD_Y, tree_picture

FONT_SIZE = 9.0  # points, for a new figure
MAX_FIGURE_INCHES = 60.0  # a new figure wider than this gets a smaller font instead
MIN_FONT_SIZE = 2.0


def require_matplotlib():
    """matplotlib's pyplot, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("rootwise's plots need matplotlib: pip install rootwise[plot]") from e
    return plt


def plot_tree(model, *, max_depth=None, ax=None, decimals: int = 3, fontsize=None,
              node_ids: bool = False, max_nodes: int = DEFAULT_MAX_NODES):
    """Draw a fitted tree; returns the matplotlib Axes.

    Split nodes show the tested attribute, leaves the predicted class (or value); every box shows
    its weight ``n`` (fractional for C4.5), the class counts when at most three are non-zero, a bar
    of class proportions, and how the split handles missing values (C4.5 sends such rows down every
    branch; CART tries its surrogates, and the branch marked "or missing" takes the rest). Branch
    tests are written above the children: ``<= 0.382``, ``清晰``, ``in {单身, 离婚}``.

    max_depth: draw nodes down to this depth (the root is 0); a cut split says how many nodes are
        below it. Trees with more than ``max_nodes`` nodes are cut to the deepest level that fits,
        with a note in the title.
    ax: draw into these axes (the font is scaled to fit them); default: a new figure sized to the
        tree. fontsize: points, for a new figure (default 9). node_ids: prefix node numbers, as
        used by ``rootwise.explain(..., node=k)``.
    """
    plt = require_matplotlib()
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyBboxPatch, Rectangle

    pic = tree_picture(model, max_depth=max_depth, decimals=decimals, node_ids=node_ids,
                       max_nodes=max_nodes)
    margin = 0.5
    width, height = pic.width + 2 * margin, pic.height + 2 * margin
    if ax is None:
        size = float(fontsize) if fontsize is not None else FONT_SIZE
        size = max(min(size, MAX_FIGURE_INCHES * 72 / width), MIN_FONT_SIZE)
        fig = plt.figure(figsize=(width * size / 72, height * size / 72))
        ax = fig.add_axes((0, 0, 1, 1))
    else:
        box = ax.get_window_extent()
        points = 72 / ax.figure.dpi
        size = min(box.width * points / width, box.height * points / height)
        if fontsize is not None:
            size = min(size, float(fontsize))
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
        top = NOTE_H if pic.note else 0.0
        ax.legend(handles=handles, loc="upper left", ncol=min(len(handles), LEGEND_COLUMNS),
                  bbox_to_anchor=(-margin / 2, top), bbox_transform=ax.transData, frameon=False,
                  prop={"size": size, **({"family": family} if family else {})},
                  handlelength=1.2, borderaxespad=0.2, columnspacing=1.2)
    if pic.note:
        ax.text(-margin / 2, NOTE_H / 2, pic.note, ha="left", va="center", color="#aa3300",
                gid="note", **text)
    return ax


def _font_family(pic) -> list[str] | None:
    """The family list for the labels (``fonts.family_for``): None when the default font has every
    character, else DejaVu Sans followed by fonts with the others (a CJK one for the textbook's
    tables). The caller of ``plot_tree`` is warned once about characters no font has."""
    words = [b.title for b in pic.boxes.values()] + [s for b in pic.boxes.values() for s in b.lines]
    words += [b.edge or "" for b in pic.boxes.values()] + [name for name, _ in pic.legend]
    words.append(pic.note or "")
    return family_for(words, stacklevel=4)  # the warning points at plot_tree's caller
