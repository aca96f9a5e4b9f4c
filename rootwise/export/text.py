"""Plain-text view of a fitted tree, plus the wording shared with the other exporters.

Every exporter reads only ``model.tree_``, ``model.schema_`` and ``model.classes_`` (a model
without ``classes_`` is a regressor: ``value[:, 0]`` is the prediction of a node).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted
from .._config import LEAF, MULTIWAY, NO_BRANCH, SUBSET, THRESHOLD
from .._layout import wrap
from ..tree.majority import node_classes

if TYPE_CHECKING:
    from .._typing import Model

ARROW = " → "
# Lines this many levels deep or more start again at the left margin after a "[+k] " marker
# (k levels of indentation left out): without it a chain of 10^4 tests would print lines
# 40,000 characters wide and the text would grow with the square of the depth.
INDENT_LEVELS = 48
_GLYPH = ("├── ", "└── ")
_GUIDE = ("│   ", "    ")


def export_text(model: Model, *, decimals: int = 3, show_counts: bool = False, node_ids: bool = False,
                max_depth: int | None = None, width: int | None = None,
                show_missing: str = "auto") -> str:
    """The tree as indented text, one line per branch; a branch that ends in a leaf carries the
    leaf's prediction after an arrow, in J48's words: the class, then the training weight that
    reached the leaf and, when some of it is of another class, the misclassified weight::

        ├── 纹理 = 清晰
        │   ├── 根蒂 = 蜷缩 → 是 (5)
        │   ├── 根蒂 = 稍蜷
        │   │   ├── 色泽 = 青绿 → 是 (1)
        ...
        └── 纹理 = 模糊 → 否 (3)

    ``是 (6/2)`` reads "predicts 是; 6 rows reached this leaf, 2 of them of another class".
    Weights are C4.5's fractional counts where rows with missing values were split
    (``decimals`` rounds them and thresholds). A regression leaf shows its value, the standard
    deviation of the training targets there and their weight: ``0.269 ± 0.053 (7)``.

    Branches: ``x <= t`` / ``x > t`` (thresholds), ``a = v`` (one category per branch, ID3 /
    C4.5), ``a in {u, v}`` (a set of categories, CART's subsets); ``or missing`` marks where a
    row whose value is missing goes (CART: after its surrogate splits). A branch no training
    row reached (the textbook's empty branch) shows ``(0, parent's class)``: it predicts its
    parent's distribution. Categories that have no branch at a node get a line of their own
    saying where such rows go.

    ``show_counts``: add each leaf's non-zero class counts, largest first (``[否: 4, 是: 2]``).
    ``node_ids``: prefix each branch with its node number (``explain(..., node=N)``).
    ``max_depth``: show that many levels of tests; a node cut there shows its prediction and
    ``… (k leaves below)``. Lines more than 48 levels deep restart at the margin behind
    ``[+48] ``. Runs without recursion, in time linear in the number of nodes.
    ``width``: wrap lines longer than that many terminal columns at spaces, the rest of a line
    indented two columns past where its children's tests start (a vertical guide joins the
    line to them); None (default) leaves every line whole.
    ``show_missing``: "auto" (default) marks ``or missing`` only at tests of columns that had
    missing cells in training; "all" marks it at every test.
    """
    if width is not None and (isinstance(width, bool) or not isinstance(width, (int, np.integer))
                              or width < 1):
        raise ValueError(f"width must be None or an integer >= 1, got {width!r}.")
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(
            max_depth, (int, np.integer)) or max_depth < 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}.")
    view = TreeView(model, decimals, show_missing)
    tree = view.tree
    leaves_below = _leaves_below(tree) if max_depth is not None else None

    def outcome(node: int) -> str:
        text = view.leaf_summary(node, show_counts)
        if tree.kind[node] != LEAF:  # cut by max_depth
            text += f" … ({int(leaves_below[node])} leaves below)"
        return text

    if tree.kind[0] == LEAF or max_depth == 0:
        return "\n".join(wrap(outcome(0), width, "", "  ") if width else [outcome(0)]) + "\n"
    lines: list[str] = []
    # depth first with an explicit stack of (node, its branches, next branch, depth, guides):
    # deep trees must not hit Python's recursion limit
    stack = [(0, view.branches(0), [0], 0, "")]
    while stack:
        node, items, at, depth, guides = stack[-1]
        if at[0] == len(items):
            stack.pop()
            continue
        i = at[0]
        at[0] += 1
        child, test = items[i]
        last = i == len(items) - 1
        margin = f"[+{depth - depth % INDENT_LEVELS}] " if depth >= INDENT_LEVELS else ""
        tag = f"[{child}] " if node_ids and child is not None else ""
        head = f"{margin}{guides}{_GLYPH[last]}{tag}"
        line = f"{view.feature_name(node)} {test}"
        below = None  # the guides of the children, when they follow this line
        if child is None:
            line += ARROW + view.no_branch_summary(node, show_counts)
        elif tree.kind[child] == LEAF or (max_depth is not None and depth + 1 >= max_depth):
            line += ARROW + outcome(child)
        else:
            below = "" if (depth + 1) % INDENT_LEVELS == 0 else guides + _GUIDE[last]
            stack.append((child, view.branches(child), [0], depth + 1, below))
        if width is None or len(head) + len(line) <= width // 2:  # short: no need to measure
            lines.append(head + line)
        else:
            rest = " " * len(margin) + guides + _GUIDE[last] + ("│     " if below else "      ")
            lines.extend(wrap(line, width, head, rest))
    return "\n".join(lines) + "\n"


def _leaves_below(tree) -> np.ndarray:
    """Number of leaves in the subtree of each node (children come after their parent, so one
    pass from the last node up adds every subtree before its parent reads it)."""
    count = (tree.kind == LEAF).astype(np.int64)
    for depth in range(tree.max_depth, 0, -1):
        at = np.flatnonzero(tree.depth == depth)
        np.add.at(count, tree.parent[at], count[at])
    return count


SHOW_MISSING = ("auto", "all")


def check_show_missing(show_missing) -> None:
    if not isinstance(show_missing, str) or show_missing not in SHOW_MISSING:
        raise ValueError(f"show_missing must be 'auto' (missing values only for columns that had "
                         f"missing cells in training) or 'all', got {show_missing!r}.")


class TreeView:
    """Words for the nodes and branches of a fitted model (shared by the exporters)."""

    def __init__(self, model, decimals: int = 3, show_missing: str = "auto"):
        check_is_fitted(model, ["tree_", "schema_"])
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
            raise ValueError(f"decimals must be an integer >= 0, got {decimals!r}.")
        check_show_missing(show_missing)
        self.show_missing = show_missing
        self.tree = model.tree_
        self.schema = model.schema_
        self.classes = getattr(model, "classes_", None)
        # the class each node predicts, ties broken by class_order_ as predict breaks them
        self.majority = None if self.classes is None else node_classes(model)
        self.decimals = int(decimals)
        self._names = [clean(str(n)) for n in self.schema.feature_names]
        self.class_texts = None if self.classes is None else shown_values(self.classes)
        self._category_texts: dict[int, list[str]] = {}

    # ------------------------------------------------------------------ numbers and names
    def number(self, v) -> str:
        """Rounded to ``decimals`` digits, without trailing zeros (5.0 -> "5", 0.25 -> "0.25")."""
        v = float(v)
        if v.is_integer():
            return str(int(v))
        text = f"{v:.{self.decimals}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text

    def feature_name(self, node: int) -> str:
        return self._names[int(self.tree.feature[node])]

    def shows_missing(self, node: int) -> bool:
        """Whether words on missing values (the branch that takes them, surrogates) belong at
        split ``node``: only where its column had missing cells in training, unless
        ``show_missing="all"``. The model keeps its surrogates either way."""
        return self.show_missing == "all" or self.schema.had_missing(int(self.tree.feature[node]))

    def category(self, feature: int, code: int) -> str:
        texts = self._category_texts.get(feature)
        if texts is None:  # made once per feature: whether to quote depends on all its categories
            texts = self._category_texts[feature] = shown_values(self.schema.categories[feature])
        return texts[code]

    # ------------------------------------------------------------------ branches
    def branches(self, node: int) -> list[tuple[int | None, str]]:
        """(child, test) for each branch of a split node in child order, the test without the
        feature name ("<= 0.382", "= 清晰", "in {单身, 离婚}"); categories that have no branch
        come last as (None, test)."""
        tree = self.tree
        kind, first, missing = self._node_lists[node]
        if kind == THRESHOLD:
            t = self.number(tree.threshold[node])
            out = [(first, f"<= {t}"), (first + 1, f"> {t}")]
        else:
            feature = int(tree.feature[node])
            slots = tree.branch_of_category(node)
            out = [(first + b, self._category_test(feature, np.flatnonzero(slots == b), kind))
                   for b in range(int(tree.n_children[node]))]
            unreached = np.flatnonzero(slots == NO_BRANCH)
            if len(unreached):
                out.append((None, self._category_test(feature, unreached, kind) + " (no branch)"))
        if 0 <= missing < len(out) and self.shows_missing(node):
            child, test = out[missing]
            out[missing] = (child, test + " or missing")
        return out

    @functools.cached_property
    def _node_lists(self) -> list[tuple[int, int, int]]:
        """(kind, first child, missing branch) of every node as Python ints, made once: reading
        numpy scalars node by node costs more than the rest of a line."""
        t = self.tree
        return list(zip(t.kind.tolist(), t.first_child.tolist(), t.missing_branch.tolist(),
                        strict=True))

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
        return f"class: {self.class_texts[self.majority[node]]}"

    def counts(self, node: int) -> str:
        if self.classes is None:
            return f"samples: {self.number(self.tree.weighted_n_node_samples[node])}"
        return ", ".join(f"{c}: {self.number(v)}"
                         for c, v in zip(self.class_texts, self.tree.value[node], strict=True))

    @functools.cached_property
    def _empty(self) -> list[bool]:
        return (self.tree.n_node_samples == 0).tolist()

    def is_empty_branch(self, node: int) -> bool:
        """A branch no training row reached (TreeGenerate's stopping case 3, Zhou 2016, §4.1)."""
        return node > 0 and self._empty[node]

    def leaf_summary(self, node: int, show_counts: bool = False) -> str:
        """A node as a leaf, J48 style: ``是 (6/2)`` (class, weight, misclassified weight when
        not zero) or ``0.269 ± 0.053 (7)`` (value, standard deviation, weight);
        ``show_counts`` adds the non-zero class counts, largest first."""
        empty = self.is_empty_branch(node)
        if self.classes is None:
            value, spread, weight = self._leaf_lists[node]
            if empty:
                return f"{self.number(value)} (0, parent's value)"
            return f"{self.number(value)} ± {self.number(spread)} ({self.number(weight)})"
        best, total, wrong = self._leaf_lists[node]
        head = self.class_texts[best]
        if empty:
            text = f"{head} (0, parent's class)"
        else:
            wrong = self.number(wrong)
            total = self.number(total)
            text = f"{head} ({total})" if wrong == "0" else f"{head} ({total}/{wrong})"
        return f"{text} [{self.nonzero_counts(node)}]" if show_counts else text

    @functools.cached_property
    def _leaf_lists(self) -> list[tuple]:
        """Per node, made at once: (majority class, total weight, misclassified weight), or for
        a regressor (value, standard deviation = sqrt of the squared-error impurity, weight)."""
        t = self.tree
        if self.classes is None:
            spread = np.sqrt(np.maximum(t.impurity, 0.0))
            columns = (t.value[:, 0], spread, t.weighted_n_node_samples)
        else:
            best = self.majority
            total = t.value.sum(axis=1)
            columns = (best, total, total - t.value[np.arange(len(t.value)), best])
        return list(zip(*(c.tolist() for c in columns), strict=True))

    def nonzero_counts(self, node: int) -> str:
        """"否: 4, 是: 2": the classes of non-zero weight at ``node``, largest first (ties in
        class order)."""
        value = self.tree.value[node]
        order = sorted(np.flatnonzero(value > 0), key=lambda k: -value[k])
        return ", ".join(f"{self.class_texts[k]}: {self.number(value[k])}" for k in order)

    def no_branch_summary(self, node: int, show_counts: bool = False) -> str:
        """Where rows go whose category has no branch at split ``node``: at a subset test (CART)
        they are handled as missing values; at a multiway test they stop at ``node`` and get its
        distribution."""
        if int(self.tree.kind[node]) == SUBSET:
            return "handled as missing"
        if self.classes is None:
            return f"stops here: {self.number(self.tree.value[node][0])}"
        text = f"stops here: {self.class_texts[self.majority[node]]}"
        return f"{text} [{self.nonzero_counts(node)}]" if show_counts else text


def label(v) -> str:
    """A category or class label as a reader expects it: floats without a trailing ``.0``."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        text = repr(v)
        return text[:-2] if text.endswith(".0") else text
    return clean(str(v))


# the words ``label`` prints for booleans
_BOOLEAN_WORDS = frozenset({"True", "False"})


def shown_values(values) -> list[str]:
    """How a column's categories (or the classes) are printed: ``label`` of each value, but a
    string is quoted (``'1'``) where it could be read as another value -- always when the
    collection also holds values that are not strings (1 and '1'), and otherwise when the
    string is empty, has blanks at an end, reads as a number or a boolean as they are printed
    ('1.5', 'nan', 'True'), or holds a comma or a brace (which separate the values of a set,
    "in {a, b}")."""
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    mixed = any(not isinstance(v, str) for v in values)
    return [repr(str(v)) if isinstance(v, str) and (mixed or _lookalike(v)) else label(v)
            for v in values]


def _lookalike(s: str) -> bool:
    if s == "" or s != s.strip() or any(ch in s for ch in ",{}") or s in _BOOLEAN_WORDS:
        return True
    try:
        float(s)
    except ValueError:
        return False
    return True


def clean(text: str) -> str:
    """Keep one item on one line: line breaks in names are shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")
