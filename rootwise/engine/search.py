"""Split search at a node: each available column's best test and its scores, then the selection
rule's choice (Zhou 2016, §4.2: information gain, gain ratio above the average gain; Breiman et
al. 1984: Gini, squared error).

A column is searched by its kind (``bundles.Features.search``):

    SORTED   continuous, exact: a threshold scan over its presorted words (``sorted_scan``)
    BINNED   a byte code per row: a threshold between histogram bins of a continuous column, or a
             categorical test (subset or multiway) from its categories' entries (``entry_scan``)
    WIDE     categorical with more categories than a byte holds: as BINNED, codes read from X

Per column the candidate's scores go into the ``Candidates`` arrays; the test itself (a presorted
column's threshold, or a subset's side per category) is made for the chosen column only (``search``,
``chosen_sides``). ``search`` and the stages it runs per column are inlined (``inline="always"``)
into ``loop._find_split``, which the growth loop calls once per node: a call copies every bundle it
passes, word by word (``bundles``, "Argument copies").
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import ABSOLUTE_ERROR, GINI, MULTIWAY, SQUARED_ERROR, TIE_TOLERANCE
from .absolute_error import absolute_score, scan_absolute, subset_absolute
from .bundles import BINNED, SORTED
from .criteria import impurity
from .entries import binned_split_entries, wide_split_entries
from .entry_scan import entry_sizes, subset_branches, threshold_class, threshold_regression
from .histograms import split_entries
from .j48 import (
    MIN_SPLIT_CAP,
    MIN_SPLIT_SHARE,
    SMALL,
    min_split_size,
    multiway_scores,
    release8_midpoint,
    split_info,
    split_point_sorted,
)
from .j48 import choose as release8_choose
from .monotone import constraint_of, scan_entries, scan_sorted
from .release8_scan import release8_totals, scan_release8
from .scores import choose, score
from .segments import ROW_MASK
from .sorted_scan import known_length, scan_class, scan_regression
from .subset_bound import MIN_ENTRIES, SCATTER_CLASSES, scatter_bound
from .subsets import (
    best_subset_class_entries,
    best_subset_regression_entries,
    forget_sides,
    keep_sides,
    kept_sides,
)
from .thresholds import midpoint


class Candidates(NamedTuple):
    """Each column's best test at the node being searched."""

    found: np.ndarray  # (d,) bool
    gain: np.ndarray
    iv: np.ndarray
    ratio: np.ndarray
    rho: np.ndarray
    admissible: np.ndarray  # (d,) bool
    threshold: np.ndarray  # threshold tests: the cut
    midpoint: np.ndarray  # release 8: the cut before it is moved to a training value
    penalty: np.ndarray  # release 8: the MDL penalty taken off the gain
    cuts: np.ndarray  # (d,) int64, release 8: admissible cuts
    position: np.ndarray  # (d,) int64, a presorted column's cut: its last word on the left
    bound: np.ndarray  # (d,) a subset test's bound on its gain (``_gain_bound``)
    order: np.ndarray  # (d,) int64: the order the coded columns are searched in


