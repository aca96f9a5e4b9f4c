"""An upper bound on the Gini decrease of a categorical column's best subset test, tighter than
one branch per category: a column whose bound falls short of the best test found at the node is
not searched (``search``), since CART's rule chooses by the decrease.

With s_c the class weights of category c (weight w_c, proportions p_c = s_c / w_c), W~ the
weight of the column's known values, mu = t / W~ their proportions and W the node's weight, a
grouping of the categories into branches b decreases Gini impurity by

    (1/W) sum_b W_b |p_b - mu|^2 = tr(B) / W,

B the between-branch scatter of the proportion vectors. The total scatter of the categories,
T = sum_c w_c (p_c - mu)(p_c - mu)^T, is B plus the scatter within the branches (as in Fisher's
discriminant analysis), so B <= T. One branch per category gives tr(T) / W, the looser bound
``search`` takes first. Two branches make B of rank one: tr(B) = lambda_max(B) <= lambda_max(T),
the relaxation of two-means clustering to the principal component (Ding & He 2004). T is
positive semidefinite, so lambda_max(T)^8 <= tr(T^8) = |T^4|_F^2: two squarings of a matrix of
the classes (with two classes T has rank one, and the two bounds agree).
"""

import numpy as np
from numba import njit

SCATTER_CLASSES = 16  # the most classes the bound is taken for: a squaring costs k^3
MIN_ENTRIES = 5  # fewer categories: the exhaustive search costs about as much as the bound
SLACK = 1e-6  # relative: far above the rounding of two squarings of a matrix of norm 1


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def scatter_bound(stats, p, W, mats, t):
    """lambda_max(T) / W for the p entries of class weights in ``stats`` (rows: categories),
    with a margin of 1e-9 + 1e-14 p (``search._class_bound``'s) and SLACK above the rounding
    of its sums; +inf when an entry's weight is negative or not a number. ``mats``: scratch
    (3, k, k); ``t``: scratch per class.

    In one pass, T = sum_c s_c s_c^T / w_c - t t^T / W~; its terms are at most W~, so T is
    within 2 k (p + 2) 2^-53 W~ of its value in the 2-norm, below the margin once divided by
    W >= W~. T is then scaled by its Frobenius norm f (at least lambda_max): the bound is
    f tr((T / f)^8)^(1/8)."""
    C = stats.shape[1]
    T, A, B = mats[0, :C, :C], mats[1, :C, :C], mats[2, :C, :C]
    for k in range(C):
        t[k] = 0.0
        for m in range(C):
            T[k, m] = 0.0
    w_all = 0.0
    for e in range(p):
        w = 0.0
        for k in range(C):
            w += stats[e, k]
        if not w >= 0.0:
            return np.inf
        if w == 0.0:
            continue
        w_all += w
        inverse = 1.0 / w
        for k in range(C):
            x = stats[e, k]
            if x == 0.0:  # at a small node most categories lack most classes
                continue
            t[k] += x
            y = x * inverse
            for m in range(k, C):
                T[k, m] += y * stats[e, m]
    if not w_all > 0.0:
        return np.inf
    f = 0.0
    for k in range(C):
        for m in range(k, C):
            x = T[k, m] - t[k] * t[m] / w_all
            T[k, m] = x
            T[m, k] = x
            f += x * x * (1.0 if m == k else 2.0)
    f = np.sqrt(f)
    margin = 1e-9 + 1e-14 * p
    if f == 0.0:
        return margin
    if not f < np.inf:
        return np.inf
    for k in range(C):
        for m in range(C):
            A[k, m] = T[k, m] / f
    _square(A, B)
    _square(B, A)
    trace = 0.0  # tr(A^8) = |A^4|_F^2, A^4 symmetric
    for k in range(C):
        for m in range(C):
            trace += A[k, m] * A[k, m]
    return f * trace ** 0.125 * (1.0 + SLACK) / W + margin


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _square(a, out):
    """out = a a for a symmetric a (its upper triangle summed, then mirrored)."""
    C = a.shape[0]
    for k in range(C):
        for m in range(k, C):
            s = 0.0
            for i in range(C):
                s += a[k, i] * a[i, m]
            out[k, m] = s
            out[m, k] = s
