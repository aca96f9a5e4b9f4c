"""A loss matrix for cost-sensitive classification (Breiman et al. 1984, §4.4; Therneau and
Atkinson, "An Introduction to Recursive Partitioning Using the RPART Routines", §4), as R's rpart
takes it in ``parms = list(loss = L)``.

L[i, j] >= 0 is the cost of predicting class j when the truth is class i; L[i, i] = 0. It acts in
three places:

- the splits: the priors are altered to pi'_i = pi_i sum_j L[i, j] / sum_k pi_k sum_j L[k, j]
  (pi_i: the observed share of class i), so that the Gini criterion sees each row of class i with
  the weight c_i = pi'_i / pi_i, scaled so that the weights still sum to W;
- the class of a node: the one of least expected loss, argmin_j sum_i w_i(t) L[i, j];
- the node's risk R(t) = min_j sum_i w_i(t) L[i, j] / W, the cost of cost-complexity pruning
  (the cp table is in loss units) and of its cross-validation, where a held-out row of class i
  predicted j costs L[i, j].
"""

from __future__ import annotations

import numbers

import numpy as np


def check_loss(loss, classes: np.ndarray, name: str = "loss") -> np.ndarray:
    """``loss`` as a K x K float matrix in the order of ``classes``: a K x K array-like (rows: the
    true class, columns: the predicted one, both in ``classes`` order) or a dict of dicts
    ``{truth: {prediction: cost}}`` whose missing off-diagonal entries cost 1 (rpart's default)."""
    k = len(classes)
    if isinstance(loss, dict):
        matrix = _from_dict(loss, classes, name)
    else:
        try:
            matrix = np.array(loss, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a {k} x {k} matrix of numbers (one row and one column "
                             f"per class, in the order {_shown(classes)}) or a dict "
                             f"{{true class: {{predicted class: cost}}}}.") from None
        if matrix.shape != (k, k):
            raise ValueError(f"{name} must be a {k} x {k} matrix (y has {k} classes: "
                             f"{_shown(classes)}), got shape {matrix.shape}.")
    labels = classes.tolist()
    bad = ~np.isfinite(matrix) | (matrix < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f"{name}[{labels[i]!r}, {labels[j]!r}] must be a finite number >= 0, "
                         f"got {float(matrix[i, j])!r}.")
    off = np.flatnonzero(np.diag(matrix) != 0)
    if len(off):
        c = labels[off[0]]
        raise ValueError(f"{name}[{c!r}, {c!r}] must be 0 (predicting the true class costs "
                         f"nothing), got {float(matrix[off[0], off[0]])!r}.")
    return matrix


def _from_dict(loss: dict, classes: np.ndarray, name: str) -> np.ndarray:
    k = len(classes)
    index = {label: i for i, label in enumerate(classes.tolist())}
    matrix = 1.0 - np.eye(k)

    def position(label, what):
        i = index.get(label.item() if isinstance(label, np.generic) else label)
        if i is None:
            raise ValueError(f"{name} names the {what} class {label!r}, which y does not hold "
                             f"(its classes: {_shown(classes)}).")
        return i

    for truth, row in loss.items():
        i = position(truth, "true")
        if not isinstance(row, dict):
            raise ValueError(f"{name}[{truth!r}] must be a dict {{predicted class: cost}}, got "
                             f"{type(row).__name__}.")
        for pred, cost in row.items():
            j = position(pred, "predicted")
            if isinstance(cost, bool) or not isinstance(cost, numbers.Real):
                raise ValueError(f"{name}[{truth!r}][{pred!r}] must be a number, got {cost!r}.")
            matrix[i, j] = float(cost)
    return matrix


def _shown(classes: np.ndarray) -> str:
    return ", ".join(map(repr, classes.tolist()[:12])) + (", ..." if len(classes) > 12 else "")


def prior_weights(matrix: np.ndarray, class_totals: np.ndarray, classes: np.ndarray,
                  name: str = "loss") -> np.ndarray:
    """c_i, the weight of a row of class i under the altered priors: proportional to the row sum
    r_i = sum_j L[i, j], scaled so that sum_i W_i c_i = sum_i W_i (``class_totals``: W_i)."""
    r = matrix.sum(axis=1)
    present = class_totals > 0
    free = np.flatnonzero(present & (r == 0))
    if len(free):
        raise ValueError(f"{name}: every cost in the row of class {classes.tolist()[free[0]]!r} is 0, so "
                         f"its altered prior is 0 and its rows would weigh nothing in the splits; "
                         f"give misclassifying it a positive cost.")
    total = float(class_totals.sum())
    scale = float(np.dot(class_totals, r))
    return r * (total / scale) if scale > 0 else np.ones(len(r))


def expected_loss(counts: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Per row of ``counts`` (class weights or probabilities), the expected loss of predicting
    each class j: sum_i counts[i] L[i, j]."""
    return counts @ matrix


def least_loss_class(counts: np.ndarray, matrix: np.ndarray,
                     priority: np.ndarray | None) -> np.ndarray:
    """Per row of ``counts``, the index of the class of least expected loss; on a tie (to a relative
    1e-12, sums taken in another order), the first in ``priority`` (None: the lowest index)."""
    e = expected_loss(counts, matrix)
    order = np.arange(matrix.shape[0]) if priority is None else priority
    e = e[:, order]
    low = e.min(axis=1, keepdims=True)
    tied = e <= low + 1e-12 * np.abs(low)
    return order[np.argmax(tied, axis=1)]


def risk(counts: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Per row of ``counts``, the least expected loss min_j sum_i counts[i] L[i, j]."""
    return expected_loss(counts, matrix).min(axis=1)


class LossCost:
    """The cost of cost-complexity pruning under a loss matrix, read from a tree grown with the
    altered priors: its class weights ``value`` are divided by the prior weights ``c`` first."""

    def __init__(self, matrix: np.ndarray, c: np.ndarray, whole: bool = False):
        self.matrix, self.c, self.whole = matrix, c, whole

    def counts(self, value: np.ndarray) -> np.ndarray:
        """The class weights without the altered priors; whole numbers again when every row's
        own weight is (``whole``), so that a split that does not lower the risk has a gain of
        exactly 0 in pruning, as in rpart."""
        out = np.divide(value, self.c, out=np.zeros_like(value), where=self.c > 0)
        return np.rint(out) if self.whole else out

    def node_risk(self, value: np.ndarray) -> np.ndarray:
        return risk(self.counts(value), self.matrix)

    def __repr__(self) -> str:
        return "loss"