def new_candidates(d):
    return Candidates(np.zeros(d, dtype=np.bool_), np.zeros(d), np.zeros(d), np.zeros(d),
                      np.zeros(d), np.zeros(d, dtype=np.bool_), np.full(d, np.nan),
                      np.full(d, np.nan), np.zeros(d), np.zeros(d, dtype=np.int64),
                      np.full(d, -1, dtype=np.int64), np.zeros(d), np.zeros(d, dtype=np.int64))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def available_columns(nodes, node, out):
    """Columns a node may test: all but those a multiway test above it used up."""
    for j in range(out.shape[0]):
        out[j] = True
    a = nodes.parent[node]
    while a >= 0:
        if nodes.kind[a] == MULTIWAY:
            out[nodes.feature[a]] = False
        a = nodes.parent[a]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _ratio_read(params):
    """Whether the selection rule reads the gain ratio (C4.5's rules; CART's reads the gain)."""
    return params.by_ratio or params.release8


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _record(cand, j, gain, iv, ratio, rho, admissible):
    cand.found[j] = True
    cand.gain[j] = gain
    cand.iv[j] = iv
    cand.ratio[j] = ratio
    cand.rho[j] = rho
    cand.admissible[j] = admissible


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _release8_cut(words, s, start, n, j, X, w_row, feat, params, scan, cand, W):
    """J48's cut on presorted column j (slot s, its n known words from ``start``)."""
    known_w = release8_totals(words, s, start, n, w_row, params.n_classes, scan.right)
    min_split = min_split_size(known_w, params.n_classes, params.r8_min_objects,
                               MIN_SPLIT_SHARE, MIN_SPLIT_CAP)
    if 2.0 * min_split - n > SMALL:  # J48 counts rows here, not weight
        return
    i, gain, cuts = scan_release8(words, s, start, n, feat.values, w_row, params.n_classes,
                                  min_split, W, scan)
    if cuts == 0 or i < 0:
        return
    penalty = feat.log2_cuts[cuts] / W
    gain -= penalty
    if gain < SMALL:
        return
    b = scan.branches
    sizes = scan.sizes
    sizes[0], sizes[1] = 0.0, 0.0
    for v in range(2):
        for k in range(params.n_classes):
            sizes[v] += b[v, k]
    rho = (sizes[0] + sizes[1]) / W if W > 0.0 else 0.0
    iv = split_info(sizes[:2], W)
    _record(cand, j, gain, iv, gain / iv if iv > 0.0 else 0.0, rho, np.bool_(True))
    mid = release8_midpoint(X[words[s, i] & ROW_MASK, j], X[words[s, i + 1] & ROW_MASK, j])
    lo, hi = feat.distinct_at[j], feat.distinct_at[j + 1]
    value = split_point_sorted(feat.distinct_first[lo:hi], feat.values[s], mid)
    cand.threshold[j] = value if np.isfinite(value) else mid
    cand.midpoint[j] = mid
    cand.penalty[j] = penalty
    cand.cuts[j] = cuts


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sorted_columns(seg, start, end, available, rows, feat, params, scan, cand, W, w_row, unit,
                    lo, hi, reg, clf, r8):
    """Every available presorted continuous column's best cut. One call per node: the loop over
    columns is here so that the calls per column pass a few arrays (``scratch.Scratch``).
    [lo, hi]: the node's bounds under monotonic constraints (``monotone``); ``reg``, ``clf``,
    ``r8``: switches (``paths``)."""
    words = seg.words
    X = rows.X
    for j in range(feat.search.shape[0]):
        if not available[j] or feat.search[j] != SORTED:
            continue
        s = feat.slot[j]
        n = known_length(words, s, start, end)
        if n < 2:
            continue
        if r8 is not None:
            _release8_cut(words, s, start, n, j, X, w_row, feat, params, scan, cand, W)
            continue
        c = constraint_of(params, j)
        if c != 0:  # a constrained column: every cut checked (``monotone``)
            i = scan_sorted(words, s, start, n, w_row, rows.yr, unit, params, c, lo, hi, scan)
        elif reg is not None:
            if params.criterion == ABSOLUTE_ERROR:
                i, parent_loss, children_loss = scan_absolute(words, s, start, n, w_row, rows.yr,
                                                              unit, params.min_leaf, scan)
                if i >= 0:
                    gain, iv, ratio, rho, admissible = absolute_score(
                        scan.branches, W, parent_loss, children_loss, params.min_leaf,
                        params.two_branches, scan.sizes)
                    _record(cand, j, gain, iv, ratio, rho, admissible)
                    cand.position[j] = i
                continue
            i = scan_regression(words, s, start, n, w_row, rows.yr, unit, params.min_leaf,
                                params.min_leaf_rows, params.criterion, scan)
        elif clf is not None:
            i = scan_class(words, s, start, n, w_row, unit, params.n_classes, params.criterion,
                           params.min_leaf, params.min_leaf_rows, scan)
        else:
            continue
        if i < 0:
            continue
        gain, iv, ratio, rho, admissible = score(scan.branches, W, params.criterion,
                                                 params.regression, params.min_leaf,
                                                 params.two_branches, scan.sizes, scan.parent,
                                                 _ratio_read(params))
        _record(cand, j, gain, iv, ratio, rho, admissible)
        cand.position[j] = i  # the threshold is placed for the chosen column only (``search``)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _subset_sides(stats, p, params, side, sub, reg, clf):
    """The best subset's side of each entry (``subsets``); False when none is admissible."""
    if reg is not None:
        return best_subset_regression_entries(stats, p, params.min_leaf, params.criterion,
                                              params.max_exhaustive, side, sub)
    if clf is not None:
        return best_subset_class_entries(stats, p, params.criterion, params.min_leaf,
                                         params.max_exhaustive, side, sub)
    return False


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _coded_columns(seg, start, end, available, rows, feat, params, scr, cand, W, unit, lo, hi,
                   reg, clf, multi, subset, r8):
    """Every available BINNED or WIDE column's best test from its entries (``_coded_test``;
    ``unit``: every weight at the node is 0 or 1, so the entries hold counts).
    A subset test that cannot beat the best admissible gain found so far at the node
    (``_gain_bound``) is not searched: CART's rule chooses by gain, so it could not be chosen,
    nor could its absence change the choice among the others (``scores.choose``). The
    categorical columns are searched after the others then, to meet the best of them: the
    BINNED ones by their bound, largest first (the best test is then met early), then the WIDE
    ones, whose entries are summed one column at a time (``_search_order``).
    ``reg`` ... ``r8``: switches (``paths``)."""
    ent = scr.ent
    bound_subsets = multi is None and r8 is None and not params.by_ratio
    best = -np.inf
    if bound_subsets:
        for j in range(feat.search.shape[0]):
            if cand.found[j] and cand.admissible[j] and cand.gain[j] > best:
                best = cand.gain[j]
    n = _search_order(available, feat, params, ent, cand, W, scr.scan.parent, bound_subsets,
                      reg, clf, subset)
    if subset is not None:
        forget_sides(scr.subset)
    for i in range(n):
        j = cand.order[i]
        kind = feat.search[j]
        if kind == BINNED:
            q = feat.slot[j]
            codes, stats, p = ent.ent_code[q], ent.ent_stats[q], ent.ent_n[q]
        else:
            p = wide_split_entries(seg, start, end, j, params.regression, scr.wide)
            codes, stats = scr.wide.wide_code, scr.wide.wide_stats
        if bound_subsets and subset is not None and feat.categorical[j]:
            if kind != BINNED:
                cand.bound[j] = _gain_bound(stats, p, W, params, scr.scan.parent, reg, clf)
            if best > 0.0 and (cand.bound[j] < best - TIE_TOLERANCE
                               or _scatter_below(stats, p, W, best, cand.bound[j], params,
                                                 scr.subset, clf)):
                continue
        if reg is not None and params.criterion == ABSOLUTE_ERROR and feat.categorical[j]:
            _absolute_subset(seg, start, end, rows.X, j, codes, stats, p, params, scr, cand,
                             W)  # needs the rows
        else:
            _coded_test(j, codes, stats, p, feat, params, scr.scan, scr.side, scr.subset, cand,
                        W, unit, lo, hi, reg, clf, multi, subset, r8)
        if not (cand.found[j] and cand.admissible[j]):
            continue
        if subset is not None and feat.categorical[j]:  # its sides, for ``chosen_sides``
            keep_sides(scr.subset, j, cand.gain[j], codes, scr.side, p)
        if bound_subsets and cand.gain[j] > best:
            best = cand.gain[j]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _search_order(available, feat, params, ent, cand, W, parent, bound_subsets, reg, clf,
                  subset):
    """The available BINNED and WIDE columns in the order ``_coded_columns`` searches them, into
    cand.order; returns their number. Column order, or with ``bound_subsets`` the others first,
    then the BINNED categorical ones by their bound (cand.bound), largest first (ties in column
    order), then the WIDE categorical ones."""
    n = 0
    for stage in range(3 if bound_subsets else 1):
        first = n
        for j in range(feat.search.shape[0]):
            kind = feat.search[j]
            if not available[j] or kind == SORTED:
                continue
            if bound_subsets and stage != (0 if not feat.categorical[j] else
                                           1 if kind == BINNED else 2):
                continue
            cand.order[n] = j
            n += 1
            if stage == 1:
                q = feat.slot[j]
                b = np.inf
                if subset is not None:
                    b = _gain_bound(ent.ent_stats[q], ent.ent_n[q], W, params, parent, reg, clf)
                cand.bound[j] = b
                at = n - 1  # insertion: after every column of a bound at least b
                while at > first and not cand.bound[cand.order[at - 1]] >= b:
                    cand.order[at] = cand.order[at - 1]
                    at -= 1
                cand.order[at] = j
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _gain_bound(stats, p, W, params, parent, reg, clf):
    """A bound on the gain of any two-way grouping of these p categories at a node of weight W,
    less than ``best`` - TIE_TOLERANCE only when no grouping reaches ``best`` (its margin
    included; ``_regression_bound``, ``_class_bound``); +inf when there is none. ``parent``:
    scratch per class."""
    if p < 2:
        return np.inf
    if reg is not None:  # a bound for the squared error only
        if params.criterion == SQUARED_ERROR:
            return _regression_bound(stats, p, W)
        return np.inf
    if clf is not None:
        return _class_bound(stats, p, W, params.criterion, parent)
    return np.inf


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _scatter_below(stats, p, W, best, loose, params, sub, clf):
    """Whether ``subset_bound``'s tighter bound on the Gini gain of a grouping of these p
    categories falls short of ``best`` (from three classes on: with two it is
    ``_class_bound``). ``loose``: ``_class_bound``'s; the tighter one is at least 1 / (k - 1)
    of it (T has rank k - 1 at most), so it is taken only when that share is below ``best``."""
    C = stats.shape[1]
    if clf is None or params.criterion != GINI or not 3 <= C <= SCATTER_CLASSES \
            or p < MIN_ENTRIES or not loose / (C - 1) < best - TIE_TOLERANCE:
        return False
    return scatter_bound(stats, p, W, sub.scatter, sub.trial) < best - TIE_TOLERANCE


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _regression_bound(stats, p, W):
    """``_gain_bound`` for entries of (w, wy, wy^2). A grouping explains at most the sum of
    squares between the categories, so its gain is at most

        (sum_c s_c^2 / w_c - S^2 / W~) / W,    S = sum_c s_c,  W~ = sum_c w_c,

    one division per category where the search sorts them and scans every prefix. The bound
    must fall short by a margin of 1e-9 of the sums' scale (sum w y^2 / W), far above the
    rounding of both it and the gain (~1e-16 of that scale): it never drops a test that the
    search and the selection rule could choose."""
    w_all, s_all, q_all, between = 0.0, 0.0, 0.0, 0.0
    for e in range(p):
        w = stats[e, 0]
        if not w > 0.0:
            return np.inf
        s = stats[e, 1]
        w_all += w
        s_all += s
        q_all += stats[e, 2]
        between += s * s / w
    bound = (between - s_all * s_all / w_all) / W
    return bound + 1e-9 * (q_all + between) / W


