"""The pruning report: every decision of validation-based pruning (Zhou 2016, §4.3), one line per node.

``pruning_report(model)`` prints, for a model fitted with ``pruning="pre"`` or ``"reduced-error"``,
the validation score of the whole tree with each node as a subtree and as a leaf, and the decision
taken; for CART's cost-complexity pruning with alpha chosen by cross-validation, its CP table::

    Post-pruning (reduced-error, Zhou 2016, §4.3.2); ties prune (prune_on_tie=True).
    Validation accuracy on 7 rows: 2/7 = 0.286 unpruned, 4/7 = 0.571 pruned.
    Node numbers are those of the unpruned tree (pruning=None); children come first.

    node  rows   as subtree      as leaf  decision  path
       8     2  2/7 = 0.286  3/7 = 0.429  pruned    色泽 = 乌黑 → 根蒂 = 稍蜷
       ...

"as subtree" / "as leaf": the validation score of the whole tree with the node kept as a subtree
(post-pruning) or split into leaves (pre-pruning), and with the node made a leaf. Post-pruning's
node numbers are those of the unpruned tree, whose pruned parts the fitted tree no longer holds;
the path column says where each node is.

``describe_steps`` gives each ``PruningStep`` its ``path`` (the tests leading to its node, in the
words of ``export_text``). ``fit`` keeps the decisions as arrays with the tree their node numbers
refer to (``PendingSteps``) and the paths are written when ``pruning_steps_`` is first read: a path
is as long as its node is deep, so writing them all costs the sum of the depths, more than the
pass itself on a deep tree.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from .._base import Estimator, check_is_fitted
from ..export.text import TreeView
from ..tree import Tree
from .steps import PruningStep, StepTable

if TYPE_CHECKING:
    from .._typing import Model

ARROW = " → "


class _TreeOnly(Estimator):
    """What ``TreeView`` reads of a fitted model, for a tree the model does not keep (the unpruned
    tree of reduced-error pruning). An estimator only so that ``check_is_fitted`` accepts it."""

    def __init__(self, tree_=None, schema_=None, classes_=None):
        self.tree_ = tree_
        self.schema_ = schema_
        self.classes_ = classes_  # None for a regressor: TreeView then shows values

    def fit(self, *args, **kwargs):  # pragma: no cover - never fitted, built fitted
        raise NotImplementedError


def node_paths(tree: Tree, schema, classes=None, nodes=None) -> dict[int, str]:
    """node -> the tests on the way from the root to it ("色泽 = 乌黑 → 根蒂 = 稍蜷"); "" for the
    root. ``nodes``: which nodes (default: all).

    Each path is its parent's path and one more test, so the paths of the wanted nodes and of
    their ancestors are written from the root down, once each (parents have smaller ids)."""
    view = TreeView(_TreeOnly(tree, schema, classes))
    wanted = range(tree.node_count) if nodes is None else [int(n) for n in nodes]
    parent = tree.parent.tolist()
    needed = set()
    for node in wanted:
        while node >= 0 and node not in needed:
            needed.add(node)
            node = parent[node]
    paths: dict[int, str] = {}
    tests: dict[int, str] = {}
    for node in sorted(needed):
        if node == 0:
            paths[node] = ""
            continue
        if node not in tests:  # every branch of the parent at once
            name = view.feature_name(parent[node])
            for c, test in view.branches(parent[node]):
                if c is not None:
                    tests[c] = f"{name} {test}"
        above = paths[parent[node]]
        paths[node] = f"{above}{ARROW}{tests[node]}" if above else tests[node]
    return {node: paths[node] for node in wanted}


def describe_steps(steps: list[PruningStep] | StepTable, tree: Tree, schema,
                   classes=None) -> list[PruningStep]:
    """``steps`` with their ``path`` filled in; ``tree`` is the tree their node numbers refer to."""
    if isinstance(steps, StepTable):
        return steps.steps(node_paths(tree, schema, classes, np.unique(steps.node).tolist()))
    paths = node_paths(tree, schema, classes, sorted({s.node for s in steps}))
    return [dataclasses.replace(s, path=paths[s.node]) for s in steps]


@dataclasses.dataclass(frozen=True)
class PendingSteps:
    """Pruning decisions whose ``PruningStep`` objects and paths are made when first asked for:
    the decisions (a ``StepTable``, or steps without paths) and what their paths are read from,
    the tree their node numbers refer to, the schema and the classes."""

    steps: list[PruningStep] | StepTable
    tree: Tree
    schema: object
    classes: np.ndarray | None = None

    def resolve(self) -> list[PruningStep]:
        return describe_steps(self.steps, self.tree, self.schema, self.classes)


# --------------------------------------------------------------------------- the report


def pruning_report(model: Model, *, digits: int = 3) -> str:
    """Text table of the pruning decisions of a fitted model (see the module docstring).

    Classification scores are validation accuracies, shown as a fraction of rows (``3/7``) when the
    validation weights are whole numbers; regression shows the validation mean squared error.
    Raises ValueError for a model whose pruning records no decisions (None, "error-based",
    cost-complexity with a fixed ``ccp_alpha``)."""
    check_is_fitted(model, "tree_")
    if isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"digits must be an integer >= 0, got {digits!r}.")
    steps = getattr(model, "pruning_steps_", None)
    if steps is not None:
        return _steps_table(model, steps, int(digits))
    table = getattr(model, "cp_table_", None)
    if table is not None:
        return _cp_table(model, table, int(digits))
    raise ValueError(
        f"{type(model).__name__} was fitted with pruning={model.pruning!r}, which records no "
        "pruning decisions: fit with pruning='pre' or 'reduced-error' (judged on validation data), "
        "or, for CART, pruning='cost-complexity' with ccp_alpha='cv-min' or 'cv-1se' (its CP table).")


def _steps_table(model, steps: list[PruningStep], digits: int) -> str:
    regression = not hasattr(model, "classes_")
    post = model.pruning == "reduced-error"
    tie = "ties prune" if model.prune_on_tie else "ties keep the subtree"
    if post:
        head = f"Post-pruning (reduced-error, Zhou 2016, §4.3.2); {tie} (prune_on_tie={model.prune_on_tie})."
    else:
        tie = "ties do not split" if model.prune_on_tie else "ties split"
        head = f"Pre-pruning (Zhou 2016, §4.3.1); {tie} (prune_on_tie={model.prune_on_tie})."
    if not steps:
        return head + "\nNo decision: the tree grew no split to judge (a single leaf).\n"
    root = next((s for s in steps if s.node == 0), steps[0])
    total = root.n_validation
    fmt = _Scores(total, regression, digits)
    measure = "mean squared error" if regression else "accuracy"
    last = steps[-1]
    final = last.score_as_leaf if last.pruned else last.score_as_subtree
    if post:
        before, before_name = steps[0].score_as_subtree, "unpruned"
        ids = "Node numbers are those of the unpruned tree (pruning=None); children come first."
    else:
        before, before_name = root.score_as_leaf, "root alone"
        ids = "Node numbers are those of the fitted tree, in the order the nodes were grown."
    lines = [
        head,
        f"Validation {measure} on {fmt.count(total)} rows: {fmt.score(before)} {before_name}, "
        f"{fmt.score(final)} {'pruned' if post else 'grown'}.",
        ids,
        "",
    ]
    yes, no = ("pruned", "kept") if post else ("leaf", "split")
    rows = [("node", "rows", "as subtree", "as leaf", "decision", "path")]
    for s in steps:
        rows.append((str(s.node), fmt.count(s.n_validation), fmt.score(s.score_as_subtree),
                     fmt.score(s.score_as_leaf), yes if s.pruned else no, s.path or "(root)"))
    lines.extend(_align(rows, right=(0, 1, 2, 3)))
    return "\n".join(lines) + "\n"


class _Scores:
    """Scores as the reader checks them by hand: k/n when the validation weights are counts."""

    def __init__(self, total: float, regression: bool, digits: int):
        self.total, self.regression, self.digits = total, regression, digits
        self.whole = _is_whole(total) and total > 0

    def count(self, w: float) -> str:
        return str(int(round(w))) if _is_whole(w) else f"{w:.{self.digits}f}"

    def score(self, s: float) -> str:
        if self.regression:
            return f"{-s:.{self.digits}f}"
        right = s * self.total
        if self.whole and _is_whole(right):
            return f"{int(round(right))}/{int(round(self.total))} = {s:.{self.digits}f}"
        return f"{s:.{self.digits}f}"


def _is_whole(x: float) -> bool:
    return abs(x - round(x)) <= 1e-9 * max(1.0, abs(x))


def _cp_table(model, table, digits: int) -> str:
    cv = getattr(model, "cv", None)
    folds = f"{cv}-fold " if isinstance(cv, (int, np.integer)) else ""
    lines = [f"Cost-complexity pruning (Breiman et al. 1984): alpha chosen by {folds}cross-validation, "
             f"rule {table.rule}; the chosen subtree is marked.", ""]
    rows = [("alpha", "leaves", "train cost", "cv error", "std error", "chosen")]
    for k in range(len(table.alpha)):
        rows.append((f"{table.alpha[k]:.{digits + 2}g}", str(int(table.n_leaves[k])),
                     f"{table.train_cost[k]:.{digits}f}", f"{table.cv_error[k]:.{digits}f}",
                     f"{table.cv_std_error[k]:.{digits}f}", "*" if k == table.chosen else ""))
    lines.extend(_align(rows, right=(0, 1, 2, 3, 4)))
    return "\n".join(lines) + "\n"


def _align(rows, right=()) -> list[str]:
    """Columns padded to a common width (the last column is not padded: it may hold CJK text)."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    out = []
    for r in rows:
        cells = [r[i].rjust(widths[i]) if i in right else r[i].ljust(widths[i])
                 for i in range(len(widths))]
        out.append("  ".join([*cells, r[-1]]).rstrip())
    return out
