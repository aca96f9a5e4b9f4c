"""The proxy of a cut's impurity decrease: ranking cuts without two impurities each.

Every scan for the best binary cut (a presorted column, a binned column's entries, a prefix of
ordered categories) keeps the first cut whose decrease beats the best so far by TIE_TOLERANCE.
The decrease I(D) - W_l/W I(D_l) - W_r/W I(D_r) costs two impurities per cut; with

    Gini:     W_l Gini_l + W_r Gini_r = W - (sum_k l_k^2 / W_l + sum_k r_k^2 / W_r)
    entropy:  W_l Ent_l + W_r Ent_r = xlogx(W_l) + xlogx(W_r) - sum_k xlogx(l_k) - xlogx(r_k)

(r_k = total_k - l_k, xlogx(x) = x log2 x) the decrease is a constant of the node plus proxy / W.
So a scan ranks its cuts by the proxy (pass 1) and runs the rule on the exact decrease only over
the cuts whose proxy lies within WINDOW tolerances of the best (pass 2): the others are more than
a thousand tolerances below the best decrease (rounding in the proxy is ~1e-15 of it), so they can
neither be chosen nor stand between two that are. When a single cut is within the window it is
the one chosen, and pass 2 is skipped.
"""

import numpy as np
from numba import njit

from .._config import GINI, TIE_TOLERANCE

WINDOW = 1000.0
SURE = 1.0 - 1e-12  # a proxy below second * SURE (cross-multiplied) is below second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def xlogx(c):
    return c * np.log2(c) if c > 0.0 else 0.0


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def squares(left, total, n_classes):
    """(sum_k l_k^2, sum_k r_k^2) with r_k = total_k - l_k, summed from 0 in class order: the
    Gini proxy's numerators, which a scan may compare cross-multiplied before dividing."""
    sl, sr = 0.0, 0.0
    for k in range(n_classes):
        r = total[k] - left[k]
        sl += left[k] * left[k]
        sr += r * r
    return sl, sr


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def gini_proxy_above(sq_left, sq_right, w_left, w_right, second):
    """The Gini proxy sq_l / W_l + sq_r / W_r, or -inf without its two divisions when it is
    surely below ``second`` (cross-multiplied, less the margin SURE, far beyond the few
    roundings apart): a scan that keeps only the largest proxy and the largest of the others
    loses nothing by it."""
    if sq_left * w_right + sq_right * w_left < second * (w_left * w_right) * SURE:
        return -np.inf
    return sq_left / w_left + sq_right / w_right


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ranked(v, top, second):
    """(top, second, whether v is the new top): the largest proxy so far and the largest of the
    others, after v (-inf changes neither)."""
    if v > top:
        return v, max(second, top), True
    if v > second:  # a branch, rarely taken: max() would chain every step on the last
        return top, v, False
    return top, second, False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_proxy(left, total, w_left, w_right, n_classes, criterion):
    """A cut's proxy: sum_k l_k^2 / W_l + sum_k r_k^2 / W_r (Gini), or
    sum_k (xlogx(l_k) + xlogx(r_k)) - xlogx(W_l) - xlogx(W_r) (entropy); sums from 0 in class
    order (two classes: l_0^2 + l_1^2, as the two-class loops compute it)."""
    if criterion == GINI:
        sl, sr = squares(left, total, n_classes)
        return sl / w_left + sr / w_right
    v = 0.0
    for k in range(n_classes):
        v += xlogx(left[k]) + xlogx(total[k] - left[k])
    return v - xlogx(w_left) - xlogx(w_right)


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def window_floor(top, w_all):
    """The lowest proxy within WINDOW tolerances of the best, ``top``, at a node of weight W."""
    return top - WINDOW * TIE_TOLERANCE * max(1.0, w_all)
