"""The report's pruning record, as HTML: what pruning decided and on which numbers.

- ``pruning="pre"`` / ``"reduced-error"`` (Zhou 2016, §4.3): every decision with the validation score
  of the tree with the node as a subtree and as a leaf (``model.pruning_steps_``);
- CART's cost-complexity pruning with alpha chosen by cross-validation (Breiman et al. 1984): the CP
  table and its chart (``model.cp_table_``);
- C4.5's error-based pruning: each node's estimated errors as a leaf, E + U(N, E, CF), and of its
  subtree (the sum over its leaves), from the fitted tree's counts
  (``rootwise.prune.error_based.pessimistic_errors``). C4.5 keeps a split whose subtree is
  estimated to make fewer errors than a leaf in its place.
"""

from __future__ import annotations

from html import escape

import numpy as np

from .._config import LEAF
from ..prune.error_based import pessimistic_errors
from .svg import cp_svg
from .text import TreeView


def pruning_record(model, view: TreeView, drawn: list[int]) -> tuple[str, dict | None]:
    """(HTML of the record, C4.5's estimates per drawn node for the details panel, or None)."""
    steps = getattr(model, "pruning_steps_", None)
    table = getattr(model, "cp_table_", None)
    pruning = getattr(model, "pruning", None)
    if steps is not None:
        return steps_html(model, steps), None
    if table is not None:
        return cp_html(model, table), None
    if pruning == "error-based":
        estimates = error_estimates(model)
        return estimates_html(model, view, estimates, drawn), {
            str(n): [view.number(v) for v in estimates[n]] for n in drawn}
    if pruning == "cost-complexity":
        return (f"<p>Cost-complexity pruning (Breiman et al. 1984) at the fixed ccp_alpha = "
                f"{escape(repr(model.ccp_alpha))}: no cross-validation, so no CP table.</p>"), None
    return f"<p>Not pruned (pruning={escape(repr(pruning))}).</p>", None


# --------------------------------------------------------------------------- validation pruning


def steps_html(model, steps) -> str:
    regression = not hasattr(model, "classes_")
    post = model.pruning == "reduced-error"
    measure = "mean squared error" if regression else "accuracy"
    if post:
        head = ("Post-pruning (reduced-error, Zhou 2016, §4.3.2): bottom-up, a subtree becomes a leaf "
                f"when that does not worsen the validation {measure}. Node numbers are those of the "
                "unpruned tree (pruning=None).")
        yes, no = "pruned", "kept"
    else:
        head = ("Pre-pruning (Zhou 2016, §4.3.1): a node is split only when the split improves the "
                f"validation {measure}. Node numbers are the fitted tree's: click a row to see it.")
        yes, no = "leaf", "split"
    if not steps:
        return f"<p>{escape(head)}</p><p>No decision: the tree grew no split to judge.</p>"
    total = next((s.n_validation for s in steps if s.node == 0), steps[0].n_validation)
    whole = total > 0 and float(total).is_integer()

    def score(v: float) -> str:  # accuracies as k/n when the validation rows are counted whole
        if regression:
            return f"{-v:.3f}"  # minus the mean squared error
        right = v * total
        if whole and abs(right - round(right)) < 1e-9:
            return f"{round(right)}/{int(total)} = {v:.3f}"
        return f"{v:.3f}"

    rows = []
    for s in steps:
        link = "" if post else f' data-node="{s.node}"'
        rows.append(f"<tr{link}><td>{s.node}</td><td>{escape(s.path or '(root)')}</td>"
                    f"<td>{s.n_validation:g}</td><td>{score(s.score_as_subtree)}</td>"
                    f"<td>{score(s.score_as_leaf)}</td><td>{yes if s.pruned else no}</td></tr>")
    sub = "as subtree" if post else "split"
    return (f"<p>{escape(head)}</p><div class=\"rw-table-scroll\"><table class=\"rw-table "
            "rw-steps\"><thead><tr><th>node</th>"
            f"<th>path</th><th>validation rows</th><th>{measure}, {sub}</th>"
            f"<th>{measure}, as leaf</th><th>decision</th></tr></thead><tbody>{''.join(rows)}"
            "</tbody></table></div>")


