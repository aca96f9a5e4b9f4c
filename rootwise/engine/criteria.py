"""Impurity measures and split scores, computed from class-count tables only.

A table has one row per branch and one column per class (weighted counts). Every score below
depends on nothing else, so a criterion is just another function of the same table.
"""

import numpy as np
from numba import njit

from .._config import ENTROPY, POISSON
from .arrays import table_total, total


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def entropy(counts):
    """Ent(D) = -sum_k p_k log2 p_k, with 0 log 0 = 0."""
    w = total(counts)
    if w <= 0.0:
        return 0.0
    h = 0.0
    for c in counts:
        if c > 0.0:
            p = c / w
            h -= p * np.log2(p)
    return h


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def gini(counts):
    """Gini(D) = 1 - sum_k p_k^2."""
    w = total(counts)
    if w <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        p = c / w
        s += p * p
    return 1.0 - s


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def impurity(counts, criterion):
    if criterion == ENTROPY:
        return entropy(counts)
    return gini(counts)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def conditional_impurity(table, criterion):
    """sum_v |D^v|/|D| * I(D^v): the weighted impurity of the branches (H(D|A) or Gini_index)."""
    w = table_total(table)
    if w <= 0.0:
        return 0.0
    out = 0.0
    for v in range(table.shape[0]):
        size = total(table[v])
        if size > 0.0:
            out += size / w * impurity(table[v], criterion)
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def intrinsic_value(table):
    """IV(a) = -sum_v |D^v|/|D| log2 |D^v|/|D| (the split information of C4.5)."""
    w = table_total(table)
    if w <= 0.0:
        return 0.0
    iv = 0.0
    for v in range(table.shape[0]):
        size = total(table[v])
        if size > 0.0:
            p = size / w
            iv -= p * np.log2(p)
    return iv


@njit(cache=True, no_cfunc_wrapper=True)
def parent_counts(table):
    """Class counts of the union of the branches."""
    out = np.zeros(table.shape[1], dtype=np.float64)
    for v in range(table.shape[0]):
        for k in range(table.shape[1]):
            out[k] += table[v, k]
    return out


@njit(cache=True, no_cfunc_wrapper=True)
def impurity_decrease(table, criterion):
    """Gain(D, a) = I(D) - sum_v |D^v|/|D| I(D^v); with ENTROPY this is the information gain."""
    return impurity(parent_counts(table), criterion) - conditional_impurity(table, criterion)


# A Poisson child needs a positive sum of targets: its mean is the rate whose log the deviance
# takes (scikit-learn refuses such a split, with this bound).
POISSON_MIN_SUM = np.finfo(np.float64).eps


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def regression_proxy(criterion, s_left, w_left, s_right, w_right):
    """The part of a binary split's children's loss that depends on the split, negated (larger is
    better), from each side's sum w and sum w y:

        squared error:  s_l^2 / W_l + s_r^2 / W_r
        Poisson:        s_l log(s_l / W_l) + s_r log(s_r / W_r)   (-inf if a sum is not positive)

    For the half Poisson deviance, sum w (y log(y / ybar) - y + ybar) of a child is
    sum w y log y - s log(s / W): the first term is the parent's whatever the split."""
    if criterion == POISSON:
        if s_left <= POISSON_MIN_SUM or s_right <= POISSON_MIN_SUM:
            return -np.inf
        return s_left * np.log(s_left / w_left) + s_right * np.log(s_right / w_right)
    return s_left * s_left / w_left + s_right * s_right / w_right


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def poisson_decrease(branches):
    """Decrease of the mean half Poisson deviance from per-branch (w, wy, ...):

        (sum_v s_v log(s_v / W_v) - S log(S / W~)) / W~,   S = sum_v s_v,  W~ = sum_v W_v

    (0 log 0 = 0: a branch without a positive sum adds nothing)."""
    w, s = 0.0, 0.0
    children = 0.0
    for v in range(branches.shape[0]):
        w += branches[v, 0]
        s += branches[v, 1]
        if branches[v, 0] > 0.0 and branches[v, 1] > 0.0:
            children += branches[v, 1] * np.log(branches[v, 1] / branches[v, 0])
    if w <= 0.0 or s <= 0.0:
        return 0.0
    return (children - s * np.log(s / w)) / w
