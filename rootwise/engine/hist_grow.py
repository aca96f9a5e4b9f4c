"""The histogram grower (``splitter="hist"``): CART on binned columns, grown depth-first in numba.

Every column has been binned (``bins``): a node's statistics per feature are then a histogram,
per bin, of weighted class counts (classification) or of (w, w y, w y^2) (regression), and the
best split of a feature is a scan over the bins present at the node. The scans use the formulas
of the exact kernels (``numeric.best_threshold_*``, ``subsets.best_subset_*``,
``surrogates.best_surrogate_*``, ``candidates.score``), so when every bin holds one value the tree
is the exact tree (the sums are then the same numbers, bit for bit, whenever they are exact in
float64: integer weights and integer targets).

Histograms and the sibling trick: a node is a segment [start, end) of the row arrays (each row's
codes, target, weight), kept in ascending row order by a stable partition; the codes move with
their rows so that a node's passes read them in one sweep. When a node is split, only the smaller
child's histogram is built from its rows; the larger child's is the parent's minus it, computed in
place: about half the rows are read per level instead of all of them.

Small nodes: a histogram costs O(bins x features) to clear, subtract and scan whatever the rows.
A node with fewer than ``small`` rows gets no histogram; its entries (the bins present, with their
sums) come from one pass over its rows that marks their bins in a bitmap.

Unit weights: every sum is then an integer row count, exact in float64 in any order, so the class
scan works on prefix sums and a difference can stand for a sum (``_scan_class_unit``,
``_side_sur_entries``); the numbers are still the reference's, bit for bit.

Surrogates (CART's missing values) need, per other feature and bin, the weight and row count the
primary sends each way. Without missing primary values and with unit weights these come from the
two children's histograms (large nodes) or from the node's entries and its smaller child's rows;
otherwise one pass over the node's rows collects them.

Threads: features are independent, so histograms, scans and surrogate statistics are computed
feature by feature on numba's threads (for nodes with enough work); every sum runs in the same
order whatever the thread count, so the tree is the same for any ``n_jobs``.
"""

import numpy as np
from numba import njit, prange

from .._config import GINI, LEAF, SUBSET, THRESHOLD, TIE_TOLERANCE
from .arrays import grown, grown_rows
from .arrays import total as _total
from .candidates import numpy_sum, score
from .criteria import conditional_impurity, impurity, impurity_decrease
from .numeric import midpoint
from .subsets import best_subset_class, best_subset_regression

PARALLEL_MIN_WORK = 20000  # rows x features below which a node stays on one thread
WINDOW = 1000.0  # boundaries whose proxy is within this many tolerances get the exact decrease
NOT_FOUND = 0
FOUND = 1


# ----------------------------------------------------------------------------- entries


@njit(cache=True)
def _present(hist, counts, off, cell, C, unit, regression):
    """Whether a histogram cell holds a row. With unit weights the weights are row counts, exact
    after any subtraction; otherwise the row-count histogram decides."""
    if not unit:
        return counts[cell] > 0
    if regression:
        return hist[off] > 0.5
    s = 0.0
    for k in range(C):
        s += hist[off + k]
    return s > 0.5


@njit(cache=True)
def _entries_from_hist(j, hist, counts, B, C, nb, unit, regression, ent_code, ent_stats, miss):
    """The bins of feature j present at the node, ascending, with their sums (and the missing
    bin's sums in ``miss``), read from the node's histogram. Returns how many."""
    p = 0
    for b in range(nb):
        cell = j * B + b
        off = cell * C
        if _present(hist, counts, off, cell, C, unit, regression):
            ent_code[p] = b
            for k in range(C):
                ent_stats[p, k] = hist[off + k]
            p += 1
    off = (j * B + nb) * C
    for k in range(C):
        miss[k] = hist[off + k]
    return p


@njit(cache=True)
def _bit_index(low):
    """k for low = 2^k: the number of bits set in low - 1 (a SWAR population count, no table)."""
    x = low - np.uint64(1)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _sparse_entries(codes, syc, syr, sws, start, end, n_bins, B, C, regression, table,
                    bits, ent_code, ent_stats, ent_n, miss):
    """Every feature's entries at a small node, without a histogram: one pass over the rows adds
    each into ``table`` (a cleared histogram) and marks its bin in ``bits`` (a bitmap of 256 bins
    per feature); then the marked bins are read in ascending order, low bit first, and only they
    are cleared again. O(rows x features + bins present), none of it O(all bins)."""
    d = n_bins.shape[0]
    unit = sws.shape[0] == 0
    one = np.uint64(1)
    for t in range(start, end):
        wt = 1.0 if unit else sws[t]
        if regression:
            yv = syr[t]
            wy = wt * yv
            wyy = wy * yv
        else:
            k = syc[t]
        for j in range(d):
            c = np.int64(codes[t, j])
            off = (j * B + c) * C
            if regression:
                table[off] += wt
                table[off + 1] += wy
                table[off + 2] += wyy
            else:
                table[off + k] += wt
            bits[j * 4 + (c >> 6)] |= one << np.uint64(c & 63)
    for j in range(d):
        nb = n_bins[j]
        p = 0
        for k in range(C):
            miss[j, k] = 0.0
        for word in range(4):
            x = bits[j * 4 + word]
            while x != 0:
                low = x & (~x + one)
                c = word * 64 + _bit_index(low)
                off = (j * B + c) * C
                if c == nb:
                    for k in range(C):
                        miss[j, k] = table[off + k]
                else:
                    ent_code[j, p] = c
                    for k in range(C):
                        ent_stats[j, p, k] = table[off + k]
                    p += 1
                for k in range(C):
                    table[off + k] = 0.0
                x ^= low
            bits[j * 4 + word] = 0
        ent_n[j] = p


# ----------------------------------------------------------------------------- scans


@njit(cache=True)
def _xlogx(c):
    return c * np.log2(c) if c > 0.0 else 0.0


@njit(cache=True)
def _children_impurity(left, right, w_left, w_right, w_all, parent, criterion):
    """The reference's decrease I(D) - W_l/W I(D_l) - W_r/W I(D_r), as ``best_threshold_class``
    computes it (``criteria.impurity`` of each side's counts)."""
    return parent - (w_left / w_all) * impurity(left, criterion) \
        - (w_right / w_all) * impurity(right, criterion)


@njit(cache=True)
def _class_gain(branches, total_w, criterion, min_leaf):
    """``candidates.score``'s gain, rho * impurity decrease clipped at 0, for a two-row table.
    Below 8 classes numpy's row sums are plain sums from 0, written out here to avoid score's
    temporary arrays (a fully grown tree calls this millions of times)."""
    C = branches.shape[1]
    if C >= 8:
        gain, _, _, _, _ = score(branches, total_w, criterion, min_leaf, False)
        return gain
    s0, s1 = 0.0, 0.0
    for k in range(C):
        s0 += branches[0, k]
        s1 += branches[1, k]
    known_w = 0.0 + s0 + s1
    rho = known_w / total_w if total_w > 0 else 0.0
    gain = rho * impurity_decrease(branches, criterion)
    return gain if gain > 0.0 else 0.0


