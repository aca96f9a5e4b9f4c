"""The textbook view: for one node, every candidate attribute with the textbook's measures.

    Ent(D)      = -sum_k p_k log2 p_k                        (Zhou 2016, §4.2.1)
    Ent(D|a)    = sum_v |D^v|/|D| Ent(D^v)                   (conditional entropy, Li Hang 2012)
    Gain(D, a)  = rho * (Ent(D~) - Ent(D~|a))                (rho = 1 without missing cells)
    IV(a)       = -sum_v |D^v|/|D| log2 |D^v|/|D|            (intrinsic value, Zhou 2016, §4.2.2)
    Gain_ratio  = Gain / IV
    Gini(D)     = 1 - sum_k p_k^2; Gini_index(D, a) = sum_v |D^v|/|D| Gini(D^v)   (Breiman et al. 1984)

Entropies and Gini are those of D~, the rows of the node whose value of the attribute is known,
and of its branches. A continuous attribute is shown with its best threshold (Zhou 2016, §4.4.1: the
midpoint with the largest gain) and its two branches. The rows of a node carry the weights they
have there: C4.5 sends a row whose tested value is missing down every branch with weight w * r_v
(Zhou 2016, §4.4.2); ``node_weights`` lists them.

For a regressor (CART's squared error, Breiman et al. 1984) the table has the squared-error measures
instead, over D~ with weights w:

    MSE(D)      = sum w (y - mean)^2 / w(D)
    MSE(D|a)    = sum_v w(D^v)/w(D) MSE(D^v)
    decrease    = rho * (MSE(D~) - MSE(D~|a))                (what CART maximises)

The numbers come from the same splitter that grows the tree, so the table shows what chose the
split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import _layout
from ._base import clone
from ._config import CATEGORICAL, ENTROPY, GINI, MISSING_FRACTIONAL, MULTIWAY, THRESHOLD
from .engine.criteria import conditional_impurity, entropy, gini, intrinsic_value, parent_counts
from .engine.stats import category_table, regression_table
from .input.target import check_sample_weight, encode_fit_target
from .reference.splitter import NodeData
from .reference.splitters import make_splitter

if TYPE_CHECKING:  # pandas is imported where a table is made, not with rootwise
    import pandas as pd

    from ._typing import Labels, Model, Table, Weights

COLUMNS = ["attribute", "n_branches", "entropy", "conditional_entropy", "gain", "rho",
           "intrinsic_value", "gain_ratio", "gini", "gini_index", "chosen"]
REGRESSION_COLUMNS = ["attribute", "n_branches", "threshold", "mse", "conditional_mse", "rho",
                      "mse_decrease", "admissible", "chosen"]


def explain(X: Table, y: Labels, model: Model | None = None, *, node: int = 0,
            sample_weight: Weights = None) -> pd.DataFrame:
    """Table of every candidate attribute at ``node`` (one row each, in column order).

    ``model`` is an estimator; None chooses the tree the target asks for, as the command line
    does (``rootwise.choose``: ``CARTRegressor()`` for a numeric target with fractions or more
    than 10 distinct whole numbers, else ``CARTClassifier()``). Unfitted, it is fitted on (X, y)
    first so that the table matches the tree it would grow; fitted, ``X, y`` must be its
    training data and any node of its tree can be explained. The ``chosen`` column marks the attribute the
    node's test uses (all False at a leaf).

    Models with thresholds (C4.5, CART) add ``threshold``: a continuous attribute's best cut
    (x <= threshold | x > threshold), NaN for a categorical one. Models that select by gain ratio
    (C4.5) add ``above_average``: whether the gain reaches the average gain of the candidates
    that may split the node (Zhou 2016, §4.2.2); the average is in ``table.attrs["average_gain"]``.
    Models with thresholds also add ``admissible``: whether the test leaves enough weight in its
    branches (``min_samples_leaf``; C4.5: in at least two of them). Only admissible tests count
    in the average and can be chosen.
    ``C45Classifier(release8=True)`` also shows ``midpoint`` (the cut before it is moved down to
    a training value) and ``mdl_penalty`` (log2(cuts)/|D|, already taken off ``gain``); its
    ``intrinsic_value`` counts unknown values as a branch, as release 8 does.

    A regressor (``CARTRegressor``) gets ``REGRESSION_COLUMNS``: each attribute's best test with
    the mean squared error of the node, its weighted mean over the branches and their decrease
    (what CART maximises), over the rows whose value is known.

    ``table.attrs`` also holds ``node``, ``n_rows`` (rows with weight at the node) and ``weight``
    (their total weight), and at a split node ``rule_choice``: the attribute the selection rule
    picks on these rows. In a pruned C4.5 tree they can differ: subtree raising puts a branch's
    test, chosen on that branch's rows, in its parent's place (``format_table`` then adds a
    note); explain a ``pruning=None`` model to see the choices of growth alone.
    """
    if model is None:  # the tree the target asks for, as the command line chooses it
        from .choose import default_estimator

        model = default_estimator(y)
    if not hasattr(model, "tree_"):
        model = clone(model).fit(X, y, sample_weight=sample_weight)
    tree = model.tree_
    _check_node(tree, node)
    Xe, w = _training_matrix(model, X, sample_weight)
    regression = not hasattr(model, "classes_")
    if regression:
        classes = np.zeros(0)
        yc = encode_fit_target(y, Xe.shape[0], regression=True)[1]
    else:
        classes = np.asarray(model.classes_)
        yc = _recode(y, classes)
    if len(yc) != Xe.shape[0]:
        # the kernels index y by row number without bounds checks
        raise ValueError(f"X and y have different numbers of rows: {Xe.shape[0]} and {len(yc)}.")
    policy = model._policy()
    rows, weights = _weights_at_node(tree, Xe, w, node, policy)
    data = NodeData(rows, weights)

    # a multiway test uses its attribute up on the path below it
    available = np.ones(Xe.shape[1], dtype=bool)
    for a in _ancestors(tree, node):
        if tree.kind[a] == MULTIWAY:
            available[int(tree.feature[a])] = False

    schema = model.schema_
    splitter = make_splitter(Xe, yc, schema.kinds_array, schema.n_categories, len(classes), policy)
    by_ratio = policy.selection == "gain_ratio"
    chosen = int(tree.feature[node])
    features = [int(j) for j in np.flatnonzero(available)]
    candidates = {j: splitter.evaluate_feature(data, j) for j in features}
    found = [c for c in candidates.values() if c is not None]
    average = splitter.average_gain(found) if by_ratio else None

    out = []
    for j in features:
        cand = candidates[j]
        if regression:
            out.append(_regression_row(Xe, yc, data, schema, j, cand, j == chosen))
            continue
        if cand is not None:
            known = cand.table
        elif schema.kinds_array[j] == CATEGORICAL:
            k = int(schema.n_categories[j])
            known = category_table(Xe, j, yc, data.idx, data.w, k, len(classes))[:k]
        else:  # a continuous attribute without an admissible cut: its known rows, unsplit
            x = Xe[data.idx, j]
            keep = ~np.isnan(x)
            known = np.zeros((1, len(classes)))
            np.add.at(known[0], yc[data.idx[keep]], data.w[keep])
        h = entropy(parent_counts(known))
        h_cond = conditional_impurity(known, ENTROPY)
        if cand is not None and policy.criterion == "entropy":
            gain, rho, iv, ratio = cand.gain, cand.rho, cand.iv, cand.gain_ratio
        else:  # the entropy measures of the test, whatever criterion chose it
            total = float(data.w.sum())
            rho = float(known.sum()) / total if total > 0 else 0.0
            gain = max(rho * (h - h_cond), 0.0)
            iv = intrinsic_value(np.ascontiguousarray(known))  # the layout the kernels use
            ratio = gain / iv if iv > 0 else 0.0
        row = {
            "attribute": schema.feature_names[j],
            "n_branches": int(np.count_nonzero(known.sum(axis=1) > 0)) if cand is not None
            or schema.kinds_array[j] == CATEGORICAL else 0,
            "threshold": cand.threshold if cand is not None and cand.kind == THRESHOLD else np.nan,
            "midpoint": getattr(cand, "midpoint", np.nan) if cand is not None else np.nan,
            "entropy": h,
            "conditional_entropy": h_cond,
            "gain": gain,
            "mdl_penalty": getattr(cand, "mdl_penalty", 0.0) if cand is not None else 0.0,
            "rho": rho,
            "intrinsic_value": iv,
            "gain_ratio": ratio,
            "above_average": cand is not None and splitter.above_average(cand, average),
            "admissible": cand is not None and bool(cand.admissible),
            "gini": gini(parent_counts(known)),
            "gini_index": conditional_impurity(known, GINI),
            "chosen": j == chosen,
        }
        out.append(row)

    columns = REGRESSION_COLUMNS if regression else _classification_columns(policy)
    import pandas as pd  # the table is a DataFrame; imported here, not with rootwise

    table = pd.DataFrame(out, columns=columns)
    if by_ratio:
        table.attrs["average_gain"] = average
    table.attrs.update(node=int(node), n_rows=len(rows), weight=float(weights.sum()))
    if chosen >= 0:
        # after subtree raising a node's test was chosen on other rows: say so when the rule
        # would pick another attribute on the rows the node holds now
        pick, _ = splitter.select(found)
        table.attrs["rule_choice"] = None if pick is None else schema.feature_names[pick.feature]
    return table


def _classification_columns(policy) -> list[str]:
    columns = list(COLUMNS)
    thresholds = not policy.numeric_as_category
    if thresholds:
        columns.insert(columns.index("n_branches") + 1, "threshold")
        if policy.release8:
            columns.insert(columns.index("threshold") + 1, "midpoint")
    if policy.release8:
        columns.insert(columns.index("gain") + 1, "mdl_penalty")
    if policy.selection == "gain_ratio":
        columns.insert(columns.index("gain_ratio") + 1, "above_average")
    if thresholds:
        columns.insert(columns.index("chosen"), "admissible")
    return columns


def _regression_row(Xe, y, data, schema, j: int, cand, chosen: bool) -> dict:
    """One attribute's squared-error measures at a node, from the (w, wy, wy^2) sums of its
    branches over the rows whose value is known (the candidate's, or the known rows unsplit)."""
    categorical = schema.kinds_array[j] == CATEGORICAL
    if cand is not None:
        known = cand.table
    elif categorical:
        k = int(schema.n_categories[j])
        known = regression_table(Xe, j, y, data.idx, data.w, k)[:k]
    else:  # a continuous attribute without an admissible cut: its known rows, unsplit
        x = Xe[data.idx, j]
        keep = ~np.isnan(x)
        ww, yy = data.w[keep], y[data.idx[keep]]
        known = np.array([[ww.sum(), (ww * yy).sum(), (ww * yy * yy).sum()]])
    bw, bs, bq = known[:, 0], known[:, 1], known[:, 2]
    total = float(bw.sum())
    mse = conditional = 0.0
    if total > 0:
        mse = float(bq.sum() - bs.sum() ** 2 / total) / total
        conditional = float(sum(bq[v] - bs[v] ** 2 / bw[v] for v in range(len(bw)) if bw[v] > 0)) / total
    node_w = float(data.w.sum())
    return {
        "attribute": schema.feature_names[j],
        "n_branches": int(np.count_nonzero(bw > 0)) if cand is not None or categorical else 0,
        "threshold": cand.threshold if cand is not None and cand.kind == THRESHOLD else np.nan,
        "mse": mse,
        "conditional_mse": conditional,
        "rho": total / node_w if node_w > 0 else 0.0,
        "mse_decrease": cand.gain if cand is not None else 0.0,
        "admissible": cand is not None and bool(cand.admissible),
        "chosen": chosen,
    }


def node_weights(X: Table, model: Model, *, node: int = 0, sample_weight: Weights = None) -> pd.Series:
    """The training rows at ``node`` of a fitted tree and their weights there, indexed by the rows'
    labels in ``X`` (row numbers for arrays), in row order; rows with no weight left out.

    A row whose tested value is missing at a C4.5 split goes down every branch with weight
    w * r_v (Zhou 2016, §4.4.2), so it appears under each branch with its fraction: on watermelon 2.0α
    row 8 (纹理 missing) enters the 清晰 / 稍糊 / 模糊 branches with weights 7/15, 5/15, 3/15."""
    tree = model.tree_
    _check_node(tree, node)
    Xe, w = _training_matrix(model, X, sample_weight)
    rows, weights = _weights_at_node(tree, Xe, w, node, model._policy())
    import pandas as pd  # the answer is a Series; imported here, not with rootwise

    index = X.index[rows] if isinstance(X, pd.DataFrame) else pd.Index(rows)
    return pd.Series(weights, index=index, name="weight")


def _check_node(tree, node) -> None:
    if (not isinstance(node, (int, np.integer)) or isinstance(node, bool)
            or not 0 <= node < tree.node_count):
        raise ValueError(f"node must be an integer in [0, {tree.node_count - 1}], got {node!r}.")


def _training_matrix(model, X, sample_weight) -> tuple[np.ndarray, np.ndarray]:
    Xe = model._encode(X)
    # UNSEEN_CODE in a categorical column: the category tables have no row for such a value
    unseen = (Xe < 0) & (model.schema_.kinds_array == CATEGORICAL)
    if unseen.any():
        j = int(np.flatnonzero(unseen.any(axis=0))[0])
        raise ValueError(
            f"explain needs the model's training data: column {model.schema_.feature_names[j]!r} "
            f"holds a value never seen in training (row {int(np.flatnonzero(unseen[:, j])[0])})."
        )
    return Xe, check_sample_weight(sample_weight, Xe.shape[0])


def _weights_at_node(tree, Xe, w, node: int, policy) -> tuple[np.ndarray, np.ndarray]:
    """(row positions, weights) of the training rows at ``node``, those with positive weight.

    Without fractional splits on the way, a row is at the node when its walk ends in the node's
    subtree. Through a C4.5 split, a row with the tested value missing goes on with weight
    w * r_v (the tree's ``branch_fraction``; release 8 drops r_v <= 1e-6, as J48).

    Both take time linear in the rows' paths (as one ``predict``) and memory linear in the rows
    and nodes: a tree 10^4 levels deep must not need a rows x depth table."""
    path = [*reversed(_ancestors(tree, node)), node]
    if not any(tree.missing_branch[a] == MISSING_FRACTIONAL for a in path[:-1]):
        rows = np.flatnonzero(_subtree_mask(tree, node)[tree.apply(Xe)])
        keep = w[rows] > 0
        return rows[keep], w[rows][keep].astype(np.float64)
    rows = np.flatnonzero(np.asarray(w) > 0)
    weights = np.asarray(w, dtype=np.float64)[rows]
    for a, c in zip(path[:-1], path[1:], strict=True):  # only the rows still on the way
        slot = c - int(tree.first_child[a])
        x = Xe[rows, int(tree.feature[a])]
        known = ~np.isnan(x)
        branch = np.full(len(x), -1, dtype=np.int64)
        if tree.kind[a] == THRESHOLD:
            branch[known] = np.where(x[known] <= tree.threshold[a], 0, 1)
        else:
            codes = x[known].astype(np.int64)
            pool = tree.branch_of_category(a)
            ok = (codes >= 0) & (codes < len(pool))
            b = np.full(len(codes), -1, dtype=np.int64)
            b[ok] = pool[codes[ok]]
            branch[known] = b
        factor = (branch == slot).astype(np.float64)
        if tree.missing_branch[a] == MISSING_FRACTIONAL:
            r = float(tree.branch_fraction[c])
            factor[~known] = r if r > (1e-6 if policy.release8 else 0.0) else 0.0
        else:
            factor[~known] = float(tree.missing_branch[a] == slot)
        weights = weights * factor
        on = weights > 0
        rows, weights = rows[on], weights[on]
    return rows.astype(np.int64), weights


def _subtree_mask(tree, node: int) -> np.ndarray:
    """Per node of the tree: whether it is ``node`` or below it. Level by level, without
    recursion (children come after their parent, consecutively)."""
    inside = np.zeros(tree.node_count, dtype=bool)
    if node == 0:
        inside[:] = True
        return inside
    inside[node] = True
    level = np.array([node], dtype=np.int64)
    while len(level):
        count = tree.n_children[level].astype(np.int64)
        first = tree.first_child[level].astype(np.int64)
        starts = np.cumsum(count) - count
        level = np.repeat(first - starts, count) + np.arange(int(count.sum()))
        inside[level] = True
    return inside


def _recode(y, classes) -> np.ndarray:
    """Class labels -> codes of a fitted model's ``classes_``; unknown labels are an error."""
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y, dtype=object).ravel()
    index = {c: i for i, c in enumerate(classes.tolist())}
    try:
        return np.array([index[v] for v in y], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"y holds the label {e.args[0]!r}, which the model never saw.") from None


