"""Pass 1 of the threshold scan for the entropy with row weights (C4.5's fractional cases): the
boundaries' proxies, skipping those that lie inside a run of one class.

Along a run of boundaries between which only rows of one class c move left (by weights x), the
proxy (``proxies``)

    f(x) = xlogx(l_c + x) + xlogx(r_c - x) - xlogx(W_l + x) - xlogx(W_r - x) + sum_k!=c ...

is convex in x: its second derivative, 1/(l_c + x) - 1/(W_l + x) + 1/(r_c - x) - 1/(W_r - x)
(over ln 2), is >= 0 because l_c <= W_l and r_c <= W_r. So no boundary inside the run has a
larger proxy than the run's two ends (Fayyad and Irani's boundary points, 1992). Pass 1 computes
the ends only (four logarithms each); a run's inside is computed afterwards only if one of its
ends lies within the window of the best proxy so far, for such a boundary may then be within the
window itself, and there only where the chord between the ends (which lies above a convex f)
reaches the window. Every boundary whose proxy could reach the window is therefore computed, and
the others keep -inf: the top, the second and the window's members are those of a scan over every
boundary (up to the proxies' own rounding, which the window is far wider than).

A boundary counts as inside a run here when the rows since the previous boundary and the single
row up to the next are all of the run's class, and both neighbouring boundaries are admissible.
"""

import numpy as np
from numba import njit

from .proxies import window_floor, xlogx
from .segments import ROW_MASK, class_of, tied

