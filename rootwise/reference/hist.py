"""The reference of ``splitter="hist"``: the exact reference builder run on a *coded* matrix in
which every value of a continuous column is replaced by a number standing for its bin
(``_SIDON``), then each threshold mapped back to real values. Bins are then the only distinct
values the exact builder sees, so it searches exactly the hist splits.

The bin stand-ins form a Sidon set (every pair has its own sum: v_b = 2 p b + (b^2 mod p), p prime,
Erdos-Turan), ascending in b. A threshold of the coded matrix, midpoint(v_a, v_b), is then exact in
float64 and names its pair of bins (a, b) -- the two bins present at the node on either side of the
cut -- which the real threshold midpoint(max of bin a, min of bin b) needs.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._config import THRESHOLD
from .._policy import Policy
from ..engine.hist import Bins, make_bins
from ..engine.thresholds import midpoint
from .builder import build_tree_with_report

_P = 257  # the prime of the Sidon set: one stand-in per possible bin (at most 256 codes)
_SIDON = np.array([2 * _P * b + (b * b) % _P for b in range(_P - 1)], dtype=np.float64)


def coded(X: np.ndarray, bins: Bins) -> np.ndarray:
    """X with every continuous value replaced by its bin's stand-in (``_SIDON``); NaN and the
    categorical columns unchanged. Values outside the training range fall in the end bins."""
    out = np.array(X, dtype=np.float64, copy=True)
    for j in np.flatnonzero(~bins.categorical):
        col = out[:, j]
        known = ~np.isnan(col)
        # bins.bin_of: the number of edges upper[0..nb - 2] below the value
        edges = bins.upper[j, :max(int(bins.n_bins[j]) - 1, 0)]
        col[known] = _SIDON[np.searchsorted(edges, col[known], side="left")]
    return out


def _pair_of_midpoints() -> dict:
    """midpoint(v_a, v_b) -> (a, b) for every pair a < b (``numeric.midpoint``: a/2 + b/2, exact
    here since the stand-ins are integers)."""
    a, b = np.triu_indices(len(_SIDON), k=1)
    mids = _SIDON[a] / 2.0 + _SIDON[b] / 2.0
    assert len(np.unique(mids)) == len(mids)  # the Sidon property
    return dict(zip(mids.tolist(), zip(a.tolist(), b.tolist(), strict=True), strict=True))


_PAIRS: dict | None = None


def _real_threshold(bins: Bins, j: int, t: float) -> float:
    """The coded threshold midpoint(v_a, v_b) of feature j -> midpoint(max of bin a, min of bin b)."""
    global _PAIRS
    if _PAIRS is None:
        _PAIRS = _pair_of_midpoints()
    a, b = _PAIRS[float(t)]
    return float(midpoint(bins.bin_max[j, a], bins.bin_min[j, b]))


class _RealRouting:
    """Rows are routed by their real values against the real thresholds, as ``predict`` routes
    them. Every row of weight holds a bin present at its node, so for those the stand-ins give
    the same sides; a row of weight 0 may hold a bin between the two around a cut, where its
    stand-in and its value can fall on different sides of the cut."""

    def __init__(self, X: np.ndarray, bins: Bins, X_val: np.ndarray | None = None):
        self.X, self.bins, self.X_val = X, bins, X_val

    def threshold(self, j: int, t: float) -> float:
        return _real_threshold(self.bins, j, t)

    def validation(self) -> _RealRouting:
        """The same routing for the validation rows (pre-pruning), by their real values: a
        validation row's bin need not be present at the node, so its stand-in can fall on the
        other side of a cut, as a row of weight 0 can."""
        return _RealRouting(self.X_val, self.bins)


def build_reference(X, y, w, kinds, n_categories, n_classes, policy: Policy, validation=None):
    """(tree, pre-pruning steps) of the exact builder on the coded matrix, thresholds mapped back
    to real values. Validation rows (pre-pruning) are coded with the training bins."""
    bins = make_bins(X, kinds, n_categories, policy.max_bins)
    X_val = None
    if validation is not None:
        X_val = np.asarray(validation[0], dtype=np.float64)
        validation = (coded(X_val, bins), *validation[1:])
    exact = dataclasses.replace(policy, splitter="exact")
    tree, steps = build_tree_with_report(coded(X, bins), y, w, kinds, n_categories, n_classes,
                                         exact, validation, _RealRouting(X, bins, X_val))
    for node in np.flatnonzero(tree.kind == THRESHOLD):
        tree.threshold[node] = _real_threshold(bins, int(tree.feature[node]), tree.threshold[node])
    sur = tree.surrogates
    for s in np.flatnonzero(sur["kind"] == THRESHOLD):
        sur["threshold"][s] = _real_threshold(bins, int(sur["feature"][s]), sur["threshold"][s])
    return tree, steps