@njit(cache=True)
def _proxies_binary_gini(ent_stats, p, t0, t1, w_all, min_leaf, proxy):
    """Pass 1 of ``_scan_class`` for two classes and Gini, class weights in registers."""
    l0, l1 = 0.0, 0.0
    w_left = 0.0
    top = -np.inf
    for e in range(p - 1):
        a0, a1 = ent_stats[e, 0], ent_stats[e, 1]
        l0 += a0
        l1 += a1
        w_left += a0
        w_left += a1
        w_right = w_all - w_left
        proxy[e] = -np.inf
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        r0, r1 = t0 - l0, t1 - l1
        v = (l0 * l0 + l1 * l1) / w_left + (r0 * r0 + r1 * r1) / w_right
        proxy[e] = v
        if v > top:
            top = v
    return top


@njit(cache=True)
def _class_proxy(counts, row, total, w_left, w_right, gini):
    """The proxy ``_scan_class`` ranks boundaries by, for left class weights counts[row] (2-D and
    a row rather than a row view: a view costs a reference count per call):
        Gini:    sum_k l_k^2 / W_l + sum_k r_k^2 / W_r
        entropy: sum_k xlogx(l_k) + xlogx(r_k) - xlogx(W_l) - xlogx(W_r),   r_k = total_k - l_k."""
    v = 0.0
    if gini:
        sl, sr = 0.0, 0.0
        for k in range(total.shape[0]):
            r = total[k] - counts[row, k]
            sl += counts[row, k] * counts[row, k]
            sr += r * r
        return sl / w_left + sr / w_right
    for k in range(total.shape[0]):
        v += _xlogx(counts[row, k]) + _xlogx(total[k] - counts[row, k])
    return v - (_xlogx(w_left) + _xlogx(w_right))


@njit(cache=True)
def _scan_class(ent_stats, p, total_w, criterion, min_leaf, proxy, work):
    """``numeric.best_threshold_class`` over entries instead of rows, then ``candidates.score``:
    (index of the last entry on the left or -1, gain). ``work``: 5 x C scratch.

    The reference keeps the first boundary whose decrease beats the best so far by TIE_TOLERANCE.
    Computing that decrease (two impurities, 2 + 2C divisions) at every boundary dominates small
    nodes, so a first pass ranks the boundaries by an O(C) proxy of the same quantity,
        Gini:    W_l Gini_l + W_r Gini_r = W - (sum_k l_k^2 / W_l + sum_k r_k^2 / W_r)
        entropy: W_l Ent_l + W_r Ent_r = xlogx(W_l) + xlogx(W_r) - sum_k xlogx(l_k) - xlogx(r_k)
    (decrease = constant + proxy / W), and the reference's rule then runs, on the exact decrease,
    over the boundaries whose proxy is within ``WINDOW`` tolerances of the best: the others are
    more than a thousand tolerances below the best decrease (rounding in the proxy is ~1e-15 of
    it), so they can neither be chosen nor stand between two that are."""
    C = ent_stats.shape[1]
    total, left, right, branches = work[0], work[1], work[2], work[3:5]
    total[:] = 0.0
    for e in range(p):
        for k in range(C):
            total[k] += ent_stats[e, k]
    w_all = _total(total)
    gini = criterion == GINI
    if gini and C == 2:
        top = _proxies_binary_gini(ent_stats, p, total[0], total[1], w_all, min_leaf, proxy)
    else:
        left[:] = 0.0
        w_left = 0.0
        top = -np.inf
        for e in range(p - 1):
            for k in range(C):
                left[k] += ent_stats[e, k]
                w_left += ent_stats[e, k]
            w_right = w_all - w_left
            proxy[e] = -np.inf
            if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
                continue
            v = _class_proxy(work, np.int64(1), total, w_left, w_right, gini)
            proxy[e] = v
            if v > top:
                top = v
    if top == -np.inf:
        return -1, 0.0
    cut = top - WINDOW * TIE_TOLERANCE * max(1.0, w_all)
    parent = impurity(total, criterion)
    left[:] = 0.0
    w_left = 0.0
    best_i, best = -1, -np.inf
    for e in range(p - 1):
        for k in range(C):
            left[k] += ent_stats[e, k]
            w_left += ent_stats[e, k]
        if proxy[e] < cut:
            continue
        for k in range(C):
            right[k] = total[k] - left[k]
        dec = _children_impurity(left, right, w_left, w_all - w_left, w_all, parent, criterion)
        if dec > best + TIE_TOLERANCE:
            best_i, best = e, dec
    branches[:] = 0.0
    for e in range(p):
        for k in range(C):
            branches[0 if e <= best_i else 1, k] += ent_stats[e, k]
    return best_i, _class_gain(branches, total_w, criterion, min_leaf)


@njit(cache=True)
def _scan_class_unit(ent_stats, p, total_w, criterion, min_leaf, proxy, cum, work):
    """``_scan_class`` when every weight is 1. The sums are then integer row counts, exact in
    float64 in any order, so prefix sums can stand for the reference's running sums:
        cum[e, k] = sum_{i <= e} n_ik,   left = cum[e],   right = total - cum[e],
        W_l = sum_k cum[e, k],   total = cum[p - 1]
    are the very numbers it adds up, and the branches of the chosen cut are (cum[e], total -
    cum[e]). That turns the per-boundary work into one pass of independent additions and a pass of
    proxies with no loop-carried sum (instead of three dependent passes over the entries).
    The proxy is the Gini/entropy proxy of ``_scan_class``; Gini's two-class proxy is put over
    one denominator, (S_l W_r + S_r W_l) / (W_l W_r), which only moves its rounding (~1e-16 of
    W, far inside the WINDOW)."""
    C = ent_stats.shape[1]
    for k in range(C):
        s = 0.0
        for e in range(p):
            s += ent_stats[e, k]
            cum[e, k] = s
    total, right, branches, parent_counts = work[0], work[2], work[3:5], work[1]
    w_all = 0.0
    for k in range(C):
        total[k] = cum[p - 1, k]
        w_all += total[k]
    gini = criterion == GINI
    top = -np.inf
    if gini and C == 2:
        t0, t1 = total[0], total[1]
        for e in range(p - 1):
            l0, l1 = cum[e, 0], cum[e, 1]
            w_left = l0 + l1
            w_right = w_all - w_left
            r0, r1 = t0 - l0, t1 - l1
            ok = w_left >= min_leaf and w_right >= min_leaf and w_left > 0.0 and w_right > 0.0
            den = w_left * w_right if ok else 1.0
            v = ((l0 * l0 + l1 * l1) * w_right + (r0 * r0 + r1 * r1) * w_left) / den
            v = v if ok else -np.inf
            proxy[e] = v
            top = max(top, v)
    else:
        for e in range(p - 1):
            w_left = 0.0
            for k in range(C):
                w_left += cum[e, k]
            w_right = w_all - w_left
            proxy[e] = -np.inf
            if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
                continue
            v = _class_proxy(cum, e, total, w_left, w_right, gini)
            proxy[e] = v
            top = max(top, v)
    if top == -np.inf:
        return -1, 0.0
    cut = top - WINDOW * TIE_TOLERANCE * max(1.0, w_all)
    parent = impurity(total, criterion)
    best_i, best = -1, -np.inf
    for e in range(p - 1):
        if proxy[e] < cut:
            continue
        left = cum[e]
        w_left = 0.0
        for k in range(C):
            right[k] = total[k] - left[k]
            w_left += left[k]
        dec = _children_impurity(left, right, w_left, w_all - w_left, w_all, parent, criterion)
        if dec > best + TIE_TOLERANCE:
            best_i, best = e, dec
    if best_i < 0:  # no boundary within the window (cannot happen: the top one is)
        return -1, 0.0
    for k in range(C):
        branches[0, k] = cum[best_i, k]
        branches[1, k] = total[k] - cum[best_i, k]
    return best_i, _class_gain_into(branches, total_w, criterion, min_leaf, parent_counts)


