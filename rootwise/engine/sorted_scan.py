"""Threshold scans over a presorted column's words (``segments``): the reference's scans
(``thresholds``) without gathering the sorted rows.

A column's segment at a node holds its known rows of positive weight first, sorted; the scans
stop at the first END word. A boundary lies between two sorted neighbours that do not tie.

Classification runs in two passes: pass 1 ranks the boundaries by the proxy of their decrease,
pass 2 runs the reference's rule on the exact decrease near the top only (``proxies``). With unit
weights the counts are integers, kept as int64 (an integer add is one cycle where a float add is
four, in a loop-carried chain).

The branch table of the chosen cut is the scan's running left sums and total - left, as in the
reference; the sums run in the column's order, so they are the reference's numbers bit for bit.
"""

import numpy as np
from numba import njit

from .._config import GINI, TIE_TOLERANCE
from .criteria import impurity, regression_proxy
from .entropy_runs import few_rows, proxies_entropy_weighted
from .proxies import SURE, gini_proxy_above, ranked, squares, window_floor
from .segments import END_BIT, MAX_ROWS, ROW_MASK, class_of, tied
from .thresholds import children_decrease

EXACT_SQUARES = 1 << 26  # below this many rows a count's square sums stay below 2^53
# pass 1's rows per block: a block whose cuts all lie surely below the second largest proxy so far
# is passed over with its class counts alone (``_block_below_two``)
BLOCK = 64
BLOCKED = 2048  # below this many rows a column is scanned row by row (fewer blocks to pass over)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def known_length(words, s, start, end):
    """How many words at the start of the segment are known values of positive weight. The END
    words are the segment's tail (every partition keeps them last), a few per cent of it: counted
    from the end, not found from the start."""
    i = end
    while i > start and (words[s, i - 1] & END_BIT) != 0:
        i -= 1
    return i - start


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def scan_class(words, s, start, n, w_row, unit, n_classes, criterion, min_leaf, min_rows, scratch):
    """Best cut of column s's n known words from ``start`` for classification: returns the segment
    position i of the last row on the left (-1: none admissible); the branch table goes to
    scratch.branches. ``w_row``: each row's weight at the node, by row id; ``unit``: every such
    weight is 1 (counts are then integers: ``scratch.xlogx`` holds k log2 k for the entropy).
    Each side needs ``min_leaf`` weight and, with row weights, ``min_rows`` rows (``_few_rows``;
    with unit weights the weight is the count)."""
    total = scratch.total
    left = scratch.left
    right = scratch.right
    best_left = scratch.best_left
    proxy = scratch.proxy
    two = unit and n_classes == 2 and criterion == GINI and n < EXACT_SQUARES
    if two:
        top_i, top, second = _proxies_gini_two(words, s, start, n, min_leaf, scratch)
    elif unit and n_classes == 3 and criterion == GINI and n < EXACT_SQUARES:
        top_i, top, second = _proxies_gini_three(words, s, start, n, min_leaf, scratch)
    elif not unit and criterion != GINI:
        top_i, top, second = proxies_entropy_weighted(words, s, start, n, w_row, n_classes,
                                                      min_leaf, min_rows, scratch)
    else:
        top_i, top, second = _proxies(words, s, start, n, w_row, unit, n_classes, criterion,
                                      min_leaf, min_rows, scratch, np.bool_(True))
    if top_i < 0:
        return -1
    w_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
    cut = window_floor(top, w_all)
    end = start + n
    if second >= cut:  # pass 2: the reference's rule on the exact decrease, near the top only
        if two:  # pass 1 skipped the proxies that could not matter to top and second
            _fill_proxies_gini_two(words, s, start, n, min_leaf, scratch)
        elif unit and criterion == GINI:  # so did this one
            _proxies(words, s, start, n, w_row, unit, n_classes, criterion, min_leaf, min_rows,
                     scratch, np.bool_(False))
        parent = impurity(total, criterion)
        for k in range(n_classes):
            left[k] = 0.0
        w_left = 0.0
        best = -np.inf
        top_i = -1
        for i in range(start, end - 1):
            word = words[s, i]
            wt = 1.0 if unit else w_row[word & ROW_MASK]
            left[class_of(word)] += wt
            w_left += wt
            if proxy[i - start] < cut:
                continue
            for k in range(n_classes):
                right[k] = total[k] - left[k]
            dec = children_decrease(parent, left, right, w_left, w_all - w_left, w_all,
                                    criterion)
            if dec > best + TIE_TOLERANCE:
                best, top_i = dec, i
                for k in range(n_classes):
                    best_left[k] = left[k]
    branches = scratch.branches
    for k in range(n_classes):
        branches[0, k] = best_left[k]
        branches[1, k] = total[k] - best_left[k]
    return top_i


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _proxies(words, s, start, n, w_row, unit, n_classes, criterion, min_leaf, min_rows, scratch,
             skip):
    """Pass 1 of ``scan_class``: the class totals (scratch.total), every boundary's proxy
    (scratch.proxy, -inf where none is admissible) and the left counts at the first largest
    (scratch.best_left). Returns (its position or -1, the largest proxy, the largest of the
    others): more than one boundary lies within the window exactly when the second does.

    ``skip`` (unit weights and Gini): a boundary whose proxy is surely below the second largest
    so far is left at -inf without its two divisions, as in ``_proxies_gini_two``; pass 2 then
    runs this again without skipping."""
    total = scratch.total
    left = scratch.left
    counts = scratch.counts  # int64 left counts (unit weights)
    best_left = scratch.best_left
    proxy = scratch.proxy
    xt = scratch.xlogx
    for k in range(n_classes):
        total[k] = 0.0
        left[k] = 0.0
        counts[k] = 0
    end = start + n
    for i in range(start, end):
        word = words[s, i]
        total[class_of(word)] += 1.0 if unit else w_row[word & ROW_MASK]
    w_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
    gini = criterion == GINI
    skip = skip and unit and gini and n < EXACT_SQUARES
    top, top_i, second = -np.inf, -1, -np.inf
    w_left = 0.0
    sq_left, sq_right, ent_left, ent_right = 0.0, 0.0, 0.0, 0.0
    if unit:
        for k in range(n_classes):
            t = np.int64(total[k])
            sq_right += total[k] * total[k]
            if not gini:
                ent_right += xt[t]
    for i in range(start, end - 1):
        word = words[s, i]
        c = class_of(word)
        if unit:  # one class moves a row left: O(1) updates of the sums of squares / x log x
            lk = counts[c]
            rk = np.int64(total[c]) - lk
            if gini:
                sq_left += 2.0 * lk + 1.0
                sq_right -= 2.0 * rk - 1.0
            else:
                ent_left += xt[lk + 1] - xt[lk]
                ent_right += xt[rk - 1] - xt[rk]
            counts[c] = lk + 1
            w_left = float(i - start + 1)
        else:
            wt = w_row[word & ROW_MASK]
            left[c] += wt
            w_left += wt
        proxy[i - start] = -np.inf
        if tied(words[s, i + 1]):
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        if few_rows(i, start, n, min_rows):
            continue
        if unit:
            if gini:  # -inf where skipped, as before any proxy is computed
                v = gini_proxy_above(sq_left, sq_right, w_left, w_right,
                                     second if skip else -np.inf)
            else:
                v = ent_left + ent_right - xt[i - start + 1] - xt[end - i - 1]
        else:  # Gini with row weights (the entropy's: ``entropy_runs``)
            sl, sr = squares(left, total, n_classes)
            v = sl / w_left + sr / w_right
        proxy[i - start] = v
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_i = i
            for k in range(n_classes):
                best_left[k] = float(counts[k]) if unit else left[k]
    return top_i, top, second


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def _proxies_gini_two(words, s, start, n, min_leaf, scratch):
    """``_proxies`` for two classes, unit weights and Gini, the fit's common case: the counts of
    class 1 are the sum of the class bits (a loop the compiler vectorises), the left counts live
    in registers, and the sums of squares are computed, not updated (integers below 2^53: the
    same numbers bit for bit).

    The two divisions of a proxy are most of the loop, and only the largest proxy and the
    largest of the others are needed here; so a boundary whose proxy is surely below the
    second largest so far (cross-multiplied: sq_l W_r + sq_r W_l < second W_l W_r, less a
    margin of SURE, far beyond the few roundings apart) is skipped: it would change neither.
    scratch.proxy is then incomplete; pass 2, rare, refills it (``_fill_proxies_gini_two``).

    A long column goes by blocks of BLOCK rows: a block whose cuts are all surely below the
    second largest proxy so far, or below the second largest of the cuts ending each block (a
    sample, whose second largest is at most the scan's), is passed over with its class count
    (``_block_below_two``). Measured on one column of logistic classes: 3.4 -> 1.3 ns a row at
    10^5 rows, 2.9 -> 2.0 at 10^4; below BLOCKED rows the blocks cost more than they save."""
    total = scratch.total
    end = start + n
    known = words[s, start:end]  # a view indexed from 0: the sum below is a vector loop
    zero = np.int64(0)  # the counts start at it, not at a literal 0 (``bundles``, "Literals")
    t1 = zero
    for i in range(n):
        t1 += class_of(known[i])
    t0 = n - t1
    total[0] = float(t0)
    total[1] = float(t1)
    top, top_i, second = -np.inf, np.int64(-1), -np.inf
    if n < BLOCKED:
        top, top_i, second, _ = _rows_gini_two(known, zero, n - 1, zero, t0, t1, min_leaf,
                                               start, top, top_i, second, -np.inf,
                                               scratch.best_left)
        return top_i, top, second
    # the second largest proxy of a sample of the cuts is at most the second largest of all: a
    # cut surely below it can change neither top nor second, so it is skipped from the start
    floor = _sampled_second_two(known, n, t0, t1, min_leaf)
    l1 = zero
    for a in range(0, n - 1, BLOCK):
        b = min(a + BLOCK, n - 1)
        bar = max(second, floor)
        if 0 < a and b < n - 1 and bar > -np.inf:
            d1 = zero  # class 1 among rows a..b-1 (a vector loop)
            for i in range(a, b):
                d1 += class_of(known[i])
            if _block_below_two(a - l1, l1, b - a - d1, d1, t0, t1, bar):
                l1 += d1
                continue
        top, top_i, second, l1 = _rows_gini_two(known, a, b, l1, t0, t1, min_leaf, start, top,
                                                top_i, second, floor, scratch.best_left)
    return top_i, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rows_gini_two(known, a, b, l1, t0, t1, min_leaf, start, top, top_i, second, floor,
                   best_left):
    """The cuts after rows a..b-1 of ``_proxies_gini_two``, from l1 rows of class 1 before row
    a: returns (top, top_i, second, l1) after them. ``floor``: at most the scan's final
    second largest proxy (-inf: none known)."""
    w_all = float(t0 + t1)
    for i in range(a, b):
        l1 += class_of(known[i])
        if tied(known[i + 1]):
            continue
        ok, sq_left, sq_right, w_left, w_right = _cut_two(i + 1, l1, t0, t1, w_all, min_leaf)
        if not ok:
            continue
        v = gini_proxy_above(sq_left, sq_right, w_left, w_right, max(second, floor))
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_i = start + i
            best_left[0] = float(i + 1 - l1)
            best_left[1] = float(l1)
    return top, top_i, second, l1


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cut_two(n_left, l1, t0, t1, w_all, min_leaf):
    """A two-class cut with n_left unit rows on the left, l1 of class 1: (whether it is
    admissible, sum_k l_k^2, sum_k r_k^2, W_l, W_r); integer squares, exact below 2^53."""
    w_left = float(n_left)
    w_right = w_all - w_left
    ok = not (w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0)
    l0 = n_left - l1
    r0 = t0 - l0
    r1 = t1 - l1
    return ok, float(l0 * l0 + l1 * l1), float(r0 * r0 + r1 * r1), w_left, w_right


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sampled_second_two(known, n, t0, t1, min_leaf):
    """The second largest two-class Gini proxy among the admissible cuts that end a block of
    BLOCK rows (-inf when fewer than two are)."""
    w_all = float(t0 + t1)
    top, second = -np.inf, -np.inf
    l1 = 0
    for a in range(0, n - 1, BLOCK):
        b = min(a + BLOCK, n - 1)
        for i in range(a, b):
            l1 += class_of(known[i])
        if tied(known[b]):
            continue
        ok, sq_left, sq_right, w_left, w_right = _cut_two(b, l1, t0, t1, w_all, min_leaf)
        if ok:
            top, second, _ = ranked(sq_left / w_left + sq_right / w_right, top, second)
    return second


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _corner_below(l0, l1, t0, t1, second):
    """The two-class Gini proxy of left counts (l0, l1) is surely below ``second``
    (``gini_proxy_above``'s cross-multiplied test; both sides non-empty)."""
    _, sq_left, sq_right, wl, wr = _cut_two(l0 + l1, l1, t0, t1, float(t0 + t1), 0.0)
    return sq_left * wr + sq_right * wl < second * (wl * wr) * SURE


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _block_below_two(l0, l1, d0, d1, t0, t1, second):
    """Whether every cut within a block of rows is surely below ``second``: left counts (l0, l1)
    before the block, which holds d0 rows of class 0 and d1 of class 1. Each cut's left counts
    lie in the box [l0, l0 + d0] x [l1, l1 + d1]; the proxy, a sum of quadratic-over-linear
    terms, is convex in them, so its largest value on the box is at a corner. The caller keeps
    every corner's sides non-empty (rows before and after the block)."""
    return (_corner_below(l0, l1, t0, t1, second)
            and _corner_below(l0 + d0, l1, t0, t1, second)
            and _corner_below(l0, l1 + d1, t0, t1, second)
            and _corner_below(l0 + d0, l1 + d1, t0, t1, second))


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def _proxies_gini_three(words, s, start, n, min_leaf, scratch):
    """``_proxies_gini_two`` for three classes: the left counts in registers instead of an
    array updated at a class read from each word (a load that waits on the store before it
    whenever two neighbours share a class), the sums of squares computed from them (integers
    below 2^53: the numbers ``_proxies`` updates, bit for bit). Pass 1 only: it leaves
    scratch.proxy alone, and pass 2 runs ``_proxies`` without skipping. Long columns by blocks,
    as ``_proxies_gini_two``, with the eight corners of a box of three counts."""
    total = scratch.total
    known = words[s, start:start + n]
    zero = np.int64(0)  # the counts start at it, not at a literal 0 (``bundles``, "Literals")
    t0, t1, t2 = zero, zero, zero
    for i in range(n):
        c = class_of(known[i])
        t0 += np.int64(c == 0)
        t1 += np.int64(c == 1)
        t2 += np.int64(c == 2)
    total[0], total[1], total[2] = float(t0), float(t1), float(t2)
    top, top_i, second = -np.inf, np.int64(-1), -np.inf
    if n < BLOCKED:
        top, top_i, second, _, _ = _rows_gini_three(known, zero, n - 1, zero, zero, t0, t1, t2,
                                                    min_leaf, start, top, top_i, second, -np.inf,
                                                    scratch.best_left)
        return top_i, top, second
    floor = _sampled_second_three(known, n, t0, t1, t2, min_leaf)  # as in _proxies_gini_two
    l0, l1 = zero, zero
    for a in range(0, n - 1, BLOCK):
        b = min(a + BLOCK, n - 1)
        bar = max(second, floor)
        if 0 < a and b < n - 1 and bar > -np.inf:
            d0, d1 = zero, zero
            for i in range(a, b):
                c = class_of(known[i])
                d0 += np.int64(c == 0)
                d1 += np.int64(c == 1)
            d2 = b - a - d0 - d1
            if _block_below_three(l0, l1, a - l0 - l1, d0, d1, d2, t0, t1, t2, bar):
                l0 += d0
                l1 += d1
                continue
        top, top_i, second, l0, l1 = _rows_gini_three(known, a, b, l0, l1, t0, t1, t2, min_leaf,
                                                      start, top, top_i, second, floor,
                                                      scratch.best_left)
    return top_i, top, second


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rows_gini_three(known, a, b, l0, l1, t0, t1, t2, min_leaf, start, top, top_i, second, floor,
                     best_left):
    """The cuts after rows a..b-1 of ``_proxies_gini_three``, from l0 and l1 rows of classes 0
    and 1 before row a: returns (top, top_i, second, l0, l1) after them (``_rows_gini_two``)."""
    w_all = float(t0 + t1 + t2)
    l2 = a - l0 - l1
    for i in range(a, b):
        c = class_of(known[i])
        l0 += np.int64(c == 0)
        l1 += np.int64(c == 1)
        l2 += np.int64(c == 2)
        if tied(known[i + 1]):
            continue
        ok, sq_left, sq_right, w_left, w_right = _cut_three(l0, l1, l2, t0, t1, t2, w_all,
                                                            min_leaf)
        if not ok:
            continue
        v = gini_proxy_above(sq_left, sq_right, w_left, w_right, max(second, floor))
        top, second, is_top = ranked(v, top, second)
        if is_top:
            top_i = start + i
            best_left[0], best_left[1], best_left[2] = float(l0), float(l1), float(l2)
    return top, top_i, second, l0, l1


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cut_three(l0, l1, l2, t0, t1, t2, w_all, min_leaf):
    """``_cut_two`` for three classes, from the left counts."""
    w_left = float(l0 + l1 + l2)
    w_right = w_all - w_left
    ok = not (w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0)
    r0, r1, r2 = t0 - l0, t1 - l1, t2 - l2
    return (ok, float(l0 * l0 + l1 * l1 + l2 * l2), float(r0 * r0 + r1 * r1 + r2 * r2), w_left,
            w_right)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _corner_below_three(l0, l1, l2, t0, t1, t2, second):
    """``_corner_below`` for three classes."""
    _, sq_left, sq_right, wl, wr = _cut_three(l0, l1, l2, t0, t1, t2, float(t0 + t1 + t2), 0.0)
    return sq_left * wr + sq_right * wl < second * (wl * wr) * SURE


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _block_below_three(l0, l1, l2, d0, d1, d2, t0, t1, t2, second):
    """``_block_below_two`` for three classes: the eight corners of the box of left counts."""
    for c0 in (l0, l0 + d0):
        for c1 in (l1, l1 + d1):
            for c2 in (l2, l2 + d2):
                if not _corner_below_three(c0, c1, c2, t0, t1, t2, second):
                    return False
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sampled_second_three(known, n, t0, t1, t2, min_leaf):
    """``_sampled_second_two`` for three classes."""
    w_all = float(t0 + t1 + t2)
    top, second = -np.inf, -np.inf
    l0, l1 = np.int64(0), np.int64(0)  # not literals (``bundles``, "Literals")
    for a in range(0, n - 1, BLOCK):
        b = min(a + BLOCK, n - 1)
        for i in range(a, b):
            c = class_of(known[i])
            l0 += np.int64(c == 0)
            l1 += np.int64(c == 1)
        if tied(known[b]):
            continue
        ok, sq_left, sq_right, w_left, w_right = _cut_three(l0, l1, b - l0 - l1, t0, t1, t2,
                                                            w_all, min_leaf)
        if ok:
            top, second, _ = ranked(sq_left / w_left + sq_right / w_right, top, second)
    return second

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _fill_proxies_gini_two(words, s, start, n, min_leaf, scratch):
    """Every boundary's proxy as ``_proxies_gini_two`` computes it (-inf where none is
    admissible) into scratch.proxy, for pass 2."""
    proxy = scratch.proxy
    known = words[s, start:start + n]
    t0 = np.int64(scratch.total[0])
    t1 = np.int64(scratch.total[1])
    w_all = scratch.total[0] + scratch.total[1]
    l1 = 0
    for i in range(n - 1):
        l1 += class_of(known[i])
        proxy[i] = -np.inf
        if tied(known[i + 1]):
            continue
        n_left = i + 1
        w_left = float(n_left)
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        l0 = n_left - l1
        r0 = t0 - l0
        r1 = t1 - l1
        sq_left = float(l0 * l0 + l1 * l1)
        sq_right = float(r0 * r0 + r1 * r1)
        proxy[i] = sq_left / w_left + sq_right / w_right


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scan_regression(words, s, start, n, w_row, yr_row, unit, min_leaf, min_rows, criterion,
                    scratch):
    """Best cut for squared error or Poisson deviance (``thresholds.best_threshold_regression``
    over the words): the first boundary whose proxy (``criteria.regression_proxy``; squared
    error: (sum_l wy)^2 / W_l + (sum_r wy)^2 / W_r) beats the best by TIE_TOLERANCE (relative),
    with ``min_leaf`` weight and ``min_rows`` rows each side. Returns the last left position or
    -1; the branch rows (w, wy, wy^2) go to scratch.branches."""
    end = start + n
    w_all, s_all, q_all = 0.0, 0.0, 0.0
    for i in range(start, end):
        r = words[s, i] & ROW_MASK
        wt = 1.0 if unit else w_row[r]
        wy = wt * yr_row[r]
        w_all += wt
        s_all += wy
        q_all += wy * yr_row[r]
    branches = scratch.branches
    w_left, s_left, q_left = 0.0, 0.0, 0.0
    best_i, best = -1, -np.inf
    for i in range(start, end - 1):
        r = words[s, i] & ROW_MASK
        wt = 1.0 if unit else w_row[r]
        wy = wt * yr_row[r]
        w_left += wt
        s_left += wy
        q_left += wy * yr_row[r]
        if tied(words[s, i + 1]):
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        if few_rows(i, start, n, min_rows):
            continue
        s_right = s_all - s_left
        proxy = regression_proxy(criterion, s_left, w_left, s_right, w_right)
        if proxy == -np.inf:  # a Poisson side without a positive sum
            continue
        if best_i < 0 or proxy > best + TIE_TOLERANCE * max(1.0, abs(best)):
            best_i, best = i, proxy
            branches[0, 0], branches[0, 1], branches[0, 2] = w_left, s_left, q_left
            branches[1, 0], branches[1, 1], branches[1, 2] = w_right, s_right, q_all - q_left
    return best_i


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def beats(a, b):
    """a > b beyond rounding (``surrogates._beats``)."""
    return a > b + TIE_TOLERANCE * max(1.0, abs(b))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def scan_surrogate(words, s, start, n, end, w_row, unit, dir_row, n_node0, n_node1, min_side):
    """Column s as a surrogate of the primary split (``surrogates.best_surrogate_threshold`` over
    the words): ``dir_row`` is each row's primary branch (-1: primary missing), by row id;
    ``unit``: every weight in ``w_row`` is 0 or 1 (a known word's weight is then 1, not read);
    n_node0/n_node1: the node's rows with primary branch 0/1 (read with ``unit`` only).
    Returns (position of the last row below the cut or -1, left branch, agreeing weight, number
    of primary-known rows)."""
    if unit:
        return _surrogate_counts(words, s, start, n, end, dir_row, n_node0, n_node1, min_side)
    end_known = start + n
    w0, w1 = 0.0, 0.0
    n_dir = 0
    for i in range(start, end_known):
        r = words[s, i] & ROW_MASK
        d = dir_row[r]
        if d == 0:
            w0 += w_row[r]
            n_dir += 1
        elif d == 1:
            w1 += w_row[r]
            n_dir += 1
    best = max(w0, w1)
    best_i, best_left = -1, 0
    below0, below1 = 0.0, 0.0
    n_below = 0
    for i in range(start + 1, end_known):
        r = words[s, i - 1] & ROW_MASK
        d = dir_row[r]
        if d == 0:
            below0 += w_row[r]
            n_below += 1
        elif d == 1:
            below1 += w_row[r]
            n_below += 1
        if tied(words[s, i]) or n_below < min_side or n_dir - n_below < min_side:
            continue
        agree_0 = below0 + (w1 - below1)  # x <= t -> branch 0
        agree_1 = below1 + (w0 - below0)  # x <= t -> branch 1
        if beats(agree_0, best):
            best, best_i, best_left = agree_0, i - 1, 0
        elif beats(agree_1, best):
            best, best_i, best_left = agree_1, i - 1, 1
    return best_i, best_left, best, n_dir


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def primary_known(words, s, start, n, end, dir_row, n_node0, n_node1):
    """The rows column s knows (of weight 1: ``_surrogate_counts``) that the primary sends a
    branch: the node's n_node0 + n_node1 less those among the column's END words. No surrogate
    on the column agrees on more."""
    known = n_node0 + n_node1
    for i in range(start + n, end):
        known -= np.int64(dir_row[words[s, i] & ROW_MASK] >= 0)
    return known


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _surrogate_counts(words, s, start, n, end, dir_row, n_node0, n_node1, min_side):
    """``scan_surrogate`` with unit weights, in one pass of integer counts.

    The column's primary-known rows per branch are the node's less those among its END words
    (n0, n1). Below a cut, with b rows of branch 0 and c of branch 1 and D = b - c,

        agree_0 = b + (n1 - c) = n1 + D,   agree_1 = c + (n0 - b) = n0 - D

    so the best cut sending x <= t to branch 0 is the first admissible boundary of largest D,
    and to branch 1 the first of smallest D. The reference takes the first boundary beating
    the best so far, from max(n0, n1), by TIE_TOLERANCE (relative): on integers below 10^12
    that is "strictly greater", so its choice is the first boundary reaching the larger of the
    two agreements (both cannot: they add up to n0 + n1 and must exceed max(n0, n1)). The
    branch of each row is read once and without a branch: it is a coin toss for a column
    unrelated to the primary."""
    known = words[s, start:start + n]  # views indexed from 0 (``segments._split_words``)
    missing = words[s, start + n:end]
    n0 = n_node0
    n1 = n_node1
    for i in range(missing.shape[0]):
        d = dir_row[missing[i] & ROW_MASK]
        n0 -= np.int64(d == 0)
        n1 -= np.int64(d == 1)
    n_dir = n0 + n1
    last = n - 2  # the last boundary: its row is below, the next one above
    # the boundaries with min_side primary-known rows above: up to ``last``, found from the end
    above = 0
    while last >= 0 and above < min_side:
        above += np.int64(dir_row[known[last + 1] & ROW_MASK] >= 0)
        if above < min_side:
            last -= 1
    below = 0  # primary-known rows below the cut
    below1 = 0  # of which branch 1
    first = 0  # and those with min_side below: from the first such row on
    while first <= last:
        d = dir_row[known[first] & ROW_MASK]
        if below + np.int64(d >= 0) >= min_side:
            break
        below += np.int64(d >= 0)
        below1 += np.int64(d == 1)
        first += 1
    d_max, i_max = -MAX_ROWS, -1
    d_min, i_min = MAX_ROWS, -1
    for i in range(first, last + 1):  # every boundary here is admissible unless tied
        d = dir_row[known[i] & ROW_MASK]
        below += np.int64(d >= 0)
        below1 += np.int64(d == 1)
        if tied(known[i + 1]):
            continue
        diff = below - 2 * below1
        if diff > d_max:  # both are rare after the first few rows: well predicted
            d_max, i_max = diff, i
        if diff < d_min:
            d_min, i_min = diff, i
    majority = max(n0, n1)
    if i_max < 0:
        return -1, 0, float(majority), n_dir
    agree_0 = n1 + d_max
    agree_1 = n0 - d_min
    if agree_0 > agree_1 or (agree_0 == agree_1 and i_max < i_min):
        best, best_i, best_left = agree_0, i_max, 0
    else:
        best, best_i, best_left = agree_1, i_min, 1
    if best <= majority:
        return -1, 0, float(majority), n_dir
    return start + best_i, best_left, float(best), n_dir
