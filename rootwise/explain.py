"""The textbook view: for one node, every candidate attribute with the seeds' measures.

    Ent(D)      = -sum_k p_k log2 p_k                        (seed 000 §2.1)
    Ent(D|a)    = sum_v |D^v|/|D| Ent(D^v)                   (conditional entropy, seed 002 (5))
    Gain(D, a)  = rho * (Ent(D~) - Ent(D~|a))                (rho = 1 without missing cells)
    IV(a)       = -sum_v |D^v|/|D| log2 |D^v|/|D|            (intrinsic value, seed 000 §2.2)
    Gain_ratio  = Gain / IV
    Gini(D)     = 1 - sum_k p_k^2; Gini_index(D, a) = sum_v |D^v|/|D| Gini(D^v)   (seed 001 §2.1)

The numbers come from the same kernels that grow the tree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from . import _encoding as enc
from ._config import CATEGORICAL, ENTROPY, GINI
from ._core.criteria import conditional_impurity, entropy, gini, intrinsic_value, parent_counts
from ._core.stats import category_table
from ._splitter import NodeData

COLUMNS = ["attribute", "n_branches", "entropy", "conditional_entropy", "gain", "rho",
           "intrinsic_value", "gain_ratio", "gini", "gini_index", "chosen"]


def explain(X, y, model=None, *, node: int = 0, sample_weight=None) -> pd.DataFrame:
    """Table of every candidate attribute at ``node`` (one row each, in column order).

    ``model`` is an estimator (default: ``ID3Classifier()``). Unfitted, it is fitted on (X, y) first
    so that the table matches the tree it would grow; fitted, ``X, y`` must be its training data
    and any node of its tree can be explained. The ``chosen`` column marks the attribute the
    node's test uses (all False at a leaf).
    """
    if model is None:
        from .estimators import ID3Classifier

        model = ID3Classifier()
    if not hasattr(model, "tree_"):
        model = clone(model).fit(X, y, sample_weight=sample_weight)
    tree = model.tree_
    if (not isinstance(node, (int, np.integer)) or isinstance(node, bool)
            or not 0 <= node < tree.node_count):
        raise ValueError(f"node must be an integer in [0, {tree.node_count - 1}], got {node!r}.")

    Xe = model._encode(X)
    # UNSEEN_CODE in a categorical column: the category tables have no row for such a value
    unseen = (Xe < 0) & (model.schema_.kinds_array == CATEGORICAL)
    if unseen.any():
        j = int(np.flatnonzero(unseen.any(axis=0))[0])
        raise ValueError(
            f"explain needs the model's training data: column {model.schema_.feature_names[j]!r} "
            f"holds a value never seen in training (row {int(np.flatnonzero(unseen[:, j])[0])})."
        )
    classes = np.asarray(model.classes_)
    yc = _recode(y, classes)
    if len(yc) != Xe.shape[0]:
        # the kernels index y by row number without bounds checks
        raise ValueError(f"X and y have different numbers of rows: {Xe.shape[0]} and {len(yc)}.")
    w = enc.check_sample_weight(sample_weight, Xe.shape[0])
    rows = tree.decision_path(Xe)[:, node].nonzero()[0].astype(np.int64)
    data = NodeData(rows, w[rows])

    ancestors = _ancestors(tree, node)
    policy = model._policy()
    available = np.ones(Xe.shape[1], dtype=bool)
    if not policy.reuse_categorical:
        available[[int(tree.feature[a]) for a in ancestors]] = False

    schema = model.schema_
    n_classes = len(classes)
    chosen = int(tree.feature[node])
    out = []
    for j in np.flatnonzero(available):
        k = int(schema.n_categories[j])
        table = category_table(Xe, int(j), yc, data.idx, data.w, k, n_classes)
        known = table[:k]
        total = table.sum()
        rho = known.sum() / total if total > 0 else 0.0
        h = entropy(parent_counts(known))
        h_cond = conditional_impurity(known, ENTROPY)
        gain = max(rho * (h - h_cond), 0.0)
        iv = intrinsic_value(known)
        out.append({
            "attribute": schema.feature_names[j],
            "n_branches": int(np.count_nonzero(known.sum(axis=1) > 0)),
            "entropy": h,
            "conditional_entropy": h_cond,
            "gain": gain,
            "rho": rho,
            "intrinsic_value": iv,
            "gain_ratio": gain / iv if iv > 0 else 0.0,
            "gini": gini(parent_counts(known)),
            "gini_index": conditional_impurity(known, GINI),
            "chosen": int(j) == chosen,
        })
    return pd.DataFrame(out, columns=COLUMNS)


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


def format_table(table: pd.DataFrame, digits: int = 3) -> str:
    """The table as aligned text, numbers rounded to ``digits`` as the seeds print them."""
    shown = table.copy()
    shown["chosen"] = np.where(shown["chosen"], "<-", "")
    return shown.to_string(index=False, float_format=lambda v: f"{v:.{digits}f}")
