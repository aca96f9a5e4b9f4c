"""``monotonic_cst`` checked and resolved to one constraint per column, in scikit-learn's words.

The parameter is scikit-learn's (``DecisionTreeClassifier`` / ``Regressor``, and a dict by
column name as its histogram gradient boosting takes): -1, 0 or 1 per column, the prediction
may only fall, is free, may only rise as the column's value grows. For a classifier the
prediction is the probability of the second class of ``classes_`` (the positive class of a
binary problem); more classes are refused. A categorical column has no order to be monotonic in,
so it cannot be constrained.
"""

from __future__ import annotations

import numpy as np


def resolve(monotonic_cst, feature_names, fitted_names, categorical, n_classes, caller) -> tuple:
    """The constraints as a tuple of ints, one per column (() for None or all zeros).
    ``feature_names``: the schema's column names (messages); ``fitted_names``: the input's own
    names (None for an array: a dict is then refused, as scikit-learn does); ``categorical``:
    a bool per column; ``n_classes``: 0 for a regressor."""
    if monotonic_cst is None:
        return ()
    d = len(feature_names)
    if isinstance(monotonic_cst, dict):
        cst = _from_dict(monotonic_cst, fitted_names, caller)
    else:
        cst = np.asarray(monotonic_cst)
        if cst.ndim != 1 or cst.shape[0] != d:
            shape = cst.shape[0] if cst.ndim else cst.shape
            raise ValueError(f"monotonic_cst has shape {shape} but the input data X has {d} "
                             f"features.")
        if not np.all(np.isin(cst, (-1, 0, 1))):
            raise ValueError(f"monotonic_cst must be None or an array-like of -1, 0 or 1, but got "
                             f"{np.unique(cst)}")
        cst = [int(c) for c in cst]
    if n_classes > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass "
                         "classification")
    for j, c in enumerate(cst):
        if c != 0 and categorical[j]:
            raise ValueError(f"{caller}: monotonic_cst constrains column {feature_names[j]!r}, "
                             f"which is categorical: its categories have no order to be "
                             f"monotonic in. Give it 0, or pass the column as numbers.")
    return tuple(cst) if any(cst) else ()


def _from_dict(monotonic_cst: dict, fitted_names, caller) -> list:
    if fitted_names is None:
        raise ValueError(f"{caller} was not fitted on data with feature names. Pass "
                         f"monotonic_cst as an integer array instead.")
    names = [str(n) for n in fitted_names]
    unexpected = sorted(set(monotonic_cst) - set(names), key=str)
    if unexpected:
        n = len(unexpected)
        shown = unexpected[:5] + (["..."] if n > 5 else [])
        raise ValueError(f"monotonic_cst contains {n} unexpected feature names: {shown}.")
    cst = [0] * len(names)
    for j, name in enumerate(names):
        if name in monotonic_cst:
            c = monotonic_cst[name]
            if isinstance(c, bool) or c not in (-1, 0, 1):
                raise ValueError(f"monotonic_cst['{name}'] must be either -1, 0 or 1. Got {c!r}.")
            cst[j] = int(c)
    return cst
