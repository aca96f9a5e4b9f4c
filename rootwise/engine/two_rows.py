"""A regression node of two rows: its split without the general search.

A third of a fully grown regression tree's splits are of two rows of different targets (the node
is pure otherwise). Any column that holds the two rows with two different known values splits
them apart; the general path finds that with every stage of a large node (each column's entries,
scan, subset search and score, the chosen test remade, the rows routed). Here each column is read
at its two positions only, and every number the general path computes is computed with the same
operations in the same order, so the tree is the same bit for bit:

    a presorted column (``sorted_scan.scan_regression``): its one cut, with the branch table
    (w_l, s_l, q_l), (W - w_l, S - s_l, Q - q_l) of running sums in the column's order; two
    tables are possible (which row comes first), each scored once (``scores.score``)

    a categorical column (``entries``, ``subsets.best_subset_regression_entries``): the lower
    code on the left, each branch one row's (w, w y, w y^2) summed from 0; a sum of two terms
    from 0 does not depend on their order, so every such column has the same score and the same
    bound (``search._regression_bound``, which may pass over it as the general path does)

then the choice (``scores.choose``) and each row's branch. A surrogate needs 2 min_side primary-
known rows (Breiman et al. 1984, §5.3; ``chosen.route``), at least 4: two rows have none.

It applies when every weight is 0 or 1 (both rows weigh 1), the criterion is the squared error,
growth is depth-first without pre-pruning or monotonic constraints, a cut needs at most one row
a side (``min_samples_leaf`` 1), and every column is presorted continuous or a binned categorical
(``two_rows_apply``); elsewhere the node takes the general path.
"""

import numpy as np
from numba import njit