@njit(cache=True, _nrt=False, no_cfunc_wrapper=True)
def _class_bound(stats, p, W, criterion, parent):
    """``_gain_bound`` for entries of class weights. Impurity is concave: the branches of a
    grouping hold no less weighted impurity than its categories on their own, so its gain is at
    most the gain of one branch per category,

        W~ / W (I(D~) - sum_c w_c / W~ I(c)),    W~ = sum_c w_c,

    one impurity per category where the search sorts them and scans every prefix (Gini:
    w_c Gini(c) = w_c - sum_k s_ck^2 / w_c, one division). The bound must fall short by a
    margin of 1e-9 + 1e-14 p, above the rounding of both it and the gain (sums of p terms below
    log2(K) <= 20 in size: at most ~7e-15 p)."""
    C = stats.shape[1]
    for k in range(C):
        parent[k] = 0.0
    w_all, within = 0.0, 0.0
    for e in range(p):
        w, sq = 0.0, 0.0
        for k in range(C):
            x = stats[e, k]
            w += x
            sq += x * x
            parent[k] += x
        if not w > 0.0:
            return np.inf
        w_all += w
        if criterion == GINI:
            within += w - sq / w
        else:
            within += w * impurity(stats[e], criterion)
    bound = w_all / W * (impurity(parent[:stats.shape[1]], criterion) - within / w_all)
    return bound + 1e-9 + 1e-14 * p


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _absolute_subset(seg, start, end, X, j, codes, stats, p, params, scr, cand, W):
    """Categorical column j's best subset test for absolute error (``absolute_error``), from the
    node's rows: its entries' sides into scr.side, its scores into ``cand``."""
    found, parent_loss, children_loss = subset_absolute(seg, start, end, X, j, codes, stats, p,
                                                        params.min_leaf, params.max_exhaustive,
                                                        scr.side)
    if not found:
        return
    subset_branches(stats, p, scr.side, scr.scan.branches)
    gain, iv, ratio, rho, admissible = absolute_score(scr.scan.branches, W, parent_loss,
                                                      children_loss, params.min_leaf,
                                                      params.two_branches, scr.scan.sizes)
    _record(cand, j, gain, iv, ratio, rho, admissible)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _coded_test(j, codes, stats, p, feat, params, scan, side, sub, cand, W, unit, lo, hi, reg,
               clf, multi, subset, r8):
    """Column j's best test from its p entries: a categorical column's test (one branch per
    category, or the best subset against the rest), or a binned continuous column's cut between
    two bins present at the node, placed at the midpoint of the largest training value of the
    lower bin and the smallest of the upper (the lower bin's code kept in cand.position: the
    rows of weight are routed by their codes). ``unit``: the entries hold counts. Only the
    scratch parts it reads are passed: numba passes a bundle field by field on every call.
    ``reg`` ... ``r8``: switches (``paths``)."""
    sizes = scan.sizes
    if multi is not None and feat.categorical[j]:
        if entry_sizes(stats, p, params.regression, sizes) < 2:
            return
        if r8 is not None:
            gain, iv, rho, admissible = multiway_scores(stats[:p], sizes[:p], W,
                                                        params.r8_min_objects, scan.parent)
            _record(cand, j, gain, iv, gain / iv if iv > 0.0 else 0.0, rho, admissible)
        else:
            gain, iv, ratio, rho, admissible = score(stats[:p], W, params.criterion,
                                                     params.regression, params.min_leaf,
                                                     params.two_branches, sizes, scan.parent,
                                                     _ratio_read(params))
            _record(cand, j, gain, iv, ratio, rho, admissible)
        return
    e = 0
    if feat.categorical[j]:
        if subset is None:  # a multiway test's only, searched above
            return
        if not _subset_sides(stats, p, params, side, sub, reg, clf):
            return
        subset_branches(stats, p, side, scan.branches)
    else:
        if p < 2:
            return
        c = constraint_of(params, j)
        if c != 0:  # [lo, hi]: the node's bounds (``monotone``)
            e = scan_entries(stats, p, params, c, lo, hi, scan)
        elif reg is not None:
            e = threshold_regression(stats, p, params.min_leaf, params.criterion, scan)
        elif clf is not None:
            e = threshold_class(stats, p, params.n_classes, params.criterion, params.min_leaf,
                                unit, scan)
        if e < 0:
            return
    gain, iv, ratio, rho, admissible = score(scan.branches, W, params.criterion,
                                             params.regression, params.min_leaf,
                                             params.two_branches, sizes, scan.parent,
                                             _ratio_read(params))
    _record(cand, j, gain, iv, ratio, rho, admissible)
    if not feat.categorical[j]:
        cand.threshold[j] = midpoint(feat.bin_max[j, codes[e]], feat.bin_min[j, codes[e + 1]])
        cand.position[j] = codes[e]


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def search(seg, start, end, available, rows, feat, params, scr, cand, W, w_row, unit, slot, lo,
           hi, reg, clf, multi, subset, r8, sortd, coded):
    """Every available column's best test at the node [start, end) of weight W; returns (chosen
    column or -1, its score) under the selection rule. ``w_row``: the rows' weights at the node
    by row id; ``unit``: all of them are 1; ``slot``: the node's class histogram (``histograms``;
    -1: none, the binned columns' entries are summed from its rows); [lo, hi]: the node's bounds
    under monotonic constraints (``monotone``); ``reg`` ... ``r8``: switches (``paths``)."""
    d = feat.search.shape[0]
    for j in range(d):
        cand.found[j] = False
    ent = scr.ent
    if coded is not None:
        if clf is not None and subset is not None and slot >= 0:  # class histograms: CART's
            split_entries(scr.hist, slot, ent.binned, feat.n_values, ent)
        elif ent.binned.shape[0] > 0:
            binned_split_entries(seg, start, end, ent.binned, feat.n_values, params.regression,
                                 ent)
    if sortd is not None:
        _sorted_columns(seg, start, end, available, rows, feat, params, scr.scan, cand, W, w_row,
                        unit, lo, hi, reg, clf, r8)
    if coded is not None:
        _coded_columns(seg, start, end, available, rows, feat, params, scr, cand, W, unit, lo,
                       hi, reg, clf, multi, subset, r8)
    if r8 is not None:
        return release8_choose(cand.found, cand.gain, cand.ratio, cand.admissible,
                               feat.in_average)
    j, chosen_score = choose(cand.found, cand.gain, cand.ratio, cand.admissible, params.by_ratio)
    if sortd is not None and j >= 0 and feat.search[j] == SORTED:
        # the midpoint of the values either side of the cut, read from X for this column alone:
        # a node's rows lie anywhere in X, and two reads per column and node were cache misses
        s, i = feat.slot[j], cand.position[j]
        cand.threshold[j] = midpoint(rows.X[seg.words[s, i] & ROW_MASK, j],
                                     rows.X[seg.words[s, i + 1] & ROW_MASK, j])
    return j, chosen_score


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def chosen_sides(seg, start, end, j, rows, feat, params, scr, out, reg, clf):
    """The branch of each category of the chosen subset test on column j (out[code]: 0, 1, or
    -1 for a category absent at the node): as the search kept it (``subsets.keep_sides``), or
    remade from the column's entries."""
    if kept_sides(scr.subset, j, out):
        return
    for c in range(out.shape[0]):
        out[c] = -1
    if feat.search[j] == BINNED:
        q = feat.slot[j]
        codes, stats, p = scr.ent.ent_code[q], scr.ent.ent_stats[q], scr.ent.ent_n[q]
    else:
        p = wide_split_entries(seg, start, end, j, params.regression, scr.wide)
        codes, stats = scr.wide.wide_code, scr.wide.wide_stats
    if reg is not None and params.criterion == ABSOLUTE_ERROR:
        subset_absolute(seg, start, end, rows.X, j, codes, stats, p, params.min_leaf,
                        params.max_exhaustive, scr.side)
    else:
        _subset_sides(stats, p, params, scr.side, scr.subset, reg, clf)
    for e in range(p):
        out[codes[e]] = scr.side[e]