# --------------------------------------------------------------------------- cost-complexity


def cp_html(model, table) -> str:
    cv = getattr(model, "cv", None)
    folds = f"{cv}-fold " if isinstance(cv, (int, np.integer)) else ""
    regression = not hasattr(model, "classes_")
    head = (f"Cost-complexity pruning (Breiman et al. 1984): alpha chosen by {folds}cross-validation with "
            f"the rule {table.rule}. Each row is a subtree of the pruning sequence; the chosen one "
            "is marked.")
    rows = []
    for k in range(len(table.alpha)):
        mark = "✔" if k == table.chosen else ""
        cls = ' class="rw-chosen-row"' if k == table.chosen else ""
        rows.append(f"<tr{cls}><td>{table.alpha[k]:.5g}</td><td>{int(table.n_leaves[k])}</td>"
                    f"<td>{table.train_cost[k]:.4f}</td><td>{table.cv_error[k]:.4f}</td>"
                    f"<td>{table.cv_std_error[k]:.4f}</td><td>{mark}</td></tr>")
    return (f"<p>{escape(head)}</p>{cp_svg(table, regression)}<div class=\"rw-table-scroll\">"
            "<table class=\"rw-table rw-cp-table\">"
            "<thead><tr><th>alpha</th><th>leaves</th><th>training cost R(T)</th><th>CV error</th>"
            f"<th>standard error</th><th>chosen</th></tr></thead><tbody>{''.join(rows)}</tbody>"
            "</table></div>")


# --------------------------------------------------------------------------- C4.5 error-based


def error_estimates(model) -> dict[int, tuple[float, float, float, float]]:
    """node -> (N, E, estimated errors as a leaf, estimated errors of its subtree): N the node's
    training weight, E the weight not of its majority class, a leaf's estimate
    E + pessimistic_errors(N, E, CF)."""
    tree = model.tree_
    cf = float(model.confidence)
    n = tree.weighted_n_node_samples
    as_leaf = np.zeros(tree.node_count)
    errors = np.zeros(tree.node_count)
    for node in range(tree.node_count):
        if n[node] > 0:
            errors[node] = max(float(n[node] - tree.value[node].max()), 0.0)
            as_leaf[node] = errors[node] + pessimistic_errors(float(n[node]), errors[node], cf)
    subtree = np.where(tree.kind == LEAF, as_leaf, 0.0)
    for node in range(tree.node_count - 1, 0, -1):  # children have larger ids than parents
        subtree[tree.parent[node]] += subtree[node]
    return {i: (float(n[i]), float(errors[i]), float(as_leaf[i]), float(subtree[i]))
            for i in range(tree.node_count)}


def estimates_html(model, view: TreeView, estimates, drawn: list[int]) -> str:
    cf = float(model.confidence)
    head = (f"C4.5's error-based pruning (confidence CF = {cf:g}): a node holding N training cases, "
            "E of them not of its class, is expected to make E + U(N, E, CF) errors as a leaf, U "
            "the upper confidence limit of the binomial; a split stays when its leaves together "
            "are expected to make fewer errors than a leaf in its place (subtree raising may also "
            "have moved a branch up). Click a row to see the node.")
    tree = view.tree
    rows = []
    for node in drawn:
        big_n, e, leaf, sub = estimates[node]
        kind = "leaf" if tree.kind[node] == LEAF else "split"
        subtree = "" if kind == "leaf" else view.number(sub)
        rows.append(f'<tr data-node="{node}"><td>{node}</td><td>{kind}</td>'
                    f"<td>{view.number(big_n)}</td><td>{view.number(e)}</td>"
                    f"<td>{view.number(leaf)}</td><td>{subtree}</td></tr>")
    return (f"<p>{escape(head)}</p><div class=\"rw-table-scroll\"><table class=\"rw-table "
            "rw-estimates\"><thead><tr><th>node</th>"
            "<th>kind</th><th>N</th><th>E</th><th>estimated errors as a leaf</th>"
            f"<th>estimated errors of the subtree</th></tr></thead><tbody>{''.join(rows)}"
            "</tbody></table></div>")
