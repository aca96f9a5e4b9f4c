"""J48's threshold scan (release 8) over a presorted column's words, without the logarithms of
the cuts inside a run of one class where they cannot change the answer.

J48 (``j48.numeric_split``) takes, in sorted order, each admissible cut whose gain beats the best
so far by more than SMALL (a record) and keeps the last record. Along a run of cuts between which
only rows of one class c move left (by weights x), the gain

    g(x) = A - B H(x),   H = xlog2x(W_l) + xlog2x(W_r) - sum_k (xlog2x(l_k) + xlog2x(r_k)),

with B = rho / W~ > 0, is convex in x: the count-unit entropy H is concave in the class weights
(its second derivative is in ``entropy_runs``). So a cut inside a run has a gain of at most the
larger of the run's two ends p and e. After p, best >= g(p) - SMALL; if also g(e) - best <= SMALL,
no cut inside beats best by more than SMALL, and the scan goes on from e without computing them.
Otherwise the inside is replayed from p's sums, with the additions of a scan over every cut in the
same order, so the records and the branch table of the last one are J48's bit for bit (up to the
gains' own rounding, 1e-16 against the rule's 1e-6).

J48's xlog2x is 0 below 1e-6, where v log2 v < 0. At the ends that only helps: class c's left
weight at p or right weight at e below 1e-6 (a rounding residue, typically) gives an end a gain
above the convex function's, so the bound still holds. Inside a run the arguments must be where
xlog2x is v log2 v: the run is replayed when one of its rows weighs under 1e-6, or W_l at p or
W_r at e lies in (0, 1e-6) (a min_split that small).

A cut counts as inside a run when the rows since the previous cut are of the run's class, the next
row alone makes the next cut (on a continuous column the cuts are mostly a row apart), it is of
the run's class too, and both neighbouring cuts are admissible.
"""

import numpy as np
from numba import njit

from .j48 import DISTINCT, SMALL, admissible_cut, old_ent, record_cut, xlog2x
from .near_log import near_log2
from .segments import RANK_MASK, ROW_MASK, class_of, gap, rank, tied