NONE = -1  # no row since the last boundary
MIXED = -2  # rows of more than one class since the last boundary


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _admissible(w_left, w_right, min_leaf):
    return w_left >= min_leaf and w_right >= min_leaf and w_left > 0.0 and w_right > 0.0


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def few_rows(i, start, n, min_rows):
    """A cut after segment position i of a column's n known rows (all of positive weight) leaves
    fewer than ``min_rows`` rows on a side: min_samples_leaf counts rows, as scikit-learn's and
    rpart's do, whatever they weigh."""
    left = i - start + 1
    return left < min_rows or n - left < min_rows


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _inside(words, s, i, start, end, run_c, w_left, w_all, w_row, min_leaf, min_rows):
    """Whether the boundary after position i is inside its run: the next row alone makes the
    next boundary, it is of the run's class, and that boundary is admissible."""
    j = i + 1
    if j > end - 2 or tied(words[s, j + 1]) or few_rows(j, start, end - start, min_rows):
        return False
    word = words[s, j]
    if class_of(word) != run_c:
        return False
    w_next = w_left + w_row[word & ROW_MASK]
    return _admissible(w_next, w_all - w_next, min_leaf)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _run_inside(words, s, start, p, e, l_c, w_left, rest, t_c, w_all, w_row, proxy, w_end, top,
                top_i, second, inside):
    """The proxies of the boundaries strictly between the run's ends p and e (every row in
    between is of the run's class c) that may reach the window, from l_c and W_l at p (t_c:
    class c's total); ``rest`` = sum_k!=c xlogx(l_k) + xlogx(r_k), constant along the run;
    ``w_end``: W_l at e. The sums run
    row by row as pass 1's do. A convex f lies below its chord, f(x) <= f_p + (f_e - f_p)
    (x - x_p) / (x_e - x_p) with x = W_l, so a boundary whose chord is below the window's floor
    keeps -inf without its logarithms. Returns the updated (top, its position, second, whether
    the top lies inside a run): a boundary becomes the top when it is larger, or equal and
    earlier (the first largest, in any order of work)."""
    f_p, f_e = proxy[p - start], proxy[e - start]
    w_start = w_left
    slope = (f_e - f_p) / (w_end - w_start)
    floor = window_floor(top, w_all)
    for j in range(p + 1, e):
        wt = w_row[words[s, j] & ROW_MASK]
        l_c += wt
        w_left += wt
        if tied(words[s, j + 1]) or f_p + slope * (w_left - w_start) < floor:
            continue
        v = rest + xlogx(l_c) + xlogx(t_c - l_c) - (xlogx(w_left) + xlogx(w_all - w_left))
        proxy[j - start] = v
        if v > top or (v == top and j < top_i):
            second = max(second, top)
            top, top_i, inside = v, j, True
        elif v > second:
            second = v
    return top, top_i, second, inside


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def proxies_entropy_weighted(words, s, start, n, w_row, n_classes, min_leaf, min_rows, scratch):
    """``sorted_scan._proxies`` for the entropy with row weights: the class totals
    (scratch.total), the proxies of every boundary that can reach the window (scratch.proxy;
    -inf elsewhere) and the left weights at the first largest (scratch.best_left). Returns (its
    position or -1, the largest proxy, the largest of the others); when the largest lies inside
    a run, the second is reported equal to it, so that the scan's pass 2 decides on the exact
    decrease (it always would: a run's end is then within rounding of it)."""
    total = scratch.total
    left = scratch.left
    best_left = scratch.best_left
    proxy = scratch.proxy
    xl = scratch.xl2  # xlogx of each class's left and right weight, recomputed only for the
    stale = scratch.stale  # classes that moved since (2 logs, not 2k)
    for k in range(n_classes):
        total[k] = 0.0
        left[k] = 0.0
        stale[k] = True
    end = start + n
    for i in range(start, end):
        word = words[s, i]
        total[class_of(word)] += w_row[word & ROW_MASK]
    w_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
    # not literals, which would compile ``_run_inside`` twice (``bundles``, "Literals")
    top, top_i, second, inside = -np.inf, np.int64(-1), -np.inf, np.bool_(False)
    w_left = 0.0
    seg = NONE  # the class of the rows since the last boundary
    run_open = False  # the last boundary is admissible and starts (or is inside) a run
    has_inside = False
    run_i, run_c, run_l, run_w, run_rest = np.int64(0), np.int64(0), 0.0, 0.0, 0.0
    for i in range(start, end - 1):
        word = words[s, i]
        c = class_of(word)
        wt = w_row[word & ROW_MASK]
        left[c] += wt
        w_left += wt
        stale[c] = True
        if seg == NONE:
            seg = c
        elif seg != c:
            seg = MIXED
        proxy[i - start] = -np.inf
        if tied(words[s, i + 1]):
            continue
        w_right = w_all - w_left
        if not _admissible(w_left, w_right, min_leaf) or few_rows(i, start, n, min_rows):
            run_open = False
            seg = NONE
            continue
        if run_open and seg == run_c and _inside(words, s, i, start, end, run_c, w_left, w_all,
                                                 w_row, min_leaf, min_rows):
            if not has_inside:  # only class run_c has moved since the run's start, so the
                run_rest = 0.0  # others' xlogx are still those of the start
                for k in range(n_classes):
                    if k != run_c:
                        run_rest += xl[0, k] + xl[1, k]
                has_inside = True
            seg = NONE
            continue
        v = 0.0
        for k in range(n_classes):
            if stale[k]:
                xl[0, k] = xlogx(left[k])
                xl[1, k] = xlogx(total[k] - left[k])
                stale[k] = False
            v += xl[0, k] + xl[1, k]
        v -= xlogx(w_left) + xlogx(w_right)
        proxy[i - start] = v
        if v > top:
            second = max(second, top)
            top, top_i, inside = v, i, False
            for k in range(n_classes):
                best_left[k] = left[k]
        elif v > second:
            second = v
        if has_inside and max(proxy[run_i - start], v) >= window_floor(top, w_all):
            top, top_i, second, inside = _run_inside(
                words, s, start, run_i, i, run_l, run_w, run_rest, total[run_c], w_all, w_row,
                proxy, w_left, top, top_i, second, inside)
        # this boundary starts the next run, of the class of the row after it
        has_inside = False
        run_open = i + 1 < end - 1
        if run_open:
            run_i, run_c, run_w = i, class_of(words[s, i + 1]), w_left
            run_l = left[run_c]
        seg = NONE
    if inside:
        second = top
    return top_i, top, second