def _ancestors(tree, node: int) -> list[int]:
    out = []
    while tree.parent[node] >= 0:
        node = int(tree.parent[node])
        out.append(node)
    return out


def format_table(table: pd.DataFrame, digits: int = 3, width: int | None = None) -> str:
    """The table as aligned text, numbers rounded to ``digits`` as the textbooks print them; thresholds
    in full (up to 6 significant digits), and for C4.5 a last line with the average gain.
    ``width``: a table wider than that many columns is cut into blocks of whole columns, one
    under the other, each starting with the attribute names (the notes below wrap); None
    (default) keeps every line whole."""
    if isinstance(digits, (bool, np.bool_)) or not isinstance(digits, (int, np.integer)) or digits < 0:
        raise ValueError(f"format_table: digits must be an integer >= 0, got {digits!r}.")
    digits = int(digits)
    shown = table.copy()
    shown["chosen"] = np.where(shown["chosen"], "<-", "")
    for col in ("threshold", "midpoint"):
        if col in shown:
            shown[col] = [("" if np.isnan(v) else f"{v:.6g}") for v in shown[col]]
    for col in ("above_average", "admissible"):
        if col in shown:
            shown[col] = np.where(shown[col], "yes", "no")
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.{digits}f}")
    if width is not None and max(map(_layout.width, text.splitlines())) > width:
        cells = [[str(c) for c in shown.columns]]
        for row in shown.itertuples(index=False):
            cells.append([f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row])
        text = _layout.table(cells, right=set(range(1, len(shown.columns))), limit=width)
    average = table.attrs.get("average_gain", False)
    if average is not False:
        text += "\naverage gain: " + ("-" if average is None else f"{average:.{digits}f}") + \
            " (gain ratio decides among the candidates whose gain reaches it)"
    rule = table.attrs.get("rule_choice")
    tested = table.loc[table["chosen"], "attribute"].tolist()
    if rule is not None and tested and rule != tested[0]:
        text += (f"\nnote: on these rows the rule picks {rule}; the node tests {tested[0]}, "
                 "chosen on other rows (subtree raising moved it here)")
    if width is not None:
        text = "\n".join(wrapped for line in text.splitlines()
                         for wrapped in _layout.wrap(line, width, "", "  "))
    return text