SCREEN = 1e-9  # the margin of the screen (``_may_beat``): 10^4 times its error


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def release8_totals(words, s, start, n, w_row, n_classes, right):
    """The known weight of column s's n words from ``start`` (summed row by row, as J48 does) and
    the class totals into ``right``, in one pass."""
    for k in range(n_classes):
        right[k] = 0.0
    known_w = 0.0
    for i in range(start, start + n):
        word = words[s, i]
        wt = w_row[word & ROW_MASK]
        known_w += wt
        right[class_of(word)] += wt
    return known_w


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cut_before(words, s, i, values):
    """Whether J48 may cut between positions i - 1 and i: their values differ by more than 1e-5.
    From the words' J48 fields (``segments``) when they tell: with the two rows at positions
    a < b of the whole column and g the GAP of b, a cut exactly when b - a >= g; b - a is known
    mod 64, so a remainder d >= g (or 0) is one, a smaller one needs the values."""
    word = words[s, i]
    if tied(word):
        return False
    g = gap(word)
    if g == 1:
        return True
    if g > 1:
        d = (rank(word) - rank(words[s, i - 1])) & RANK_MASK
        if d >= g or d == 0:
            return True
    return values[s, words[s, i - 1] & ROW_MASK] + DISTINCT < values[s, word & ROW_MASK]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _smooth(v):
    """xlog2x is v log2 v at v, or its limit 0 (v is not in J48's cut-off (0, 1e-6))."""
    return v == 0.0 or v >= SMALL


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _replay(words, s, w_row, p, e, c, l_c, r_c, left, right, n_classes, xl, total_w, old, best,
            best_i, branches):
    """J48's rule on the cuts after positions p+1 .. e-1, inside a run of class c, from class c's
    sums l_c, r_c at the cut after p; the other classes' weights are left's and right's (they do
    not move in a run), their xlog2x xl's (refreshed). Returns the updated (best, best_i);
    ``branches`` gets the weights at a record. Puts class c's weights and xlog2x back."""
    saved = left[c], right[c], xl[0, c], xl[1, c]
    for q in range(p + 1, e):
        wt = w_row[words[s, q] & ROW_MASK]
        l_c += wt
        r_c -= wt
        left[c] = l_c
        right[c] = r_c
        xl[0, c] = xlog2x(l_c)
        xl[1, c] = xlog2x(r_c)
        gain = _gain(left, right, n_classes, xl, total_w, old)
        best, best_i = record_cut(gain, best, best_i, q, left, right, n_classes, branches)
    left[c], right[c], xl[0, c], xl[1, c] = saved
    return best, best_i


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def scan_release8(words, s, start, n, values, w_row, n_classes, min_split, total_w, scratch):
    """J48's scan (``j48.numeric_split``) over the words of column s, whose class totals are in
    scratch.right (``release8_totals``). Returns (last left position or -1, gain before the MDL
    penalty, admissible cuts); the class weights left and right of the cut go to
    scratch.branches."""
    left = scratch.left
    right = scratch.right
    xl = scratch.xl2  # J48's xlog2x of the left and right weights, recomputed for the classes
    # that moved
    stale = scratch.stale
    branches = scratch.branches
    for k in range(n_classes):
        left[k] = 0.0
        stale[k] = True
    w_left = 0.0
    w_right = 0.0
    for k in range(n_classes):
        w_right += right[k]
    old = old_ent(right)
    best_i, best, cuts = np.int64(-1), 0.0, 0  # not literals (``bundles``, "Literals")
    end = start + n
    last = start
    run_c = np.int64(-1)  # the class of the run the last computed cut starts; -1: none
    run_p = np.int64(0)  # that cut's last left position, and class run_c's sums there
    run_l, run_r = 0.0, 0.0
    run_smooth = False  # every row of the run so far weighs >= 1e-6 (``_smooth``)
    inside = 0  # cuts passed over since run_p
    for nxt in range(start + 1, end):
        if not _cut_before(words, s, nxt, values):
            continue
        seg = class_of(words[s, last])  # the class of the rows since the last cut, or -1
        for i in range(last, nxt):
            word = words[s, i]
            c = class_of(word)
            wt = w_row[word & ROW_MASK]
            left[c] += wt
            right[c] -= wt
            w_left += wt
            w_right -= wt
            stale[c] = True
            if c != seg:
                seg = -1
        last = nxt
        if not admissible_cut(w_left, w_right, min_split):
            run_c = -1
            continue
        cuts += 1
        # (the first cut of a run must be a row after its start, as the others are by the test)
        if run_c >= 0 and seg == run_c and nxt + 1 < end and (inside > 0 or nxt - 2 == run_p):
            word = words[s, nxt]
            wt = w_row[word & ROW_MASK]
            if (class_of(word) == run_c and _cut_before(words, s, nxt + 1, values)
                    and admissible_cut(w_left + wt, w_right - wt, min_split)):
                inside += 1
                run_smooth = run_smooth and wt >= SMALL
                continue
        if _may_beat(left, right, n_classes, xl, stale, total_w, old, best):
            _refresh(left, right, n_classes, xl, stale)
            gain = _gain(left, right, n_classes, xl, total_w, old)
        else:  # the cut's gain is surely below best + SMALL: it is no record, nor its run's
            gain = -np.inf
        if inside > 0 and (gain - best > SMALL or not run_smooth or not _smooth(w_right)):
            _refresh(left, right, n_classes, xl, stale)  # the replay reads the others' xlog2x
            best, best_i = _replay(words, s, w_row, run_p, nxt - 1, run_c, run_l, run_r, left,
                                   right, n_classes, xl, total_w, old, best, best_i, branches)
        best, best_i = record_cut(gain, best, best_i, nxt - 1, left, right, n_classes, branches)
        # this cut starts the next run, of the class of the row after it
        inside = 0
        run_c = class_of(words[s, nxt])
        run_p = nxt - 1
        run_l, run_r = left[run_c], right[run_c]
        run_smooth = _smooth(w_left) and w_row[words[s, nxt] & ROW_MASK] >= SMALL
    return best_i, best, cuts


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gain(left, right, n_classes, xl, total_w, old):
    """``j48.info_gain_of`` of the table (left, right) whose cells' xlog2x are in xl: the same
    sums in the same order, without the table (a call and a copy per cut, in a scan that makes
    one per run)."""
    known = 0.0
    for k in range(n_classes):
        known += left[k]
    for k in range(n_classes):
        known += right[k]
    if known <= 0.0 or total_w <= 0.0:
        return 0.0
    ent = 0.0  # new_ent_of, negated
    size = 0.0
    for k in range(n_classes):
        ent += xl[0, k]
        size += left[k]
    ent -= xlog2x(size)
    size = 0.0
    for k in range(n_classes):
        ent += xl[1, k]
        size += right[k]
    ent -= xlog2x(size)
    new = -ent
    numerator = (old - new) * (1.0 - (total_w - known) / total_w)
    if abs(numerator) < SMALL:
        return 0.0
    return numerator / known


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _near_xlog2x(v):
    """``xlog2x`` within v 1e-13 (``near_log``), with J48's cut-off below 1e-6."""
    if v < SMALL:
        return 0.0
    return v * near_log2(v)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _may_beat(left, right, n_classes, xl, stale, total_w, old, best):
    """False only when the cut's gain (``_gain``) is surely at most best + SMALL, which J48's
    rule then passes over: the gain from ``near_log`` for the classes that moved, whose error
    (below 1e-13 W in count units, 1e-13 in the gain) is far inside SCREEN."""
    known = 0.0
    size_l = 0.0
    size_r = 0.0
    ent = 0.0
    for k in range(n_classes):
        known += left[k] + right[k]
        size_l += left[k]
        size_r += right[k]
        if stale[k]:
            ent += _near_xlog2x(left[k]) + _near_xlog2x(right[k])
        else:
            ent += xl[0, k] + xl[1, k]
    if known <= 0.0 or total_w <= 0.0:
        return False  # the gain is 0, and best >= 0
    ent -= _near_xlog2x(size_l) + _near_xlog2x(size_r)
    gain = (old + ent) * (1.0 - (total_w - known) / total_w) / known
    return gain > best + SMALL - SCREEN


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _refresh(left, right, n_classes, xl, stale):
    """xlog2x of the weights of the classes that moved since they were last computed."""
    for k in range(n_classes):
        if stale[k]:
            xl[0, k] = xlog2x(left[k])
            xl[1, k] = xlog2x(right[k])
            stale[k] = False
