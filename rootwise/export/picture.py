"""What a picture of a tree shows: which nodes, the words in each box, colours, and where boxes go.

One description serves the matplotlib plot (``plot.py``) and the report's SVG (``svg.py``), so
both show the same tree. Sizes are in em (the font size): a caller scales them to points or
pixels.

A box holds a title (the tested attribute; at a leaf the predicted class or value) and a few
lines: the node's weight ``n`` (fractional for C4.5, whose rows with a missing value go down every
branch), the non-zero class counts when there are few, and notes on missing values (C4.5's
fractional routing, CART's surrogates; the branch that takes them says "or missing"). A bar at the
bottom shows the class proportions (for regression, where the value lies between the lowest and
highest leaf). A box is tinted with its majority class's colour, the more the purer the node (for
regression, by value). The branch test is written above each child.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, field

import numpy as np

from .._config import LEAF, MISSING_FRACTIONAL, MULTIWAY, NO_BRANCH, SUBSET
from ..tree.majority import node_classes
from .layout import text_width, tidy_layout
from .text import TreeView, label

# box geometry, in em
PAD_X = 0.6  # left and right of the text
PAD_Y = 0.35
LINE = 1.3  # line height
BAR = 0.55  # the proportion bar
BAR_GAP = 0.3
H_GAP = 1.0  # between sibling subtrees
V_GAP = 2.6  # between levels: room for the branch label and the line to it
EDGE_LABEL_H = 1.2
NOTE_H = 1.6  # the line above the tree saying it was cut

MAX_COUNTS = 3  # the counts line lists the non-zero classes when there are at most this many
MAX_LABEL = 34  # characters of a branch label before it is shortened
DEFAULT_MAX_NODES = 255
LEGEND_COLUMNS = 6


@dataclass
class Box:
    node: int
    title: str
    lines: list[str]
    fill: str  # "#rrggbb"
    shares: list[tuple[float, str]]  # (fraction, colour) segments of the bar, left to right
    edge: str | None = None  # the test of the branch into this node, shortened
    dashed: bool = False  # an empty branch: no training row reached it
    hidden: int = 0  # nodes below it that are not drawn (depth limit)
    x: float = 0.0  # centre
    y: float = 0.0  # top
    w: float = 0.0
    h: float = 0.0
    slot: float = 0.0  # the width the layout gives it: the box, or the label above it if wider


@dataclass
class Picture:
    boxes: dict[int, Box]
    order: list[int]  # drawn nodes, parents first
    kids: dict[int, list[int]]  # drawn children, left to right
    width: float
    height: float
    legend: list[tuple[str, str]] = field(default_factory=list)  # (class label, colour)
    note: str | None = None  # said when the tree was cut to fit
    top: float = 0.0  # where the first level starts: below the note and the legend
    hidden_levels: int = 0  # levels below the drawn ones (of the subtree drawn)
    hidden_leaves: int = 0  # leaves of the subtree drawn that are not drawn


def tree_picture(model, *, max_depth=None, decimals: int = 3, node_ids: bool = False,
                 max_nodes: int = DEFAULT_MAX_NODES, legend_band: bool = True, node: int = 0,
                 show_missing: str = "auto", note: str | None = None) -> Picture:
    """The picture of a fitted model: every node of the subtree below ``node`` (default: the
    root) down to ``max_depth`` levels below it, and no more levels than keep it within
    ``max_nodes`` boxes (the cut is said in ``note``). ``legend_band``: leave room above the tree
    for the legend of class colours. ``note``: a caller's own words for the cut."""
    view = TreeView(model, decimals, show_missing)  # checks the model is fitted, and decimals
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(
            max_depth, (int, np.integer)) or max_depth < 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}.")
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer)) or max_nodes < 1:
        raise ValueError(f"max_nodes must be an integer >= 1, got {max_nodes!r}.")
    tree = view.tree
    n_nodes = len(tree.kind)
    if isinstance(node, bool) or not isinstance(node, (int, np.integer)) or not 0 <= node < n_nodes:
        raise ValueError(f"node must be a node number from 0 to {n_nodes - 1} (node_ids=True "
                         f"shows them), got {node!r}.")
    root = int(node)
    inside = in_subtree(tree.parent, root)
    depth = tree.depth[inside] - tree.depth[root]
    limit, cut_note = drawn_depth(depth, max_depth, int(max_nodes))
    ids = np.flatnonzero(inside)
    order = [int(i) for i in ids[depth <= limit]]
    deepest = int(depth.max())
    leaves = inside & (tree.kind == LEAF)
    drawn_leaves = int(np.count_nonzero(leaves[ids[depth <= limit]]))
    hidden_levels, hidden_leaves = deepest - limit, int(np.count_nonzero(leaves)) - drawn_leaves
    note = note or cut_note
    below = subtree_sizes(tree.parent) - 1
    colours = Colours(model)
    boxes: dict[int, Box] = {}
    kids: dict[int, list[int]] = {}
    for node in order:
        box = _box(view, colours, node, node_ids)
        if tree.kind[node] != LEAF:
            if tree.depth[node] - tree.depth[root] < limit:
                kids[node] = [int(c) for c in tree.children(node)]
            else:
                box.hidden = int(below[node])
                box.lines.append(f"+{box.hidden} nodes below")
        boxes[node] = box
    for node in kids:
        for child, test in view.branches(node):
            if child is not None:
                boxes[child].edge = shorten(test[2:] if test.startswith("= ") else test)
    for box in boxes.values():
        text_w = max([text_width(box.title, bold=True)] + [text_width(s) for s in box.lines])
        box.w = max(text_w + 2 * PAD_X, 4.0)
        box.h = 2 * PAD_Y + LINE * (1 + len(box.lines)) + BAR_GAP + BAR
    note_lines = note.split("\n") if note else []
    top = (legend_height(len(colours.legend)) if legend_band else 0.0) + NOTE_H * len(note_lines)
    for b in boxes.values():
        b.slot = max(b.w, text_width(b.edge or "") + 0.6)
    x, y, total_w, total_h = tidy_layout(order, kids, {n: b.slot for n, b in boxes.items()},
                                         {n: b.h for n, b in boxes.items()},
                                         h_gap=H_GAP, v_gap=V_GAP, top=top)
    for node, box in boxes.items():
        box.x, box.y = x[node], y[node]
    total_w = max(total_w, legend_width(colours.legend) if legend_band else 0.0,
                  *(text_width(line) + 1 for line in note_lines))
    return Picture(boxes, order, kids, total_w, total_h, colours.legend, note, top, hidden_levels,
                   hidden_leaves)