@njit(cache=True, no_cfunc_wrapper=True)
def search_entries(ent_code, ent_stats, ent_n, feat, params, scr, cand, W, reg, clf, multi,
                   subset, r8):
    """``search`` on entries summed elsewhere (a distributed fit adds the partitions' histograms,
    ``rootwise.dask``): every column binned, column j's entries in row ``feat.slot[j]`` of the
    entry arrays. The same column kernels and selection rule as ``search``; returns (chosen
    column or -1, its score)."""
    d = feat.search.shape[0]
    for j in range(d):
        cand.found[j] = False
        q = feat.slot[j]
        _coded_test(j, ent_code[q], ent_stats[q], ent_n[q], feat, params, scr.scan, scr.side,
                    scr.subset, cand, W, False, -np.inf, np.inf, reg, clf, multi, subset, r8)
    return choose(cand.found, cand.gain, cand.ratio, cand.admissible, params.by_ratio)


@njit(cache=True, no_cfunc_wrapper=True)
def entry_sides(codes, stats, p, params, scr, out, reg, clf):
    """``chosen_sides`` from a column's summed entries: out[code] = 0, 1, or -1 when absent."""
    for c in range(out.shape[0]):
        out[c] = -1
    _subset_sides(stats, p, params, scr.side, scr.subset, reg, clf)
    for e in range(p):
        out[codes[e]] = scr.side[e]
