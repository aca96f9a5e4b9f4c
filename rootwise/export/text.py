"""Plain-text view of a fitted tree, plus the wording shared with the other exporters.

Every exporter reads only ``model.tree_``, ``model.schema_`` and ``model.classes_`` (a model
without ``classes_`` is a regressor: ``value[:, 0]`` is the prediction of a node).
"""

from __future__ import annotations

import numpy as np

from .._base import check_is_fitted
from .._config import LEAF, MULTIWAY, NO_BRANCH, THRESHOLD


def export_text(model, *, decimals: int = 3, show_counts: bool = True, node_ids: bool = False) -> str:
    """Readable indented tree, one line per branch and per leaf::

        ├── 纹理 = 清晰
        │   ├── 根蒂 = 蜷缩
        │   │   └── class: 是 (否: 0, 是: 5)

    ``decimals`` rounds thresholds and fractional counts, ``show_counts`` adds each leaf's
    (weighted) class counts, ``node_ids`` prefixes branches with their node number (as used by
    ``explain(..., node=N)``).
    """
    view = TreeView(model, decimals)
    if view.tree.kind[0] == LEAF:
        return view.leaf_text(0, show_counts) + "\n"
    lines = []
    # depth first with an explicit stack: deep CART trees must not hit Python's recursion limit
    stack = [_branch_lines(view, 0, "", node_ids)]
    while stack:
        row = next(stack[-1], None)
        if row is None:
            stack.pop()
            continue
        node, child, line, inner = row
        lines.append(line)
        if child is None:  # categories without a branch stop at ``node``, with its distribution
            lines.append(f"{inner}└── {view.leaf_text(node, show_counts, no_branch=True)}")
        elif view.tree.kind[child] == LEAF:
            lines.append(f"{inner}└── {view.leaf_text(child, show_counts)}")
        else:
            stack.append(_branch_lines(view, child, inner, node_ids))
    return "\n".join(lines) + "\n"


def _branch_lines(view, node: int, prefix: str, node_ids: bool):
    """(node, child, branch line, prefix of the lines below it) for each branch of ``node``."""
    items = view.branches(node)
    name = view.feature_name(node)
    for i, (child, test) in enumerate(items):
        last = i == len(items) - 1
        tag = f"[{child}] " if node_ids and child is not None else ""
        yield (node, child, f"{prefix}{'└── ' if last else '├── '}{tag}{name} {test}",
               prefix + ("    " if last else "│   "))


class TreeView:
    """Words for the nodes and branches of a fitted model (shared by the exporters)."""

    def __init__(self, model, decimals: int = 3):
        check_is_fitted(model, ["tree_", "schema_"])
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
            raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}.")
        self.tree = model.tree_
        self.schema = model.schema_
        self.classes = getattr(model, "classes_", None)
        self.class_order = getattr(model, "class_order_", None)  # the order ties go by
        self.decimals = int(decimals)

    # ------------------------------------------------------------------ numbers and names
    def number(self, v) -> str:
        """Rounded to ``decimals`` digits, without trailing zeros (5.0 -> "5", 0.25 -> "0.25")."""
        v = float(v)
        if v.is_integer():
            return str(int(v))
        text = f"{v:.{self.decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    def feature_name(self, node: int) -> str:
        return clean(str(self.schema.feature_names[int(self.tree.feature[node])]))

    def category(self, feature: int, code: int) -> str:
        return label(self.schema.categories[feature][code])

    # ------------------------------------------------------------------ branches
    def branches(self, node: int) -> list[tuple[int | None, str]]:
        """(child, test) for each branch of a split node in child order, the test without the
        feature name ("<= 0.382", "= 清晰", "in {单身, 离婚}"); categories that have no branch
        come last as (None, test)."""
        tree = self.tree
        kind = int(tree.kind[node])
        kids = list(tree.children(node))
        if kind == THRESHOLD:
            t = self.number(tree.threshold[node])
            out = list(zip(kids, [f"<= {t}", f"> {t}"], strict=True))
        else:
            feature = int(tree.feature[node])
            slots = tree.branch_of_category(node)
            out = [(child, self._category_test(feature, np.flatnonzero(slots == b), kind))
                   for b, child in enumerate(kids)]
            unreached = np.flatnonzero(slots == NO_BRANCH)
            if len(unreached):
                out.append((None, self._category_test(feature, unreached, kind) + " (no branch)"))
        missing = int(tree.missing_branch[node])
        if 0 <= missing < len(kids):
            child, test = out[missing]
            out[missing] = (child, test + " or missing")
        return out

    def _category_test(self, feature: int, codes, kind: int) -> str:
        values = [self.category(feature, int(c)) for c in codes]
        if kind == MULTIWAY and len(values) == 1:
            return f"= {values[0]}"
        return f"in {{{', '.join(values)}}}"

    # ------------------------------------------------------------------ leaves
    def predicted(self, node: int) -> str:
        """What a row stopping at ``node`` is predicted: majority class (ties to the first class
        in ``class_order_``, as ``predict`` does), or the regression value."""
        value = self.tree.value[node]
        if self.classes is None:
            return f"value: {self.number(value[0])}"
        winner = self.classes[int(np.argmax(value))]
        if self.class_order is not None:
            tied = set(self.classes[value == value.max()].tolist())
            winner = next(c for c in self.class_order.tolist() if c in tied)
        return f"class: {label(winner)}"

    def counts(self, node: int) -> str:
        if self.classes is None:
            return f"samples: {self.number(self.tree.weighted_n_node_samples[node])}"
        return ", ".join(f"{label(c)}: {self.number(v)}"
                         for c, v in zip(self.classes, self.tree.value[node], strict=True))

    def is_empty_branch(self, node: int) -> bool:
        """A branch no training row reached (seed 000, stopping case 3)."""
        return node > 0 and int(self.tree.n_node_samples[node]) == 0

    def leaf_text(self, node: int, show_counts: bool = True, *, no_branch: bool = False) -> str:
        head = self.predicted(node)
        if no_branch:
            note = "no branch: this node's distribution"
        elif self.is_empty_branch(node):
            note = "empty branch: parent's distribution"
        else:
            return f"{head} ({self.counts(node)})" if show_counts else head
        return f"{head} ({note} {self.counts(node)})" if show_counts else f"{head} ({note})"


def label(v) -> str:
    """A category or class label as a reader expects it: floats without a trailing ``.0``."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        text = repr(v)
        return text[:-2] if text.endswith(".0") else text
    return clean(str(v))


def clean(text: str) -> str:
    """Keep one item on one line: line breaks in names are shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")
