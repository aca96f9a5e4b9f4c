"""A candidate test's scores from its branch table, and the selection rule among candidates.

A branch table has one row per branch: weighted class counts (classification) or
(sum w, sum w y, sum w y^2) (regression), over the rows whose tested value is known. With W the
node's weight (known and missing rows; ``node_weight``):

    rho       = W~ / W,  W~ = sum_v |D^v| (the known weight)
    gain      = rho * (I(D~) - sum_v |D^v|/|D~| I(D^v))     clipped at 0
    IV        = -sum_v |D^v|/|D~| log2 |D^v|/|D~|            (intrinsic value)
    ratio     = gain / IV  (0 when IV is 0)

Every sum here is taken in order from 0 (row by row, branch by branch): the reference builder
and the engine compute these numbers with these same kernels from tables summed in the same
order, so their trees agree bit for bit (``reference`` and ``engine.loop``).
"""

import numpy as np
from numba import njit

from .._config import POISSON, TIE_TOLERANCE
from .criteria import conditional_impurity, impurity, poisson_decrease


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def branch_sizes(branches, regression, sizes):
    """|D^v| per branch into ``sizes``: a row's class counts added in order, or its weight."""
    for v in range(branches.shape[0]):
        if regression:
            sizes[v] = branches[v, 0]
        else:
            s = 0.0
            for k in range(branches.shape[1]):
                s += branches[v, k]
            sizes[v] = s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def leaf_rule(sizes, n_branches, min_leaf, two_branches):
    """min_samples_leaf: every non-empty branch must hold ``min_leaf`` weight, or with C4.5's rule
    (``two_branches``) at least two branches must."""
    if two_branches:
        enough = 0
        for v in range(n_branches):
            if sizes[v] >= min_leaf:
                enough += 1
        return enough >= 2
    for v in range(n_branches):
        if sizes[v] > 0 and not sizes[v] >= min_leaf:
            return False
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sse_decrease(branches):
    """Decrease of the weighted mean squared error, (SSE(D~) - sum_v SSE(D^v)) / W~, with
    SSE = sum w y^2 - (sum w y)^2 / sum w, from per-branch (w, wy, wy^2)."""
    w, s, q = 0.0, 0.0, 0.0
    for v in range(branches.shape[0]):
        w += branches[v, 0]
        s += branches[v, 1]
        q += branches[v, 2]
    if w <= 0.0:
        return 0.0
    children = 0.0
    for v in range(branches.shape[0]):
        if branches[v, 0] > 0.0:
            children += branches[v, 2] - branches[v, 1] * branches[v, 1] / branches[v, 0]
    return ((q - s * s / w) - children) / w


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def intrinsic_value_of(sizes, n_branches):
    """IV = -sum_v |D^v|/|D~| log2 |D^v|/|D~| from the branch sizes (``criteria.intrinsic_value``
    of a one-column table)."""
    w = 0.0
    for v in range(n_branches):
        w += sizes[v]
    if w <= 0.0:
        return 0.0
    iv = 0.0
    for v in range(n_branches):
        if sizes[v] > 0.0:
            p = sizes[v] / w
            iv -= p * np.log2(p)
    return iv


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def score(branches, total_w, criterion, regression, min_leaf, two_branches, sizes, parent,
          with_ratio):
    """(gain, iv, gain_ratio, rho, admissible) of a test with this branch table at a node of
    weight ``total_w`` (see the module docstring). ``sizes`` (per branch) and ``parent`` (per
    class): scratch. Without ``with_ratio`` iv and the ratio are 0: only the gain ratio's
    selection rule reads them, and their logarithms cost as much as a small node's scan."""
    n_b = branches.shape[0]
    branch_sizes(branches, regression, sizes)
    known_w = 0.0
    for v in range(n_b):
        known_w += sizes[v]
    rho = known_w / total_w if total_w > 0.0 else 0.0
    if regression:
        gain = rho * (poisson_decrease(branches) if criterion == POISSON else sse_decrease(branches))
    else:  # I(union of the branches) - sum_v |D^v|/|D~| I(D^v)
        for k in range(branches.shape[1]):
            parent[k] = 0.0
        for v in range(n_b):
            for k in range(branches.shape[1]):
                parent[k] += branches[v, k]
        gain = rho * (impurity(parent[:branches.shape[1]], criterion)
                      - conditional_impurity(branches, criterion))
    if not gain > 0.0:
        gain = 0.0
    iv = intrinsic_value_of(sizes, n_b) if with_ratio else 0.0
    ratio = gain / iv if iv > 0.0 else 0.0
    return gain, iv, ratio, rho, leaf_rule(sizes, n_b, min_leaf, two_branches)


def score_table(branches, total_w, criterion, regression, min_leaf, two_branches):
    """``score`` with its own scratch (the reference builder's per-candidate call)."""
    branches = np.ascontiguousarray(branches, dtype=np.float64)
    return score(branches, float(total_w), criterion, regression, min_leaf, two_branches,
                 np.empty(branches.shape[0]), np.empty(branches.shape[1]), True)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def choose(found, gain, ratio, admissible, by_ratio):
    """The selection rule over candidates in column order (``found[f]``: f has a test): the
    admissible candidate with the largest gain or, with ``by_ratio`` (C4.5), the largest gain
    ratio among the admissible candidates whose gain reaches their average gain. Ties within
    TIE_TOLERANCE go to the first. Returns (index or -1, its score)."""
    m = 0
    gain_sum = 0.0
    for f in range(found.shape[0]):
        if found[f] and admissible[f]:
            m += 1
            gain_sum += gain[f]
    if m == 0:
        return -1, 0.0
    cut = gain_sum / m - TIE_TOLERANCE
    top = -np.inf
    for f in range(found.shape[0]):
        if found[f] and admissible[f] and (not by_ratio or gain[f] >= cut):
            s = ratio[f] if by_ratio else gain[f]
            if s > top:
                top = s
    if top == -np.inf:
        return -1, 0.0  # only when a gain is NaN
    for f in range(found.shape[0]):
        if found[f] and admissible[f] and (not by_ratio or gain[f] >= cut):
            s = ratio[f] if by_ratio else gain[f]
            if s >= top - TIE_TOLERANCE:
                return f, s
    return -1, 0.0
