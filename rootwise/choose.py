"""Which tree a target asks for when none is named: the command line's default and
``explain(X, y)`` without a model.

rpart chooses its method from the response (Therneau and Atkinson, rpart's ``method``): a
factor gets a classification tree, a number a regression tree. A table read from a file holds
class codes as numbers too (0/1, 1..7), so whole numbers count as class codes while they are
few:

    regression      the target's type is numeric (not boolean) and it holds a number with a
                    fractional part (24.5), or more than MAX_CLASS_CODES distinct whole numbers
    classification  anything else: text, categories (an ARFF nominal attribute), booleans, or
                    at most MAX_CLASS_CODES distinct whole numbers

Missing values are left out of the count. The choice is ``CARTRegressor`` or ``CARTClassifier``
(CART: binary splits, surrogate splits for missing values, cost-complexity pruning; Breiman et
al. 1984), each with its defaults.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# a target of whole numbers with more distinct values than this is a quantity, not class codes
MAX_CLASS_CODES = 10


class Choice(NamedTuple):
    regression: bool
    # what the target holds: "fractions", "many whole numbers", "class codes", "categories",
    # "booleans" or "text"
    kind: str
    reason: str  # why, in a few words, for a note to the user ("holds fractions such as 24.5")


def target_kind(y) -> Choice:
    """Whether ``y`` (a pandas Series, array or list) is a regression target under the rule of
    this module, and why."""
    dtype = getattr(y, "dtype", None)
    if dtype is not None and getattr(dtype, "name", "") == "category":
        return Choice(False, "categories", "is categorical")
    values = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if values.dtype.kind == "b":
        return Choice(False, "booleans", "holds true / false values")
    if values.dtype.kind == "O":
        known = [v for v in values.ravel() if not _is_missing(v)]
        if not all(_is_number(v) for v in known):
            return Choice(False, "text", "holds text")
        values = np.asarray(known, dtype=np.float64)
    if values.dtype.kind not in "iuf":
        return Choice(False, "text", "holds text")
    values = values.ravel().astype(np.float64)
    values = values[np.isfinite(values)]
    fractional = values[values != np.trunc(values)]
    if len(fractional):
        return Choice(True, "fractions",
                      f"holds numbers with fractions, such as {_number(fractional[0])}")
    distinct = len(np.unique(values))
    if distinct > MAX_CLASS_CODES:
        return Choice(True, "many whole numbers",
                      f"holds {distinct} distinct whole numbers (more than {MAX_CLASS_CODES})")
    numbers = "number" if distinct == 1 else "numbers"
    return Choice(False, "class codes",
                  f"holds {distinct} distinct whole {numbers} (at most {MAX_CLASS_CODES}: class codes)")


def default_estimator(y, **params):
    """``CARTRegressor(**params)`` for a regression target, else ``CARTClassifier(**params)``
    (the rule is in this module's docstring)."""
    from .estimators import CARTClassifier, CARTRegressor

    return (CARTRegressor if target_kind(y).regression else CARTClassifier)(**params)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, (float, np.floating)) and v != v) or \
        type(v).__name__ in ("NAType", "NaTType")


def _number(v: float) -> str:
    return f"{v:.6g}"
