"""Which branch each row of a node takes under the chosen test: its own value where known, else
(CART) the first surrogate it has a value for, else the majority branch; or (C4.5) every branch,
with weight w * r_v, r_v the branch's share of the known weight.

A test is (column, kind, threshold, sides): THRESHOLD sends x <= threshold to branch 0, MULTIWAY
sends category c to branch c, SUBSET sends category c to sides[c] (-1: no branch, as for a
category absent where the test was made).
"""

import numpy as np
from numba import njit

from .._config import MULTIWAY, THRESHOLD


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def branch_of_value(x, kind, threshold, sides):
    """The branch of one value under a test (-1: missing, or a category without a branch)."""
    if np.isnan(x):
        return -1
    if kind == THRESHOLD:
        return 0 if x <= threshold else 1
    c = np.int64(x)
    if c < 0 or c >= sides.shape[0]:
        return -1  # a category never seen in training (validation rows)
    if kind == MULTIWAY:
        return c
    return sides[c]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def primary_branches(seg, start, end, X, j, kind, threshold, sides, direction, known_w):
    """Each segment position's branch under the test into ``direction`` (-1 where it has none),
    and the known weight per branch, added in row order, into ``known_w``."""
    for b in range(known_w.shape[0]):
        known_w[b] = 0.0
    for t in range(start, end):
        b = branch_of_value(X[seg.row[t], j], kind, threshold, sides)
        direction[t - start] = b
        if b >= 0:
            known_w[b] += seg.w[t]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fractions_of(known_w, out):
    """r_v: each branch's share of the known weight (equal shares when none is known)."""
    total = 0.0
    for b in range(known_w.shape[0]):
        total += known_w[b]
    for b in range(known_w.shape[0]):
        out[b] = known_w[b] / total if total > 0.0 else 1.0 / known_w.shape[0]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def receiving(fractions, release8, out):
    """The branches a row without a branch goes down (C4.5): all of them; release 8 (J48's
    ``ClassifierSplitModel.split``) skips those with 0 < r_v <= 1e-6, unless none is that small."""
    small_positive = False
    for b in range(fractions.shape[0]):
        out[b] = True
        if release8 and not (fractions[b] > 1e-6 or fractions[b] == 0.0):
            small_positive = True
    if small_positive:
        for b in range(fractions.shape[0]):
            out[b] = fractions[b] > 1e-6


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def primary_masses(seg, start, end, direction):
    """The weight of the rows of positive weight the primary sends each way (row order)."""
    m0, m1 = 0.0, 0.0
    for t in range(start, end):
        wt = seg.w[t]
        if wt > 0.0:
            if direction[t - start] == 0:
                m0 += wt
            elif direction[t - start] == 1:
                m1 += wt
    return m0, m1


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def by_surrogates(seg, start, end, X, direction, n_s, sur_feature, sur_kind, sur_threshold,
                  sur_left, sur_sides):
    """Rows without a primary branch take the first surrogate (in rank order) that gives them
    one. sur_sides[s]: the SUBSET surrogate s's branch per category."""
    for t in range(start, end):
        if direction[t - start] >= 0:
            continue
        r = seg.row[t]
        for s in range(n_s):
            x = X[r, sur_feature[s]]
            if np.isnan(x):
                continue
            if sur_kind[s] == THRESHOLD:
                b = sur_left[s] if x <= sur_threshold[s] else 1 - sur_left[s]
            else:
                c = np.int64(x)
                b = sur_sides[s, c] if 0 <= c < sur_sides.shape[1] else -1
            if b >= 0:
                direction[t - start] = b
                break


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def to_majority(seg, start, end, direction, majority_branch):
    """Rows still without a branch go to the majority branch; when the primary-known weights
    tied (majority_branch -1), to the side heavier once the surrogates have routed their rows,
    else to branch 0. Returns the branch used."""
    if majority_branch < 0:
        h0, h1 = 0.0, 0.0
        for t in range(start, end):
            if direction[t - start] == 0:
                h0 += seg.w[t]
            elif direction[t - start] == 1:
                h1 += seg.w[t]
        majority_branch = 0
        if abs(h0 - h1) > 1e-12 * max(1.0, max(h0, h1)) and h1 > h0:
            majority_branch = 1
    for t in range(start, end):
        if direction[t - start] < 0:
            direction[t - start] = majority_branch
    return majority_branch
