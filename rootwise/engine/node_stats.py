"""What a node records of its own rows: its value (weighted class counts, or the mean or median of
its targets), its weight W and impurity, and whether it is pure (stopping case 1).

    classification:  counts_k = sum w (class k, rows in order);  W = sum_k counts_k
    regression:      W = sum w,  mean = sum w y / W,  impurity = sum w (y - mean)^2 / W
                     over the rows of positive weight, in order (or the Poisson deviance, the
                     absolute deviation: ``regression_stats``)

Rows of weight 0 count in nothing but ``n_node_samples``.
"""

import numpy as np
from numba import njit

from .._config import ABSOLUTE_ERROR, POISSON
from .absolute_error import median_loss
from .criteria import impurity


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def class_stats(seg, start, end, criterion, out):
    """Class counts into ``out``; returns (W, impurity, pure)."""
    n_classes = out.shape[0]
    for k in range(n_classes):
        out[k] = 0.0
    for t in range(start, end):
        out[seg.yc[t]] += seg.w[t]
    total = 0.0
    classes = 0
    for k in range(n_classes):
        total += out[k]
        if out[k] > 0.0:
            classes += 1
    return total, impurity(out, criterion), classes <= 1


@njit(cache=True, _nrt=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def weighted_median(ys, ws, m):
    """The smallest y at which the cumulative weight reaches half the total (the lower median);
    the average of the two middle values when the halves balance exactly (within 1e-12)."""
    order = np.argsort(ys[:m], kind="mergesort")
    cw = np.empty(m)
    s = 0.0
    for i in range(m):
        s += ws[order[i]]
        cw[i] = s
    half = cw[m - 1] / 2.0
    i = 0
    while i < m - 1 and cw[i] < half:
        i += 1
    if abs(cw[i] - half) <= 1e-12 * abs(half) and i + 1 < m:
        return (ys[order[i]] + ys[order[i + 1]]) / 2.0
    return ys[order[i]]


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def regression_stats(seg, start, end, criterion, median, out, ys, ws):
    """The mean (or weighted median) into out[0]; returns (W, impurity, pure), the impurity by
    ``criterion``:

        squared error   sum w (y - mean)^2 / W
        Poisson         sum w y log(y / mean) / W   (the half deviance; sum w (mean - y) is 0)
        absolute error  sum w |y - median| / W

    ``ys``, ``ws``: scratch of at least the node's rows, written for a median only: a mean reads
    the segment twice instead, so a fit of mean leaves keeps no copy of the targets (16 MB at
    10^6 rows)."""
    keep = median or criterion == ABSOLUTE_ERROR
    total, s = 0.0, 0.0
    m = np.int64(0)  # not a literal (``bundles``, "Literals")
    first = -1  # the first row of positive weight: the node is pure when every y equals its y
    for t in range(start, end):
        wt = seg.w[t]
        if wt > 0.0:
            total += wt
            s += wt * seg.yr[t]
            if first < 0:
                first = t
            if keep:
                ys[m] = seg.yr[t]
                ws[m] = wt
                m += 1
    if not total > 0.0:
        out[0] = 0.0
        return 0.0, 0.0, True
    mean = s / total
    sse = 0.0
    pure = True
    y0 = seg.yr[first]
    for t in range(first, end):  # the rows of positive weight in the same order as above
        wt = seg.w[t]
        if wt > 0.0:
            y = seg.yr[t]
            if criterion == POISSON:
                if y > 0.0:
                    sse += wt * (y * np.log(y / mean))
            else:
                dev = y - mean
                sse += wt * (dev * dev)
            if y != y0:
                pure = False
    centre = weighted_median(ys, ws, m) if keep else mean
    out[0] = centre if median else mean
    if criterion == ABSOLUTE_ERROR:
        return total, median_loss(ys, ws, m, centre) / total, pure
    return total, sse / total, pure