@njit(cache=True)
def _class_gain_into(branches, total_w, criterion, min_leaf, scratch):
    """``_class_gain`` with the parent's counts (``criteria.parent_counts``: 0 + n_0k + n_1k) in
    ``scratch`` instead of a new array, then I(parent) - ``conditional_impurity``: the same
    operations in the same order."""
    C = branches.shape[1]
    if C >= 8:
        return _class_gain(branches, total_w, criterion, min_leaf)
    s0, s1 = 0.0, 0.0
    for k in range(C):
        s0 += branches[0, k]
        s1 += branches[1, k]
        scratch[k] = 0.0 + branches[0, k] + branches[1, k]
    known_w = 0.0 + s0 + s1
    rho = known_w / total_w if total_w > 0 else 0.0
    gain = rho * (impurity(scratch, criterion) - conditional_impurity(branches, criterion))
    return gain if gain > 0.0 else 0.0


@njit(cache=True)
def sse_decrease(branches):
    """``reference.splitter._sse_decrease``: (SSE(D) - sum_v SSE(D^v)) / W from per-branch (w, wy, wy^2),
    SSE = sum w y^2 - (sum w y)^2 / sum w, summed in the same order."""
    total_w = 0.0 + branches[0, 0] + branches[1, 0]
    if total_w <= 0:
        return 0.0
    q = 0.0 + branches[0, 2] + branches[1, 2]
    s = 0.0 + branches[0, 1] + branches[1, 1]
    parent = q - s ** 2 / total_w
    children = 0.0
    for v in range(2):
        if branches[v, 0] > 0:
            children = children + (branches[v, 2] - branches[v, 1] ** 2 / branches[v, 0])
    return (parent - children) / total_w


@njit(cache=True)
def _regression_gain(branches, total_w):
    """``Splitter._candidate``'s gain for regression: rho * SSE decrease, at least 0."""
    known_w = 0.0 + branches[0, 0] + branches[1, 0]
    rho = known_w / total_w if total_w > 0 else 0.0
    gain = rho * sse_decrease(branches)
    return gain if gain > 0.0 else 0.0


@njit(cache=True)
def _scan_regression(ent_stats, p, total_w, min_leaf, work):
    """``numeric.best_threshold_regression`` over entries, then the candidate's gain."""
    w_all, s_all = 0.0, 0.0
    for e in range(p):
        w_all += ent_stats[e, 0]
        s_all += ent_stats[e, 1]
    w_left, s_left = 0.0, 0.0
    best_i, best_proxy = -1, -np.inf
    for e in range(p - 1):
        w_left += ent_stats[e, 0]
        s_left += ent_stats[e, 1]
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        s_right = s_all - s_left
        proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if best_i < 0 or proxy > best_proxy + TIE_TOLERANCE * max(1.0, abs(best_proxy)):
            best_i, best_proxy = e, proxy
    if best_i < 0 or w_all <= 0.0:
        return -1, 0.0
    branches = work[0:2]
    branches[:] = 0.0
    for e in range(p):
        for k in range(3):
            branches[0 if e <= best_i else 1, k] += ent_stats[e, k]
    return best_i, _regression_gain(branches, total_w)


@njit(cache=True)
def _scan_subset(ent_code, ent_stats, p, k_cat, total_w, criterion, regression, min_leaf,
                 max_exhaustive, side_out):
    """``Splitter._subset`` on the per-category table: best subset (``subsets``), its gain.
    Writes the side of every category into ``side_out``; returns (found, gain)."""
    C = ent_stats.shape[1]
    table = np.zeros((k_cat, C))
    for e in range(p):
        for k in range(C):
            table[ent_code[e], k] = ent_stats[e, k]
    if regression:
        side, dec = best_subset_regression(table, min_leaf)
    else:
        side, dec = best_subset_class(table, criterion, min_leaf, max_exhaustive)
    if dec == -np.inf:
        return False, 0.0
    branches = np.zeros((2, C))
    for v in range(k_cat):
        if side[v] >= 0:
            for k in range(C):
                branches[side[v], k] += table[v, k]
        side_out[v] = side[v]
    if regression:
        return True, _regression_gain(branches, total_w)
    gain, _, _, _, _ = score(branches, total_w, criterion, min_leaf, False)
    return True, gain


@njit(cache=True)
def _search_range(j0, j1, has_hist, hist, counts, B, C, n_bins, categorical, unit, regression,
                  total_w, criterion, min_leaf, max_exhaustive, ent_n, ent_code, ent_stats, ent_cum,
                  miss, proxies, work, found, gain, cut, after, side):
    """Best split of features j0..j1-1 at the node, written to found/gain/cut/after/side[j].
    The loop is inside: one call per node, not per feature (a call passing two dozen arrays
    costs more than a small node's whole scan)."""
    for j in range(j0, j1):
        nb = n_bins[j]
        if has_hist:
            p = _entries_from_hist(j, hist, counts, B, C, nb, unit, regression, ent_code[j],
                                   ent_stats[j], miss[j])
            ent_n[j] = p
        else:  # a small node: ``_sparse_entries`` has filled them
            p = ent_n[j]
        found[j] = NOT_FOUND
        if p < 2:
            continue
        if categorical[j]:
            ok, g = _scan_subset(ent_code[j], ent_stats[j], p, nb, total_w, criterion, regression,
                                 min_leaf, max_exhaustive, side[j])
            if ok:
                found[j], gain[j] = FOUND, g
            continue
        if regression:
            i, g = _scan_regression(ent_stats[j], p, total_w, min_leaf, work[j])
        elif unit:
            i, g = _scan_class_unit(ent_stats[j], p, total_w, criterion, min_leaf, proxies[j],
                                    ent_cum[j], work[j])
        else:
            i, g = _scan_class(ent_stats[j], p, total_w, criterion, min_leaf, proxies[j], work[j])
        if i >= 0:
            found[j], gain[j] = FOUND, g
            cut[j] = ent_code[j, i]
            after[j] = ent_code[j, i + 1]


@njit(cache=True, parallel=True)
def _search_parallel(has_hist, hist, counts, B, C, n_bins, categorical, unit, regression, total_w,
                     criterion, min_leaf, max_exhaustive, ent_n, ent_code, ent_stats, ent_cum,
                     miss, proxies, work, found, gain, cut, after, side):
    for j in prange(n_bins.shape[0]):
        _search_range(j, j + 1, has_hist, hist, counts, B, C, n_bins, categorical, unit,
                      regression, total_w, criterion, min_leaf, max_exhaustive, ent_n, ent_code,
                      ent_stats, ent_cum, miss, proxies, work, found, gain, cut, after, side)