def drawn_depth(depth: np.ndarray, max_depth, max_nodes: int) -> tuple[int, str | None]:
    """The deepest level drawn, and a note when ``max_nodes`` made it shallower than asked."""
    deepest = int(depth.max())
    asked = deepest if max_depth is None else min(int(max_depth), deepest)
    upto = np.cumsum(np.bincount(depth, minlength=deepest + 1))  # nodes at depth <= d
    if upto[asked] <= max_nodes:
        return asked, None
    fit = max(int(np.searchsorted(upto, max_nodes, side="right")) - 1, 0)
    return fit, (f"Showing depth 0-{fit} of {deepest} ({int(upto[fit])} of {len(depth)} nodes); "
                 f"pass max_depth or a larger max_nodes to choose.")


def in_subtree(parent: np.ndarray, root: int) -> np.ndarray:
    """Mask of the nodes of ``root``'s subtree (children have larger ids than parents)."""
    if root == 0:
        return np.ones(len(parent), dtype=bool)
    inside = np.zeros(len(parent), dtype=bool)
    inside[root] = True
    for i in range(root + 1, len(parent)):
        inside[i] = inside[parent[i]]
    return inside


def subtree_sizes(parent: np.ndarray) -> np.ndarray:
    """Nodes in each node's subtree, itself included (children have larger ids than parents)."""
    size = [1] * len(parent)
    up = parent.tolist()
    for node in range(len(up) - 1, 0, -1):
        size[up[node]] += size[node]
    return np.array(size, dtype=np.int64)


def shorten(test: str, limit: int = MAX_LABEL) -> str:
    """A branch label cut to about ``limit`` characters, keeping a trailing "or missing"."""
    tail = " or missing" if test.endswith(" or missing") else ""
    head = test[: len(test) - len(tail)]
    if len(head) <= limit:
        return test
    closing = "}" if head.endswith("}") else ""
    return head[: limit - 1].rstrip(", ") + "…" + closing + tail


