"""Tests of a column from its entries at a node (``entries``): a threshold between two codes of a
binned continuous column, a category subset, one branch per category; and the same column as a
surrogate of the primary split.

A threshold over entries is the reference's scan (``thresholds``) with a bin's rows added at once;
a cut can only fall between two codes present at the node. Category tests are the reference's
(``subsets``, ``scores``, ``j48``) over the categories present.
"""

import numpy as np
from numba import njit

from .._config import GINI, TIE_TOLERANCE
from .criteria import impurity, regression_proxy
from .proxies import gini_proxy_above, ranked, split_proxy, window_floor
from .sorted_scan import beats
from .thresholds import children_decrease


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def threshold_class(stats, p, n_classes, criterion, min_leaf, unit, scratch):
    """Best cut between the p entries of ``stats`` (ascending codes) for classification: the last
    entry on the left, or -1; the branch table into scratch.branches. ``unit``: the entries are
    counts (every weight 0 or 1).

    The reference keeps the first cut whose decrease beats the best so far by TIE_TOLERANCE. As
    in ``sorted_scan.scan_class``, pass 1 ranks the cuts by the proxy of their decrease and
    pass 2 runs the reference's rule on the exact decrease near the top only (``proxies``)."""
    total = scratch.total
    left = scratch.left
    best_left = scratch.best_left
    for k in range(n_classes):
        total[k] = 0.0
    for e in range(p):
        for k in range(n_classes):
            total[k] += stats[e, k]
    w_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
    if n_classes == 2 and criterion == GINI:
        top_e, top, second = _top_gini_two(stats, p, w_all, min_leaf, unit, scratch)
    else:
        top_e, top, second = _top(stats, p, n_classes, criterion, w_all, min_leaf, scratch)
    if top_e < 0:
        return -1
    cut = window_floor(top, w_all)
    if second >= cut:  # pass 2: the reference's rule on the exact decrease, near the top only
        right = scratch.right
        parent = impurity(total, criterion)
        for k in range(n_classes):
            left[k] = 0.0
        w_left = 0.0
        best = -np.inf
        top_e = -1
        for e in range(p - 1):
            for k in range(n_classes):
                left[k] += stats[e, k]
                w_left += stats[e, k]
            w_right = w_all - w_left
            if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
                continue
            if split_proxy(left, total, w_left, w_right, n_classes, criterion) < cut:
                continue
            for k in range(n_classes):
                right[k] = total[k] - left[k]
            dec = children_decrease(parent, left, right, w_left, w_right, w_all, criterion)
            if dec > best + TIE_TOLERANCE:
                best, top_e = dec, e
                for k in range(n_classes):
                    best_left[k] = left[k]
    branches = scratch.branches
    for k in range(n_classes):
        branches[0, k] = best_left[k]
        branches[1, k] = total[k] - best_left[k]
    return top_e


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top(stats, p, n_classes, criterion, w_all, min_leaf, scratch):
    """Pass 1 of ``threshold_class``: (the first cut with the largest proxy or -1, that proxy,
    the largest of the others), its left sums into scratch.best_left."""
    left = scratch.left
    for k in range(n_classes):
        left[k] = 0.0
    w_left = 0.0
    top, top_e, second = -np.inf, -1, -np.inf
    for e in range(p - 1):
        for k in range(n_classes):
            left[k] += stats[e, k]
            w_left += stats[e, k]
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        v = split_proxy(left, scratch.total, w_left, w_right, n_classes, criterion)
        if v > top:
            second = max(second, top)
            top, top_e = v, e
            for k in range(n_classes):
                scratch.best_left[k] = left[k]
        elif v > second:
            second = v
    return top_e, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _top_gini_two(stats, p, w_all, min_leaf, unit, scratch):
    """``_top`` for two classes and Gini, the common case: the left sums in registers, and a cut
    whose proxy is surely below the second largest so far (cross-multiplied, less a margin of
    SURE, far beyond the few roundings apart) skips the proxy's two divisions: it could change
    neither. The proxies computed are ``split_proxy``'s numbers. With counts (``unit``) the left
    weight is l0 + l1, the integer the running sum would add up to, off its chain of adds."""
    t0, t1 = scratch.total[0], scratch.total[1]
    l0, l1 = 0.0, 0.0
    w_left = 0.0
    top, top_e, second = -np.inf, -1, -np.inf
    for e in range(p - 1):
        s0, s1 = stats[e, 0], stats[e, 1]
        l0 += s0
        l1 += s1
        if unit:
            w_left = l0 + l1
        else:
            w_left += s0
            w_left += s1
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        r0 = t0 - l0
        r1 = t1 - l1
        v = gini_proxy_above(l0 * l0 + l1 * l1, r0 * r0 + r1 * r1, w_left, w_right, second)
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_e = e
            scratch.best_left[0] = l0
            scratch.best_left[1] = l1
    return top_e, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def threshold_regression(stats, p, min_leaf, criterion, scratch):
    """Best cut between the p entries (w, wy, wy^2) for squared error or Poisson deviance
    (``thresholds.best_threshold_regression`` over entries, ``criteria.regression_proxy``); the
    branch rows into scratch.branches."""
    w_all, s_all, q_all = 0.0, 0.0, 0.0
    for e in range(p):
        w_all += stats[e, 0]
        s_all += stats[e, 1]
        q_all += stats[e, 2]
    branches = scratch.branches
    w_left, s_left, q_left = 0.0, 0.0, 0.0
    best_e, best = -1, -np.inf
    for e in range(p - 1):
        w_left += stats[e, 0]
        s_left += stats[e, 1]
        q_left += stats[e, 2]
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        s_right = s_all - s_left
        proxy = regression_proxy(criterion, s_left, w_left, s_right, w_right)
        if proxy == -np.inf:  # a Poisson side without a positive sum
            continue
        if best_e < 0 or proxy > best + TIE_TOLERANCE * max(1.0, abs(best)):
            best_e, best = e, proxy
            branches[0, 0], branches[0, 1], branches[0, 2] = w_left, s_left, q_left
            branches[1, 0], branches[1, 1], branches[1, 2] = w_right, s_right, q_all - q_left
    return best_e


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def entry_sizes(stats, p, regression, sizes):
    """|D^v| of each entry (its class weights added in order, or its weight); returns how many
    entries hold weight."""
    present = 0
    for e in range(p):
        if regression:
            s = stats[e, 0]
        else:
            s = 0.0
            for k in range(stats.shape[1]):
                s += stats[e, k]
        sizes[e] = s
        if s > 0.0:
            present += 1
    return present


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def subset_branches(stats, p, side, branches):
    """The two branches' sums: each entry added to its side, in code order."""
    for b in range(2):
        for k in range(stats.shape[1]):
            branches[b, k] = 0.0
    for e in range(p):
        if side[e] >= 0:
            for k in range(stats.shape[1]):
                branches[side[e], k] += stats[e, k]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def surrogate_threshold(se_w, se_n, p, min_side):
    """A binned continuous column as a surrogate (``surrogates.best_surrogate_threshold`` over
    entries: a cut between two codes present, rows without a primary value included among the
    codes): returns (last entry below the cut or -1, left branch, agreeing weight, number of
    primary-known rows)."""
    w0, w1 = 0.0, 0.0
    n_dir = 0
    for e in range(p):
        w0 += se_w[e, 0]
        w1 += se_w[e, 1]
        n_dir += se_n[e, 0] + se_n[e, 1]
    best = max(w0, w1)
    bar = _bar(best)  # beats(a, best) is a > bar: the bar moves only with the best
    best_e, best_left = -1, 0
    below0, below1 = 0.0, 0.0
    n_below = 0
    for e in range(1, p):
        below0 += se_w[e - 1, 0]
        below1 += se_w[e - 1, 1]
        n_below += se_n[e - 1, 0] + se_n[e - 1, 1]
        if n_below < min_side or n_dir - n_below < min_side:
            continue
        agree_0 = below0 + (w1 - below1)
        agree_1 = below1 + (w0 - below0)
        if agree_0 > bar:
            best, best_e, best_left = agree_0, e - 1, 0
            bar = _bar(best)
        elif agree_1 > bar:
            best, best_e, best_left = agree_1, e - 1, 1
            bar = _bar(best)
    return best_e, best_left, best, n_dir


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _bar(best):
    """What an agreement must exceed to beat ``best`` (``sorted_scan.beats``)."""
    return best + TIE_TOLERANCE * max(1.0, abs(best))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def surrogate_subset(se_w, se_n, p, tie_branch, min_side, side):
    """A categorical column as a surrogate (``surrogates.best_surrogate_subset`` over entries):
    each category goes where the primary sends more of its weight (``tie_branch`` on a tie; a
    category with no primary-known row gets no branch, -1) into ``side``. Returns the agreeing
    weight, or -1 when fewer than ``min_side`` rows would go one of the two ways."""
    agree = 0.0
    sent0, sent1 = 0, 0
    for e in range(p):
        rows = se_n[e, 0] + se_n[e, 1]
        side[e] = -1
        if rows == 0:
            continue
        if beats(se_w[e, 1], se_w[e, 0]):
            b = 1
        elif beats(se_w[e, 0], se_w[e, 1]):
            b = 0
        else:
            b = tie_branch
        side[e] = b
        agree += se_w[e, b]
        if b == 0:
            sent0 += rows
        else:
            sent1 += rows
    if sent0 < min_side or sent1 < min_side:
        return -1.0
    return agree