@njit(cache=True)
def _choose(found, gain):
    """``candidates.choose`` for CART's rule without its temporary arrays: the first feature
    whose gain is within TIE_TOLERANCE of the largest, -1 when none was found."""
    top = -np.inf
    for j in range(found.shape[0]):
        if found[j] == FOUND and gain[j] > top:
            top = gain[j]
    for j in range(found.shape[0]):
        if found[j] == FOUND and gain[j] >= top - TIE_TOLERANCE:
            return j
    return -1


# ----------------------------------------------------------------------------- histograms


@njit(cache=True)
def _accumulate(hist, counts, codes, syc, syr, sws, a, b, j0, j1, B, C, regression):
    """Add rows a..b-1 of the segment arrays into the histogram of features j0..j1-1."""
    unit = sws.shape[0] == 0
    for t in range(a, b):
        wt = 1.0 if unit else sws[t]
        if regression:
            yv = syr[t]
            wy = wt * yv
            wyy = wy * yv
            for j in range(j0, j1):
                off = (j * B + codes[t, j]) * 3
                hist[off] += wt
                hist[off + 1] += wy
                hist[off + 2] += wyy
        else:
            k = syc[t]
            for j in range(j0, j1):
                hist[(j * B + codes[t, j]) * C + k] += wt
        if not unit:
            for j in range(j0, j1):
                counts[j * B + codes[t, j]] += 1


@njit(cache=True, parallel=True)
def _accumulate_parallel(hist, counts, codes, syc, syr, sws, a, b, d, B, C, regression,
                         blocks):
    size = (d + blocks - 1) // blocks
    for blk in prange(blocks):
        _accumulate(hist, counts, codes, syc, syr, sws, a, b, blk * size,
                    min(d, (blk + 1) * size), B, C, regression)


@njit(cache=True)
def _build(hist, counts, codes, syc, syr, sws, a, b, d, B, C, regression, n_threads):
    """The histogram of segment rows a..b-1 (written over ``hist``), features in ``n_threads``
    blocks when there is enough work."""
    hist[:] = 0.0
    if counts.shape[0] > 0:
        counts[:] = 0
    blocks = min(n_threads, d)
    if blocks > 1 and (b - a) * d >= PARALLEL_MIN_WORK:
        _accumulate_parallel(hist, counts, codes, syc, syr, sws, a, b, d, B, C, regression,
                             blocks)
    else:
        _accumulate(hist, counts, codes, syc, syr, sws, a, b, 0, d, B, C, regression)


# ----------------------------------------------------------------------------- surrogates


@njit(cache=True)
def _beats(a, b):
    """``surrogates._beats``: a > b beyond rounding."""
    return a > b + TIE_TOLERANCE * max(1.0, abs(b))


@njit(cache=True)
def _heavier(m0, m1):
    """``reference.missing._heavier``: 0 or 1 for the heavier weight, -1 when they tie up to rounding."""
    if abs(m0 - m1) <= TIE_TOLERANCE * max(1.0, max(m0, m1)):
        return -1
    return 1 if m1 > m0 else 0


@njit(cache=True)
def _sur_stats_from_rows(codes, sws, start, end, direction, d, B, skip, sw, sn, spm):
    """Per feature and bin: weight (sw) and positive-weight rows (sn) the primary sends each way,
    and rows whose primary value is missing (spm)."""
    unit = sws.shape[0] == 0
    sw[:] = 0.0
    sn[:] = 0
    spm[:] = 0
    for t in range(start, end):
        dr = direction[t - start]
        wt = 1.0 if unit else sws[t]
        for j in range(d):
            if j == skip:
                continue
            cell = j * B + codes[t, j]
            if dr < 0:
                spm[cell] += 1
            else:
                sw[cell, dr] += wt
                if wt > 0.0:
                    sn[cell, dr] += 1


@njit(cache=True)
def _sur_stats_from_children(left, right, d, B, C, regression, skip, sw, sn, spm):
    """The same statistics from the two children's histograms (unit weights, primary known
    everywhere: the children are the primary's two sides and weights are row counts)."""
    spm[:] = 0
    for j in range(d):
        if j == skip:
            continue
        for b in range(B):
            cell = j * B + b
            for side in range(2):
                h = left if side == 0 else right
                if regression:
                    s = h[cell * 3]
                else:
                    s = 0.0
                    for k in range(C):
                        s += h[cell * C + k]
                sw[cell, side] = s
                sn[cell, side] = np.int64(s + 0.5)


@njit(cache=True)
def _sur_entries_dense(j, B, nb, sw, sn, spm, e_code, e_w, e_n, e_pm):
    """The bins of feature j held by a row of the node, ascending, with the statistics of
    ``_sur_stats_from_*``. Returns how many."""
    p = 0
    for b in range(nb):
        cell = j * B + b
        if sn[cell, 0] + sn[cell, 1] + spm[cell] == 0:
            continue  # no row at the node has this bin
        e_code[p] = b
        e_w[p, 0], e_w[p, 1] = sw[cell, 0], sw[cell, 1]
        e_n[p, 0], e_n[p, 1] = sn[cell, 0], sn[cell, 1]
        e_pm[p] = spm[cell]
        p += 1
    return p


@njit(cache=True)
def _sparse_sur_entries(codes, sws, start, end, direction, n_bins, B, skip, table, bits,
                        se_code, se_w, se_n, se_pm, se_p):
    """``_sur_entries_dense`` of every feature at a small node, the way ``_sparse_entries`` makes
    the split entries: per bin (w sent 0, w sent 1, rows sent 0, rows sent 1, rows without the
    primary) in ``table``, bins marked in ``bits``, then read in order and cleared."""
    d = n_bins.shape[0]
    unit = sws.shape[0] == 0
    one = np.uint64(1)
    for t in range(start, end):
        wt = 1.0 if unit else sws[t]
        dr = direction[t - start]
        for j in range(d):
            if j == skip:
                continue
            c = np.int64(codes[t, j])
            off = (j * B + c) * 5
            if dr < 0:
                table[off + 4] += 1.0
            else:
                table[off + dr] += wt
                if not unit and wt > 0.0:  # with unit weights the row counts are the weights
                    table[off + 2 + dr] += 1.0
            bits[j * 4 + (c >> 6)] |= one << np.uint64(c & 63)
    for j in range(d):
        se_p[j] = 0
        if j == skip:
            continue
        nb = n_bins[j]
        p = 0
        for word in range(4):
            x = bits[j * 4 + word]
            while x != 0:
                low = x & (~x + one)
                c = word * 64 + _bit_index(low)
                off = (j * B + c) * 5
                if c != nb:
                    se_code[j, p] = c
                    se_w[j, p, 0], se_w[j, p, 1] = table[off], table[off + 1]
                    rows0 = table[off] if unit else table[off + 2]
                    rows1 = table[off + 1] if unit else table[off + 3]
                    se_n[j, p, 0] = np.int64(rows0)
                    se_n[j, p, 1] = np.int64(rows1)
                    se_pm[j, p] = np.int64(table[off + 4])
                    p += 1
                for k in range(5):
                    table[off + k] = 0.0
                x ^= low
            bits[j * 4 + word] = 0
        se_p[j] = p