def legend_height(n_entries: int) -> float:
    return 0.0 if n_entries == 0 else 1.6 * -(-n_entries // LEGEND_COLUMNS) + 0.6



def legend_width(legend: list[tuple[str, str]]) -> float:
    columns = min(len(legend), LEGEND_COLUMNS)
    if not columns:
        return 0.0
    return columns * (max(text_width(name) for name, _ in legend) + 2.2)


def _box(view: TreeView, colours: Colours, node: int, node_ids: bool) -> Box:
    tree = view.tree
    n_text = f"n = {view.number(tree.weighted_n_node_samples[node])}"
    empty = view.is_empty_branch(node)
    if tree.kind[node] == LEAF:
        title = predicted_label(view, node)
    else:
        title = view.feature_name(node)
    if node_ids:
        title = f"[{node}] {title}"
    lines = [n_text]
    if view.classes is None:
        spread = np.sqrt(max(float(tree.impurity[node]), 0.0))
        if tree.kind[node] == LEAF:
            lines[0] += f" · sd = {view.number(spread)}"
        else:
            lines.append(f"mean = {view.number(tree.value[node, 0])}")
    else:
        counts = tree.value[node]
        nonzero = np.flatnonzero(counts > 0)
        if 0 < len(nonzero) <= MAX_COUNTS and not empty:
            lines.append(" · ".join(f"{label(view.classes[k])}: {view.number(counts[k])}"
                                    for k in nonzero))
    if empty:
        lines = [f"{n_text} · empty branch", "(bar: parent's counts)"]
    if tree.kind[node] != LEAF:
        lines.extend(missing_notes(view, node))
    return Box(node, title, lines, colours.fill(node), colours.shares(node), dashed=empty)


def predicted_label(view: TreeView, node: int) -> str:
    """What a row stopping at ``node`` is predicted, as a label: the majority class (the first
    in ``class_order_`` on a tie, as ``predict``), or the regression value."""
    value = view.tree.value[node]
    if view.classes is None:
        return view.number(value[0])
    return label(view.classes[view.majority[node]])


def missing_notes(view: TreeView, node: int, surrogates: bool = True) -> list[str]:
    """How a split handles rows it cannot send down a branch (``surrogates``: name them too).
    Missing values are spoken of only where ``view.shows_missing`` says they matter."""
    tree = view.tree
    notes = []
    shown = view.shows_missing(node)
    if shown and tree.missing_branch[node] == MISSING_FRACTIONAL:
        notes.append("missing: every branch (r_v)")
    n_sur = int(tree.n_surrogates[node]) if surrogates and shown else 0
    if n_sur:
        first = int(tree.surrogate_offset[node])
        names = [view.schema.feature_names[int(tree.surrogates["feature"][first + s])]
                 for s in range(min(n_sur, 2))]
        more = f" +{n_sur - 2}" if n_sur > 2 else ""
        notes.append(shorten("surrogate: " + ", ".join(label(n) for n in names)) + more)
    if tree.kind[node] in (MULTIWAY, SUBSET):
        slots = tree.branch_of_category(node)
        unreached = np.flatnonzero(slots == NO_BRANCH)
        if len(unreached):
            feature = int(tree.feature[node])
            names = ", ".join(view.category(feature, int(c)) for c in unreached)
            notes.append(shorten(f"no branch: {names}"))
    return notes


class Colours:
    """Class colours (hues spread by the golden angle, so that neighbours differ) and box tints."""

    def __init__(self, model):
        tree = model.tree_
        self.tree = tree
        classes = getattr(model, "classes_", None)
        if classes is None:
            leaves = tree.value[tree.kind == LEAF, 0]
            self.low, self.high = float(leaves.min()), float(leaves.max())
            self.legend: list[tuple[str, str]] = []
            self.palette: list[str] = []
        else:
            self.palette = class_palette(len(classes))
            self.majority = node_classes(model)  # the colour of the class predict names
            self.legend = [(label(c), self.palette[k]) for k, c in enumerate(classes)]

    def fill(self, node: int) -> str:
        value = self.tree.value[node]
        if not self.palette:
            return tint(VALUE_COLOUR, 0.12 + 0.6 * self._position(value[0]))
        total = value.sum()
        k = len(value)
        top = int(self.majority[node])
        purity = 0.0 if total <= 0 or k < 2 else (value[top] / total - 1 / k) / (1 - 1 / k)
        return tint(self.palette[top], 0.1 + 0.55 * purity)

    def shares(self, node: int) -> list[tuple[float, str]]:
        value = self.tree.value[node]
        if not self.palette:
            return [(self._position(value[0]), VALUE_COLOUR)]
        total = value.sum()
        if total <= 0:
            return []
        return [(float(v / total), self.palette[k]) for k, v in enumerate(value) if v > 0]

    def _position(self, v: float) -> float:
        if self.high <= self.low:
            return 1.0
        return min(max((v - self.low) / (self.high - self.low), 0.0), 1.0)


VALUE_COLOUR = "#2a7f8f"


def class_palette(k: int) -> list[str]:
    """``k`` distinct colours: hues 137.5 degrees apart from a blue, medium lightness."""
    out = []
    for i in range(k):
        hue = ((210 + 137.508 * i) % 360) / 360
        r, g, b = colorsys.hls_to_rgb(hue, 0.52, 0.62)
        out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


def tint(colour: str, amount: float) -> str:
    """``colour`` mixed into white: 0 is white, 1 the colour itself."""
    rgb = [int(colour[i: i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 + (c - 255) * amount) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)