from .._config import SQUARED_ERROR, TIE_TOLERANCE
from .bundles import BINNED, MISSING_SURROGATE, SORTED
from .criteria import regression_proxy
from .scores import choose, score
from .search import _record, _regression_bound
from .segments import END_BIT, ROW_MASK, code_at, tied
from .thresholds import midpoint


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def two_rows_apply(params, feat, unit_input):
    """Whether the fit's two-row nodes take this path (the module's conditions)."""
    if not (params.regression and params.criterion == SQUARED_ERROR and unit_input
            and not params.multiway and params.missing == MISSING_SURROGATE
            and not params.release8 and not params.by_ratio and not params.prepruning
            and params.max_leaf_nodes == 0 and params.monotonic.shape[0] == 0
            and params.min_leaf <= 1.0 and params.min_leaf_rows <= 1
            and (params.max_surrogates == 0 or params.min_side >= 2)):
        return False
    for j in range(feat.search.shape[0]):
        kind = feat.search[j]
        if not ((kind == SORTED and not feat.categorical[j])
                or (kind == BINNED and feat.categorical[j])):
            return False
    return True


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sorted_table(yf, yg, min_leaf, criterion, branches):
    """``scan_regression``'s branch table of two unit rows, yf's first in the column: whether
    its one cut is admissible."""
    wt = 1.0
    wy_f = wt * yf
    wy_g = wt * yg
    w_all = 0.0 + wt + wt
    s_all = 0.0 + wy_f + wy_g
    q_all = 0.0 + wy_f * yf + wy_g * yg
    w_left = 0.0 + wt
    s_left = 0.0 + wy_f
    q_left = 0.0 + wy_f * yf
    w_right = w_all - w_left
    if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
        return False
    s_right = s_all - s_left
    if regression_proxy(criterion, s_left, w_left, s_right, w_right) == -np.inf:
        return False
    branches[0, 0], branches[0, 1], branches[0, 2] = w_left, s_left, q_left
    branches[1, 0], branches[1, 1], branches[1, 2] = w_right, s_right, q_all - q_left
    return True


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _entry(t_row, seg, stats, e):
    """A one-row entry (``entries._few_split_entries``): its (w, w y, w y^2) summed from 0."""
    wt = seg.w[t_row]
    yv = seg.yr[t_row]
    wy = wt * yv
    stats[e, 0] = 0.0 + wt
    stats[e, 1] = 0.0 + wy
    stats[e, 2] = 0.0 + wy * yv


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_two_rows(seg, start, W, total_weight, rows, feat, params, scan, stats, sides, direction,
                   cand, ch, sortd, coded):
    """The split of the two-row node at ``start``: returns (chosen column or -1, surrogates
    kept (none), m0, m1) and leaves ``cand``, ``sides``, ``direction`` and ``ch`` as
    ``loop._find_split`` and ``chosen.route`` would. ``stats``: a (2, 3) scratch (a
    regression fit's ``scan.xl2``, which only the entropy's scans use);
    ``sortd``, ``coded``: switches (``paths``)."""
    d = feat.search.shape[0]
    ta, tb = start, start + 1
    ra = seg.row[ta]
    ya, yb = seg.yr[ta], seg.yr[tb]
    min_leaf = params.min_leaf
    with_ratio = params.by_ratio or params.release8
    branches = scan.branches
    # the scores of the three possible tables, each made at its first use (0: a's row first in
    # a presorted column, 1: b's first, 2: a categorical column)
    done_a, done_b, done_c = False, False, False
    ok_a, ok_b, ok_c = False, False, False
    g_a, iv_a, r_a, rho_a, adm_a = 0.0, 0.0, 0.0, 0.0, False
    g_b, iv_b, r_b, rho_b, adm_b = 0.0, 0.0, 0.0, 0.0, False
    g_c, iv_c, r_c, rho_c, adm_c = 0.0, 0.0, 0.0, 0.0, False
    for j in range(d):
        cand.found[j] = False
    best = -np.inf
    if sortd is not None:
        words = seg.words
        for j in range(d):
            if feat.search[j] != SORTED:
                continue
            s = feat.slot[j]
            second = words[s, tb]
            if (second & END_BIT) != 0 or tied(second):
                continue  # fewer than two known values, or two equal ones: no cut
            if (words[s, ta] & ROW_MASK) == ra:
                if not done_a:
                    done_a = True
                    ok_a = _sorted_table(ya, yb, min_leaf, params.criterion, branches)
                    if ok_a:
                        g_a, iv_a, r_a, rho_a, adm_a = score(
                            branches, W, params.criterion, params.regression, min_leaf,
                            params.two_branches, scan.sizes, scan.parent, with_ratio)
                if not ok_a:
                    continue
                _record(cand, j, g_a, iv_a, r_a, rho_a, adm_a)
            else:
                if not done_b:
                    done_b = True
                    ok_b = _sorted_table(yb, ya, min_leaf, params.criterion, branches)
                    if ok_b:
                        g_b, iv_b, r_b, rho_b, adm_b = score(
                            branches, W, params.criterion, params.regression, min_leaf,
                            params.two_branches, scan.sizes, scan.parent, with_ratio)
                if not ok_b:
                    continue
                _record(cand, j, g_b, iv_b, r_b, rho_b, adm_b)
            cand.position[j] = ta
            if cand.admissible[j] and cand.gain[j] > best:
                best = cand.gain[j]
    if coded is not None:
        for j in range(d):
            if feat.search[j] != BINNED:
                continue
            q = feat.slot[j]
            missing = feat.n_values[j]
            ca, cb = code_at(seg.codes, ta, q), code_at(seg.codes, tb, q)
            if ca == missing or cb == missing or ca == cb:
                continue  # one entry at most: no subset
            if not done_c:
                done_c = True
                lo, hi = (ta, tb) if ca < cb else (tb, ta)
                _entry(lo, seg, stats, 0)
                _entry(hi, seg, stats, 1)
                # ``search._gain_bound``'s bound, from the entries in code order
                # (``best_subset_regression_entries``: the lower code on the left)
                wl = 0.0 + stats[0, 0]
                wr = (0.0 + stats[0, 0] + stats[1, 0]) - wl
                ok_c = not (wl < min_leaf or wr < min_leaf)
                if ok_c:
                    for k in range(3):
                        branches[0, k] = 0.0 + stats[0, k]
                        branches[1, k] = 0.0 + stats[1, k]
                    g_c, iv_c, r_c, rho_c, adm_c = score(
                        branches, W, params.criterion, params.regression, min_leaf,
                        params.two_branches, scan.sizes, scan.parent, with_ratio)
            if best > 0.0 and _regression_bound(stats, 2, W) < best - TIE_TOLERANCE:
                continue  # as ``search._coded_columns``: it could not be chosen
            if not ok_c:
                continue
            _record(cand, j, g_c, iv_c, r_c, rho_c, adm_c)
            if adm_c and g_c > best:
                best = g_c
    j, chosen_score = choose(cand.found, cand.gain, cand.ratio, cand.admissible, params.by_ratio)
    if j < 0 or chosen_score < params.epsilon:
        return -1, 0, 0.0, 0.0
    if cand.gain[j] * W / total_weight < params.min_impurity_decrease:
        return -1, 0, 0.0, 0.0
    # ---- each row's branch (``chosen.primary_directions``)
    if feat.search[j] == SORTED:
        s = feat.slot[j]
        first = seg.words[s, ta] & ROW_MASK
        cand.threshold[j] = midpoint(rows.X[first, j], rows.X[seg.words[s, tb] & ROW_MASK, j])
        da = np.int64(0) if first == ra else np.int64(1)
    else:
        q = feat.slot[j]
        for c in range(feat.n_values[j]):
            sides[c] = -1
        ca, cb = code_at(seg.codes, ta, q), code_at(seg.codes, tb, q)
        da = np.int64(0) if ca < cb else np.int64(1)
        sides[ca] = da
        sides[cb] = 1 - da
    db = 1 - da
    direction[0] = da
    direction[1] = db
    for b in range(2):
        ch.known_w[b] = 0.0 + 1.0  # one row of weight 1 each way
    total = ch.known_w[0] + ch.known_w[1]
    for b in range(2):
        ch.fractions[b] = ch.known_w[b] / total
        ch.receives[b] = False
    # ``route.primary_masses``: the weight each way, one row a side
    m0 = 0.0 + (seg.w[ta] if da == 0 else seg.w[tb])
    m1 = 0.0 + (seg.w[tb] if da == 0 else seg.w[ta])
    # no surrogates: one needs 2 min_side >= 4 primary-known rows (``chosen.route``)
    return j, 0, m0, m1