@njit(cache=True)
def _side_sur_entries(codes, a, b, side, ent_code, ent_stats, ent_n, n_bins, B, regression,
                      skip, tally, se_code, se_w, se_n, se_pm, se_p):
    """The entries of ``_sparse_sur_entries`` when every weight is 1 and every row has the
    primary, from one child only: the node's split entries (``ent_*``: its bins present and
    their row counts n_b) are the bins; the rows a..b-1 of child ``side`` (the smaller) give its
    count s_b per bin, and the other child holds n_b - s_b (integers: exact). Costs the smaller
    child's rows instead of all the node's, and no bitmap. ``tally``: d x B, kept clear."""
    d = n_bins.shape[0]
    for t in range(a, b):
        for j in range(d):
            if j != skip:
                tally[j * B + np.int64(codes[t, j])] += 1
    for j in range(d):
        se_p[j] = 0
        if j == skip:
            continue
        p = ent_n[j]
        for e in range(p):
            c = ent_code[j, e]
            if regression:
                n_b = np.int64(ent_stats[j, e, 0])
            else:
                s = 0.0
                for k in range(ent_stats.shape[2]):
                    s += ent_stats[j, e, k]
                n_b = np.int64(s)
            s_b = tally[j * B + c]
            tally[j * B + c] = 0
            se_code[j, e] = c
            se_n[j, e, side] = s_b
            se_n[j, e, 1 - side] = n_b - s_b
            se_w[j, e, side] = s_b
            se_w[j, e, 1 - side] = n_b - s_b
            se_pm[j, e] = 0
        se_p[j] = p
        tally[j * B + n_bins[j]] = 0  # the missing bin is no entry: cleared here


@njit(cache=True)
def _surrogate_threshold(j, p, se_code, se_w, se_n, bin_min, bin_max, min_side):
    """``surrogates.best_surrogate_threshold`` over the entries of feature j (the bins held by the
    node's rows that have it, primary missing included). Returns (threshold, left_branch,
    agreeing weight, last bin on the left); threshold NaN when no cut qualifies."""
    w0, w1 = 0.0, 0.0
    n_dir = 0
    for e in range(p):
        w0 += se_w[j, e, 0]
        w1 += se_w[j, e, 1]
        n_dir += se_n[j, e, 0] + se_n[j, e, 1]
    best = max(w0, w1)
    best_t, best_left, best_cut = np.nan, 0, -1
    below0, below1 = 0.0, 0.0
    n_below = 0
    for e in range(p):
        if e > 0 and n_below >= min_side and n_dir - n_below >= min_side:
            agree_0 = below0 + (w1 - below1)
            agree_1 = below1 + (w0 - below0)
            if _beats(agree_0, best):
                best, best_left, best_cut = agree_0, 0, se_code[j, e - 1]
                best_t = midpoint(bin_max[j, se_code[j, e - 1]], bin_min[j, se_code[j, e]])
            elif _beats(agree_1, best):
                best, best_left, best_cut = agree_1, 1, se_code[j, e - 1]
                best_t = midpoint(bin_max[j, se_code[j, e - 1]], bin_min[j, se_code[j, e]])
        below0 += se_w[j, e, 0]
        below1 += se_w[j, e, 1]
        n_below += se_n[j, e, 0] + se_n[j, e, 1]
    return best_t, best_left, best, best_cut


@njit(cache=True)
def _surrogate_subset(j, p, se_code, se_w, se_n, k_cat, tie_branch, min_side, sides):
    """``surrogates.best_surrogate_subset`` from the per-category entries of feature j; the
    branch of each category into sides[j]. (Arrays and j rather than row views: these run per
    feature and node, and every view costs a reference count.)"""
    for v in range(k_cat):
        sides[j, v] = -1
    agree = 0.0
    sent0, sent1 = 0, 0
    for e in range(p):
        rows = se_n[j, e, 0] + se_n[j, e, 1]
        if rows == 0:
            continue
        if _beats(se_w[j, e, 1], se_w[j, e, 0]):
            b = 1
        elif _beats(se_w[j, e, 0], se_w[j, e, 1]):
            b = 0
        else:
            b = tie_branch
        sides[j, se_code[j, e]] = b
        agree += se_w[j, e, b]
        if b == 0:
            sent0 += rows
        else:
            sent1 += rows
    if sent0 < min_side or sent1 < min_side:
        return -1.0
    return agree


@njit(cache=True)
def _surrogates(d, B, n_bins, categorical, primary, mass0, mass1, majority_branch, dense, sw, sn,
                spm, se_code, se_w, se_n, se_pm, se_p, bin_min, bin_max, max_surrogates,
                min_side, min_adjusted, c_agree, c_t, c_left, c_cut, c_side, order):
    """``reference.missing.find_surrogates``: every other feature's best surrogate, kept when its adjusted
    agreement exceeds ``min_adjusted``, ranked by agreement to 12 digits (ties: lower feature).
    The statistics come from sw/sn/spm (``dense``) or are the entries ``_sparse_sur_entries``
    made (se_*, se_p[j] of them for feature j). Writes the ranking
    into ``order``; returns how many."""
    total = mass0 + mass1
    majority = max(mass0, mass1) / total
    for j in range(d):
        c_agree[j] = -1.0
        if j == primary:
            continue
        nb = n_bins[j]
        if dense:
            p = _sur_entries_dense(j, B, nb, sw, sn, spm, se_code[j], se_w[j], se_n[j], se_pm[j])
        else:
            p = se_p[j]
        known_rows = 0
        for e in range(p):
            known_rows += se_n[j, e, 0] + se_n[j, e, 1]
        if known_rows < 2 * min_side:
            continue
        if categorical[j]:
            v0, v1 = 0.0, 0.0
            for e in range(p):
                v0 += se_w[j, e, 0]
                v1 += se_w[j, e, 1]
            tie = _heavier(v0, v1)
            if tie < 0:
                tie = max(majority_branch, 0)
            agree = _surrogate_subset(j, p, se_code, se_w, se_n, nb, tie, min_side, c_side)
            if agree < 0:
                continue
            c_t[j] = np.nan
            c_left[j] = 0
        else:
            t, left, agree, cut = _surrogate_threshold(j, p, se_code, se_w, se_n, bin_min,
                                                       bin_max, min_side)
            if np.isnan(t):
                continue
            c_t[j] = t
            c_left[j] = left
            c_cut[j] = cut
        agreement = agree / total
        if (agreement - majority) / (1.0 - majority) > min_adjusted:
            c_agree[j] = agreement
    # rank by agreement to 12 digits, as the reference does; a taken feature's key drops to -1
    key = np.floor(c_agree * 1e12 + 0.5)
    count = 0
    while count < max_surrogates:
        best_j = -1
        for j in range(d):
            if c_agree[j] >= 0.0 and key[j] >= 0.0 and (best_j < 0 or key[j] > key[best_j]):
                best_j = j
        if best_j < 0:
            break
        order[count] = best_j
        key[best_j] = -1.0
        count += 1
    return count


