"""The size rules of growth as the estimators state them, turned into the engine's ``Policy``.

CART and ID3 count rows, as scikit-learn and rpart do (Breiman et al. 1984 stop at a node of
fewer than N_min cases): an int ``min_samples_split`` / ``min_samples_leaf`` is a number of
training rows of positive weight, whatever they weigh; a float f in (0, 1) is a fraction of the
n training rows, ceil(f n) rows for a leaf and max(2, ceil(f n)) for a split (scikit-learn's
rule). C4.5 counts weight, as J48's minNumObj does: a case with a missing value goes down every
branch with part of its weight (Quinlan 1993, ch. 3), so a branch has no whole number of cases;
a float in (0, 1) is the weight ceil(f n). ``min_weight_fraction_leaf`` (every estimator): each
branch carries at least this fraction of the total sample weight.

The engine tests a weight at every cut of every column, so a count reaches it in two ways:

    equal weights c   m rows as the weight (m - 1/2) c: k rows weigh k c, which reaches it
                      exactly when k >= m, whatever the rounding of the sums (every search)
    unequal weights   ``Policy.min_leaf_rows``, counted by the presorted columns' scans; a
                      binned column's entries (histogram bins, categories) hold weights only,
                      so there such a count of more than one row is refused

and ``min_samples_split`` always as ``Policy.min_split_rows``, counted at the node.
"""

from __future__ import annotations

import dataclasses
import math
import numbers

import numpy as np

from ._policy import Policy


def size(value, n: int, *, split: bool):
    """An int as given; a float f in (0, 1) as ceil(f n) (at least 2 for a split); any other
    float (C4.5's weights) as given."""
    if isinstance(value, numbers.Integral) or not 0.0 < value < 1.0:
        return value
    return max(2, math.ceil(value * n)) if split else math.ceil(value * n)


def resolve(policy: Policy, params: dict, w: np.ndarray, *, counts_rows: bool, any_categorical: bool,
            name: str) -> Policy:
    """``policy`` with the size rules of ``params`` (the estimator's ``min_samples_split``,
    ``min_samples_leaf``, ``min_weight_fraction_leaf``) for the training weights ``w``."""
    n = w.shape[0]
    split = size(params["min_samples_split"], n, split=True)
    leaf = size(params["min_samples_leaf"], n, split=False)
    total = float(np.sum(w))
    by_weight = float(params.get("min_weight_fraction_leaf", 0.0)) * total
    if not counts_rows:
        leaf = float(leaf)
        if total < 2.0 * leaf <= n:
            raise ValueError(
                f"{name}: sample_weight sums to {total:.3g}, less than twice min_samples_leaf "
                f"({leaf:g}): C4.5 counts the weight of the cases in min_samples_leaf, as J48 "
                f"does (a case with a missing value goes down every branch with part of its "
                f"weight), so no split could give two branches that heavy and the tree would be "
                f"one leaf. Weights normalised to sum to 1, as scikit-learn's AdaBoostClassifier "
                f"passes them, do not go with C4.5: scale them to sum to the number of rows, or "
                f"boost CARTClassifier or ID3Classifier, which count rows.")
        return dataclasses.replace(policy, min_samples_split=float(split),
                                   min_samples_leaf=max(leaf, by_weight))
    positive = w[w > 0.0]
    equal = positive.size == 0 or bool(np.all(positive == positive[0]))
    # a node of one row of positive weight is pure, so up to 2 rows the count never binds and
    # the node's rows go uncounted
    split_rows = int(split) if split > 2 else 0
    if equal:
        c = float(positive[0]) if positive.size else 1.0
        return dataclasses.replace(policy, min_samples_split=0.0, min_split_rows=split_rows,
                                   min_samples_leaf=max((leaf - 0.5) * c, by_weight),
                                   min_leaf_rows=0)
    absolute = policy.criterion == "absolute_error"  # its running medians count no rows either
    if leaf > 1 and (policy.splitter == "hist" or any_categorical or policy.numeric_as_category
                     or absolute):
        where = ("criterion='absolute_error' searches" if absolute else
                 "splitter='hist' bins the columns" if policy.splitter == "hist" and
                 not policy.numeric_as_category else "categorical columns are searched")
        raise ValueError(
            f"{name}: min_samples_leaf={params['min_samples_leaf']!r} counts rows ({leaf}), and "
            f"with unequal sample weights only a presorted continuous column's search counts "
            f"them: here {where} by the weight of each value, not its rows. Use "
            f"min_weight_fraction_leaf (a share of the weight), or equal weights, or "
            f"splitter='exact' on continuous columns.")
    # a side of positive weight holds a row: one row each side needs no count
    return dataclasses.replace(policy, min_samples_split=0.0, min_split_rows=split_rows,
                               min_samples_leaf=by_weight, min_leaf_rows=int(leaf) if leaf > 1 else 0)
