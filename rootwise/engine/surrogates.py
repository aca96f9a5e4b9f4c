"""Surrogate splits (CART: Breiman et al. 1984, §5.3): splits on other attributes that best mimic the primary.

At a node, ``direction`` is the primary's branch of each row (0 or 1), or -1 where the primary's
value is missing. A surrogate's agreement is the weight of the rows with the primary known that it
sends the same way; rows whose surrogate value is missing send nowhere, so they count as
disagreeing (rpart's surrogatestyle = 0: the caller divides by the weight of all primary-known
rows). A surrogate must send at least ``min_side`` primary-known rows (of positive weight) each
way, so that a surrogate unrelated to the primary cannot beat "everything to the majority" by luck
(rpart's choose_surg rule; rpart uses 2).
"""

import numpy as np
from numba import njit

from .._config import TIE_TOLERANCE
from .thresholds import midpoint


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _beats(a, b):
    """a > b beyond rounding: equal weight sums added in another order may differ in the last bits."""
    return a > b + TIE_TOLERANCE * max(1.0, abs(b))


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def agreement_key(agreement):
    """The key surrogates are ranked by: the agreement rounded to 12 decimals (as an integer), so
    that agreements equal up to rounding rank by feature."""
    return np.floor(agreement * 1e12 + 0.5)


@njit(cache=True, no_cfunc_wrapper=True)
def best_surrogate_threshold(xs, direction, ws, min_side):
    """Best threshold surrogate.

    xs: the surrogate's known values at the node, sorted ascending, including rows whose primary
    is missing; direction: the primary's branch of each (-1: primary missing); ws: their weights.
    Candidate thresholds are the midpoints of consecutive distinct values of ``xs``: the rows the
    surrogate will route (primary missing) shape the gaps too, so the cut never lands on one of
    their values by accident (rpart). Rows with ``x <= threshold`` go to ``left_branch`` and the
    others to ``1 - left_branch``.

    A candidate must agree strictly more than sending every row one way (the larger of the two
    primary-known weights here) and keep ``min_side`` primary-known rows on each side. The first
    (lowest) threshold reaching the best agreement wins.
    Returns (threshold, left_branch, agreeing weight); threshold = NaN when no candidate qualifies.
    """
    n = xs.shape[0]
    w_dir = np.zeros(2)
    n_dir = 0
    for t in range(n):
        if direction[t] >= 0:
            w_dir[direction[t]] += ws[t]
            if ws[t] > 0.0:
                n_dir += 1
    best = max(w_dir[0], w_dir[1])
    best_t, best_left = np.nan, 0
    below = np.zeros(2)
    n_below = 0
    for i in range(1, n):
        d = direction[i - 1]
        if d >= 0:
            below[d] += ws[i - 1]
            if ws[i - 1] > 0.0:
                n_below += 1
        if xs[i] <= xs[i - 1] or n_below < min_side or n_dir - n_below < min_side:
            continue
        agree_0 = below[0] + (w_dir[1] - below[1])  # x <= t -> branch 0
        agree_1 = below[1] + (w_dir[0] - below[0])  # x <= t -> branch 1
        # at most one of the two can beat best: best starts at half the weight or more
        if _beats(agree_0, best):
            best, best_t, best_left = agree_0, midpoint(xs[i - 1], xs[i]), 0
        elif _beats(agree_1, best):
            best, best_t, best_left = agree_1, midpoint(xs[i - 1], xs[i]), 1
    return best_t, best_left, best


@njit(cache=True, no_cfunc_wrapper=True)
def best_surrogate_subset(codes, direction, ws, n_categories, tie_branch, min_side):
    """Best category-subset surrogate: each category goes to the branch where the primary sends
    most of its rows (by weight), which maximises the agreement category by category.

    codes: the surrogate's known category codes at the node; direction: the primary's branch of
    each row (-1: primary missing, ignored); ws: their weights. A category whose two weights tie
    goes to ``tie_branch``. A category with no primary-known row gets no branch (-1).
    Returns (branch per category, agreeing weight); the weight is -1 when the surrogate sends
    fewer than ``min_side`` primary-known rows of positive weight one of the two ways.
    """
    votes = np.zeros((n_categories, 2))
    rows = np.zeros((n_categories, 2), dtype=np.int64)
    for t in range(codes.shape[0]):
        d = direction[t]
        if d < 0:
            continue
        votes[codes[t], d] += ws[t]
        if ws[t] > 0.0:
            rows[codes[t], d] += 1
    side = np.full(n_categories, -1, dtype=np.int32)
    agree = 0.0
    sent = np.zeros(2, dtype=np.int64)
    for v in range(n_categories):
        if rows[v, 0] + rows[v, 1] == 0:
            continue
        if _beats(votes[v, 1], votes[v, 0]):
            b = 1
        elif _beats(votes[v, 0], votes[v, 1]):
            b = 0
        else:
            b = tie_branch
        side[v] = b
        agree += votes[v, b]
        sent[b] += rows[v, 0] + rows[v, 1]
    if sent[0] < min_side or sent[1] < min_side:
        return side, -1.0
    return side, agree