# ----------------------------------------------------------------------------- partition


@njit(cache=True)
def _split_array(a, start, m, g, buf):
    """Stable partition of a[start:start+m] by the 0/1 flags g (1 = left first), branch-free."""
    n_left = 0
    n_right = 0
    for i in range(m):
        x = a[start + i]
        a[start + n_left] = x
        buf[n_right] = x
        gi = g[i]
        n_left += gi
        n_right += 1 - gi
    for t in range(n_right):
        a[start + n_left + t] = buf[t]
    return n_left


@njit(cache=True)
def _split_rows(a, start, m, g, buf):
    """``_split_array`` for whole rows of a 2-D array (a segment's codes as 64-bit words)."""
    k_words = a.shape[1]
    n_left = 0
    n_right = 0
    for i in range(m):
        for k in range(k_words):
            x = a[start + i, k]
            a[start + n_left, k] = x
            buf[n_right, k] = x
        gi = g[i]
        n_left += gi
        n_right += 1 - gi
    for t in range(n_right):
        for k in range(k_words):
            a[start + n_left + t, k] = buf[t, k]
    return n_left


# ----------------------------------------------------------------------------- growth


@njit(cache=True)
def _node_value(syc, syr, sws, start, end, criterion, regression, out, ws, prod):
    """Writes the node's value into ``out`` (class counts, or the mean) and returns (weight,
    impurity, pure), summed as the reference builder sums: class counts row by row, regression
    totals as numpy's pairwise sums. ``ws`` and ``prod``: scratch of at least the node's rows."""
    m = end - start
    unit = sws.shape[0] == 0
    if regression:
        for t in range(m):
            ws[t] = 1.0 if unit else sws[start + t]
        total = numpy_sum(ws[:m])
        for t in range(m):
            prod[t] = ws[t] * syr[start + t]
        mean = numpy_sum(prod[:m]) / total
        pure = True
        for t in range(m):
            dev = syr[start + t] - mean
            prod[t] = ws[t] * dev ** 2
            if syr[start + t] != syr[start]:
                pure = False
        out[0] = mean
        return total, numpy_sum(prod[:m]) / total, pure
    out[:] = 0.0
    for t in range(start, end):
        out[syc[t]] += 1.0 if unit else sws[t]
    classes = 0
    for k in range(out.shape[0]):
        if out[k] > 0:
            classes += 1
    return numpy_sum(out), impurity(out, criterion), classes <= 1


@njit(cache=True)
def _append_branches(pool, n_pool, branch_of_code, k):
    """Append a subset test's branch per category code (its first ``k`` entries) to the category
    pool; returns the pool (grown if needed) and its new length."""
    if n_pool + k > pool.shape[0]:
        pool = grown(pool, n_pool + k)
    for v in range(k):
        pool[n_pool + v] = branch_of_code[v]
    return pool, n_pool + k


@njit(cache=True)
def grow_hist(codes, n_bins, categorical, bin_min, bin_max, yc, yr, w, n_classes, criterion,
              regression, max_depth, min_samples_split, min_leaf, min_impurity_decrease,
              impurity_threshold, max_exhaustive, max_surrogates, min_side, min_adjusted, small,
              n_threads):
    """Grow depth-first (branch 0 first); children of a node get consecutive ids. ``codes``: rows x
    features, bin or category code, ``n_bins[j]`` = the missing code of feature j. Returns the
    node arrays, values, category pool and surrogate table (see ``engine.hist``). ``n_threads``:
    numba's thread count (1: everything on the calling thread)."""
    n, d = codes.shape
    C = 3 if regression else n_classes
    n_out = 1 if regression else n_classes
    B = 1
    for j in range(d):
        B = max(B, n_bins[j] + 1)
    unit = True
    for r in range(n):
        if w[r] != 1.0:
            unit = False
            break
    total_w = numpy_sum(w)

    # segment arrays: the rows' codes, targets and weights, in node order. The codes move with
    # their row (a row's d bytes as 64-bit words, ``_split_rows``) so that every pass over a
    # node's rows reads its codes in one sweep: indexing a fixed matrix by row id would cost a
    # cache miss per row of a deep node, whose rows are scattered over the whole matrix.
    n_words = (d + 7) // 8
    words = np.zeros((n, n_words), dtype=np.uint64)
    seg = words.view(np.uint8)  # seg[t, j]: the code of feature j of the segment's row t
    for r in range(n):
        for j in range(d):
            seg[r, j] = codes[r, j]
    buf_w = np.empty((n, n_words), dtype=np.uint64)
    syc = yc.copy()
    syr = yr.copy()
    sws = np.empty(0) if unit else w.copy()
    g = np.empty(n, dtype=np.int64)
    buf_i = np.empty(n, dtype=np.int64)
    buf_f = np.empty(n)
    buf_f2 = np.empty(n if regression else 0)

    # histogram slots, reused through a free list
    size = d * B * C
    n_slots = 4
    pool_h = np.zeros((n_slots, size))
    pool_c = np.zeros((n_slots, 0 if unit else d * B), dtype=np.int64)
    free = np.arange(n_slots - 1, -1, -1)
    n_free = n_slots

    # per-feature scratch
    found = np.zeros(d, dtype=np.int64)
    gain = np.zeros(d)
    cut = np.zeros(d, dtype=np.int64)
    after = np.zeros(d, dtype=np.int64)
    side = np.full((d, B), -1, dtype=np.int64)
    ent_code = np.zeros((d, B), dtype=np.int64)
    ent_stats = np.zeros((d, B, C))
    ent_cum = np.zeros((d, B, C))  # prefix sums of ent_stats (unit weights' scan)
    miss = np.zeros((d, C))
    proxies = np.zeros((d, B))
    work = np.zeros((d, 5, C))  # per feature: total, left, right, and the two branches
    ent_n = np.zeros(d, dtype=np.int64)
    table = np.zeros(d * B * C)  # small nodes' sparse histogram, kept clear between uses
    bits = np.zeros(d * 4, dtype=np.uint64)
    table5 = np.zeros(d * B * 5)
    tally = np.zeros(d * B, dtype=np.int64)  # one child's rows per bin, kept clear
    direction = np.empty(n, dtype=np.int64)
    sw = np.zeros((d * B, 2))
    sn = np.zeros((d * B, 2), dtype=np.int64)
    spm = np.zeros(d * B, dtype=np.int64)
    c_agree = np.empty(d)
    c_t = np.empty(d)
    c_left = np.zeros(d, dtype=np.int64)
    c_cut = np.zeros(d, dtype=np.int64)
    c_side = np.full((d, B), -1, dtype=np.int64)
    s_order = np.zeros(max(max_surrogates, 1), dtype=np.int64)
    se_code = np.zeros((d, B), dtype=np.int64)
    se_w = np.zeros((d, B, 2))
    se_n = np.zeros((d, B, 2), dtype=np.int64)
    se_pm = np.zeros((d, B), dtype=np.int64)
    se_p = np.zeros(d, dtype=np.int64)

    # the tree
    cap = 64
    feature = np.full(cap, -1, dtype=np.int64)
    kind = np.zeros(cap, dtype=np.int64)
    threshold = np.full(cap, np.nan)
    first_child = np.full(cap, -1, dtype=np.int64)
    pool_offset = np.full(cap, -1, dtype=np.int64)
    parent = np.full(cap, -1, dtype=np.int64)
    depth = np.zeros(cap, dtype=np.int64)
    imp_arr = np.zeros(cap)
    n_samples = np.zeros(cap, dtype=np.int64)
    wsum = np.zeros(cap)
    fraction = np.ones(cap)
    missing_branch = np.full(cap, -1, dtype=np.int64)
    improvement = np.zeros(cap)
    s_offset = np.full(cap, -1, dtype=np.int64)
    s_count = np.zeros(cap, dtype=np.int64)
    value = np.zeros((cap, n_out))
    cat_pool = np.zeros(64, dtype=np.int64)
    n_pool = 0
    s_cap = 64
    s_feature = np.zeros(s_cap, dtype=np.int64)
    s_kind = np.zeros(s_cap, dtype=np.int64)
    s_threshold = np.zeros(s_cap)
    s_left = np.zeros(s_cap, dtype=np.int64)
    s_pool = np.zeros(s_cap, dtype=np.int64)
    s_agree = np.zeros(s_cap)
    s_adj = np.zeros(s_cap)
    n_sur = 0

    st_node = np.zeros(64, dtype=np.int64)
    st_start = np.zeros(64, dtype=np.int64)
    st_end = np.zeros(64, dtype=np.int64)
    st_slot = np.zeros(64, dtype=np.int64)
    top = 0
    count = 1
    root_slot = -1
    if n >= small:
        n_free -= 1
        root_slot = free[n_free]
        _build(pool_h[root_slot], pool_c[root_slot], seg, syc, syr, sws, 0, n, d, B, C,
               regression, n_threads)
    st_node[0], st_start[0], st_end[0], st_slot[0] = 0, 0, n, root_slot
    top = 1

    while top > 0:
        top -= 1
        node, start, end, slot = st_node[top], st_start[top], st_end[top], st_slot[top]
        m = end - start
        W, imp, pure = _node_value(syc, syr, sws, start, end, criterion, regression, value[node],
                                   buf_f, buf_f2)
        wsum[node] = W
        imp_arr[node] = imp
        n_samples[node] = m
        if (W <= 0.0 or pure or depth[node] >= max_depth or W < min_samples_split
                or imp < impurity_threshold):
            if slot >= 0:
                free[n_free] = slot
                n_free += 1
            continue

        # ---- split search, feature by feature
        has_hist = slot >= 0
        if not has_hist:
            _sparse_entries(seg, syc, syr, sws, start, end, n_bins, B, C, regression,
                            table, bits, ent_code, ent_stats, ent_n, miss)
        hist = pool_h[max(slot, 0)]
        counts = pool_c[max(slot, 0)]
        if m * d >= PARALLEL_MIN_WORK and n_threads > 1:
            _search_parallel(has_hist, hist, counts, B, C, n_bins, categorical, unit, regression,
                             W, criterion, min_leaf, max_exhaustive, ent_n, ent_code, ent_stats,
                             ent_cum, miss, proxies, work, found, gain, cut, after, side)
        else:
            _search_range(0, d, has_hist, hist, counts, B, C, n_bins, categorical, unit,
                          regression, W, criterion, min_leaf, max_exhaustive, ent_n, ent_code,
                          ent_stats, ent_cum, miss, proxies, work, found, gain, cut, after, side)
        best_j = _choose(found, gain)
        if best_j < 0 or gain[best_j] * W / total_w < min_impurity_decrease:
            if slot >= 0:
                free[n_free] = slot
                n_free += 1
            continue
        j = best_j

        # ---- the primary's direction of every row (-1: value missing)
        miss_code = n_bins[j]
        mass0, mass1 = 0.0, 0.0
        n_lost = 0
        for t in range(start, end):
            code = seg[t, j]
            if code == miss_code:
                dr = -1
                n_lost += 1
            elif categorical[j]:
                dr = side[j, code]
            else:
                dr = 0 if code <= cut[j] else 1
            direction[t - start] = dr
            wt = 1.0 if unit else sws[t]
            if dr == 0:
                mass0 += wt
            elif dr == 1:
                mass1 += wt
        majority_branch = _heavier(mass0, mass1)
        # a surrogate needs min_side primary-known rows each way: fewer rows, none qualifies
        want_sur = (max_surrogates > 0 and mass0 + mass1 > 0.0 and min(mass0, mass1) > 0.0
                    and m - n_lost >= 2 * min_side)
        # m >= 2 small: the larger child has >= small rows, so both children's histograms exist
        from_children = want_sur and unit and n_lost == 0 and m >= 2 * small and slot >= 0
        # otherwise, with unit weights and the primary known, from the node's entries and the
        # smaller child, once the rows are partitioned
        from_side = want_sur and unit and n_lost == 0 and not from_children
        n_s = 0
        if want_sur and not from_children and not from_side:
            dense = m >= small  # a small node's statistics come from its rows, bins present only
            if dense:
                _sur_stats_from_rows(seg, sws, start, end, direction, d, B, j, sw, sn,
                                     spm)
            else:
                _sparse_sur_entries(seg, sws, start, end, direction, n_bins, B, j, table5,
                                    bits, se_code, se_w, se_n, se_pm, se_p)
            n_s = _surrogates(d, B, n_bins, categorical, j, mass0, mass1, majority_branch, dense,
                              sw, sn, spm, se_code, se_w, se_n, se_pm, se_p, bin_min, bin_max,
                              max_surrogates, min_side, min_adjusted, c_agree, c_t, c_left, c_cut,
                              c_side, s_order)

        # ---- route rows without the primary: surrogates, then the majority branch
        if n_lost > 0:
            for t in range(start, end):
                if direction[t - start] >= 0:
                    continue
                for s in range(n_s):
                    f = s_order[s]
                    code = seg[t, f]
                    if code == n_bins[f]:
                        continue
                    if categorical[f]:
                        b = c_side[f, code]
                    else:
                        b = c_left[f] if code <= c_cut[f] else 1 - c_left[f]
                    if b >= 0:
                        direction[t - start] = b
                        break
            if majority_branch < 0:  # a tie: the side heavier after the surrogates, else 0
                h0, h1 = 0.0, 0.0
                for t in range(start, end):
                    wt = 1.0 if unit else sws[t]
                    if direction[t - start] == 0:
                        h0 += wt
                    elif direction[t - start] == 1:
                        h1 += wt
                majority_branch = max(_heavier(h0, h1), 0)
            for t in range(start, end):
                if direction[t - start] < 0:
                    direction[t - start] = majority_branch

        # ---- partition the segment stably: left rows first
        for t in range(m):
            g[t] = 1 - direction[t]
        n_left = _split_rows(words, start, m, g, buf_w)
        if not regression:
            _split_array(syc, start, m, g, buf_i)
        else:
            _split_array(syr, start, m, g, buf_f)
        if not unit:
            _split_array(sws, start, m, g, buf_f)
        mid = start + n_left
        lw, rw = 0.0, 0.0
        for t in range(start, mid):
            lw += 1.0 if unit else sws[t]
        for t in range(mid, end):
            rw += 1.0 if unit else sws[t]

        if from_side:
            left_small = n_left <= m - n_left
            a, b = (start, mid) if left_small else (mid, end)
            _side_sur_entries(seg, a, b, 0 if left_small else 1, ent_code, ent_stats,
                              ent_n, n_bins, B, regression, j, tally, se_code, se_w, se_n, se_pm,
                              se_p)
            n_s = _surrogates(d, B, n_bins, categorical, j, mass0, mass1, majority_branch, False,
                              sw, sn, spm, se_code, se_w, se_n, se_pm, se_p, bin_min, bin_max,
                              max_surrogates, min_side, min_adjusted, c_agree, c_t, c_left, c_cut,
                              c_side, s_order)

        # ---- children's histograms: the smaller one built, the larger = parent - smaller
        left_slot, right_slot = -1, -1
        small_slot = -1
        n_right = m - n_left
        big = max(n_left, n_right) >= small and slot >= 0
        if big:
            if n_free == 0:
                extra = pool_h.shape[0]
                pool_h = grown_rows(pool_h, 2 * extra)
                pool_c = grown_rows(pool_c, 2 * extra)
                free = grown(free, pool_h.shape[0])
                for s in range(extra, pool_h.shape[0]):
                    free[n_free] = s
                    n_free += 1
                hist = pool_h[slot]
                counts = pool_c[slot]
            n_free -= 1
            small_slot = free[n_free]
            left_small = n_left <= n_right
            a, b = (start, mid) if left_small else (mid, end)
            _build(pool_h[small_slot], pool_c[small_slot], seg, syc, syr, sws, a, b, d,
                   B, C, regression, n_threads)
            hist -= pool_h[small_slot]
            if not unit:
                counts -= pool_c[small_slot]
            if left_small:
                left_slot, right_slot = small_slot, slot
            else:
                left_slot, right_slot = slot, small_slot
            if from_children:
                _sur_stats_from_children(pool_h[left_slot], pool_h[right_slot], d, B, C,
                                         regression, j, sw, sn, spm)
                n_s = _surrogates(d, B, n_bins, categorical, j, mass0, mass1, majority_branch,
                                  True, sw, sn, spm, se_code, se_w, se_n, se_pm, se_p, bin_min,
                                  bin_max, max_surrogates, min_side, min_adjusted, c_agree, c_t,
                                  c_left, c_cut, c_side, s_order)
            if min(n_left, n_right) < small:  # the small child does without a histogram
                free[n_free] = small_slot
                n_free += 1
                if left_small:
                    left_slot = -1
                else:
                    right_slot = -1
        elif slot >= 0:
            free[n_free] = slot
            n_free += 1

        # ---- record the split
        if count + 2 > feature.shape[0]:
            new = count + 2
            feature = grown(feature, new)
            kind = grown(kind, new)
            threshold = grown(threshold, new)
            first_child = grown(first_child, new)
            pool_offset = grown(pool_offset, new)
            parent = grown(parent, new)
            depth = grown(depth, new)
            imp_arr = grown(imp_arr, new)
            n_samples = grown(n_samples, new)
            wsum = grown(wsum, new)
            fraction = grown(fraction, new)
            missing_branch = grown(missing_branch, new)
            improvement = grown(improvement, new)
            s_offset = grown(s_offset, new)
            s_count = grown(s_count, new)
            value = grown_rows(value, new)
        left_id = count
        count += 2
        feature[node] = j
        first_child[node] = left_id
        if categorical[j]:
            kind[node] = SUBSET
            threshold[node] = np.nan
            pool_offset[node] = n_pool
            cat_pool, n_pool = _append_branches(cat_pool, n_pool, side[j], n_bins[j])
        else:
            kind[node] = THRESHOLD
            threshold[node] = midpoint(bin_max[j, cut[j]], bin_min[j, after[j]])
        missing_branch[node] = _heavier(lw, rw)  # the larger child; -1 (stay) on a tie
        improvement[node] = gain[j] * W
        if n_s > 0:
            if n_sur + n_s > s_feature.shape[0]:
                new = n_sur + n_s
                s_feature = grown(s_feature, new)
                s_kind = grown(s_kind, new)
                s_threshold = grown(s_threshold, new)
                s_left = grown(s_left, new)
                s_pool = grown(s_pool, new)
                s_agree = grown(s_agree, new)
                s_adj = grown(s_adj, new)
            majority = max(mass0, mass1) / (mass0 + mass1)
            s_offset[node] = n_sur
            s_count[node] = n_s
            for s in range(n_s):
                f = s_order[s]
                agreement = c_agree[f]
                s_feature[n_sur] = f
                s_agree[n_sur] = agreement
                s_adj[n_sur] = (agreement - majority) / (1.0 - majority)
                if categorical[f]:
                    s_kind[n_sur] = SUBSET
                    s_threshold[n_sur] = np.nan
                    s_left[n_sur] = 0
                    s_pool[n_sur] = n_pool
                    cat_pool, n_pool = _append_branches(cat_pool, n_pool, c_side[f], n_bins[f])
                else:
                    s_kind[n_sur] = THRESHOLD
                    s_threshold[n_sur] = c_t[f]
                    s_left[n_sur] = c_left[f]
                    s_pool[n_sur] = -1
                n_sur += 1
        known = mass0 + mass1
        for c in range(2):
            cid = left_id + c
            feature[cid] = -1
            kind[cid] = LEAF
            threshold[cid] = np.nan
            first_child[cid] = -1
            pool_offset[cid] = -1
            parent[cid] = node
            depth[cid] = depth[node] + 1
            missing_branch[cid] = -1
            improvement[cid] = 0.0
            s_offset[cid] = -1
            s_count[cid] = 0
            fraction[cid] = ((mass0 if c == 0 else mass1) / known) if known > 0 else 0.5
        if top + 2 > st_node.shape[0]:
            st_node = grown(st_node, top + 2)
            st_start = grown(st_start, top + 2)
            st_end = grown(st_end, top + 2)
            st_slot = grown(st_slot, top + 2)
        # right pushed first, so the left child (branch 0) grows first
        st_node[top], st_start[top], st_end[top], st_slot[top] = left_id + 1, mid, end, right_slot
        st_node[top + 1], st_start[top + 1], st_end[top + 1] = left_id, start, mid
        st_slot[top + 1] = left_slot
        top += 2
    return (feature[:count], kind[:count], threshold[:count], first_child[:count],
            pool_offset[:count], parent[:count], depth[:count], imp_arr[:count],
            n_samples[:count], wsum[:count], fraction[:count], missing_branch[:count],
            improvement[:count], s_offset[:count], s_count[:count], value[:count],
            cat_pool[:n_pool], s_feature[:n_sur], s_kind[:n_sur], s_threshold[:n_sur],
            s_left[:n_sur], s_pool[:n_sur], s_agree[:n_sur], s_adj[:n_sur])
