"""CART's surrogate splits (Breiman et al. 1984, §5.3; rpart's rules, as ``reference.missing`` states them):
for the chosen primary split, every other column's best split mimicking it.

    agreement = w(primary-known rows the surrogate sends the primary's way) / w(primary-known rows)
    majority  = max(w_0, w_1) / (w_0 + w_1),   adjusted = (agreement - majority) / (1 - majority)

A surrogate is kept when its adjusted agreement exceeds MIN_ADJUSTED_AGREEMENT and it sends at
least ``min_side`` primary-known rows each way; kept ones rank by agreement to 12 decimals, ties to
the lower column. Rows of weight 0 take no part. A presorted column is scanned over its words
(``sorted_scan.scan_surrogate``); binned and WIDE columns from their surrogate entries
(``entries``, ``entry_scan``). The per-column stages are inlined into ``search_surrogates``, and
it into ``chosen.route`` (``bundles``, "Argument copies").
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import SUBSET, THRESHOLD
from .bundles import BINNED, SORTED
from .entries import binned_surrogate_entries, counted_surrogate_entries, wide_surrogate_entries
from .entry_scan import surrogate_subset, surrogate_threshold
from .monotone import constraint_of
from .segments import ROW_MASK
from .sorted_scan import known_length, primary_known, scan_surrogate
from .surrogates import agreement_key
from .thresholds import midpoint


class SurrogateCandidates(NamedTuple):
    agreement: np.ndarray  # (d,) float: -1 when the column has no surrogate
    kind: np.ndarray  # (d,) int64: THRESHOLD or SUBSET
    threshold: np.ndarray  # (d,)
    left_branch: np.ndarray  # (d,) int64: THRESHOLD, the branch of x <= threshold
    tie_branch: np.ndarray  # (d,) int64: SUBSET, where a category split evenly goes
    taken: np.ndarray  # (d,) bool: already ranked
    order: np.ndarray  # (max_surrogates,) int64: the kept columns, best first
    position: np.ndarray  # (d,) int64: a presorted column's cut, its last word on the left
    top_keys: np.ndarray  # (max_surrogates,) float: the largest ranking keys kept so far


def new_surrogate_candidates(d, max_surrogates):
    s = max(max_surrogates, 1)
    return SurrogateCandidates(np.full(d, -1.0), np.zeros(d, dtype=np.int64), np.full(d, np.nan),
                               np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64),
                               np.zeros(d, dtype=np.bool_), np.zeros(s, dtype=np.int64),
                               np.full(d, -1, dtype=np.int64), np.zeros(s))


@njit(cache=True, no_cfunc_wrapper=True)
def heavier(m0, m1):
    """0 or 1 for the heavier of two weights, -1 when they tie up to rounding."""
    if abs(m0 - m1) <= 1e-12 * max(1.0, max(m0, m1)):
        return -1
    return 1 if m1 > m0 else 0


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def search_surrogates(seg, start, end, primary, direction, mass0, mass1, majority_branch, rows,
                      feat, params, scr, sc, sortd, coded):
    """Every other column's surrogate of the primary split on column ``primary``; returns how
    many are kept (their columns in sc.order, best first). ``direction``: each segment position's
    primary branch, -1 when missing or without a branch; mass0/mass1: the primary-known weights."""
    d = feat.search.shape[0]
    total = mass0 + mass1
    majority = max(mass0, mass1) / total
    min_side = params.min_side
    n_node0 = np.int64(0)  # rows per primary branch, for the presorted columns' scans (unit weights)
    n_node1 = np.int64(0)
    for t in range(start, end):  # by row id, for the presorted columns' scans
        b = direction[t - start]
        scr.dir_row[seg.row[t]] = np.int8(b)
        n_node0 += np.int64(b == 0)
        n_node1 += np.int64(b == 1)
    skip = feat.slot[primary] if feat.search[primary] == BINNED else -1
    ent = scr.ent
    # with unit weights a column agrees on at most the primary-known rows it knows: a column
    # whose count could not be kept, or could not rank above the max_surrogates kept so far
    # (all of lower columns, which win ties), is not scanned (``_cannot_enter``)
    bounded = scr.unit_input
    kept = np.int64(0)
    if coded is None:  # no column searched by codes: no entries to count
        pass
    elif ent.binned.shape[0] > 0 and scr.unit_input:
        # row counts: the node's split entries less the rows counted on one side
        counted_surrogate_entries(seg, start, end, direction, ent.binned, feat.n_values, skip,
                                  params.regression, ent, scr.buf_i)
    elif ent.binned.shape[0] > 0:
        binned_surrogate_entries(seg, start, end, direction, ent.binned, feat.n_values, skip, ent)
    for f in range(d):
        sc.agreement[f] = -1.0
        # a constrained column stands in for no other test: a row's branch there would then
        # depend on it in no set direction (``monotone``)
        if f == primary or constraint_of(params, f) != 0:
            continue
        kind = feat.search[f]
        agree = -1.0
        if kind == SORTED:
            if sortd is None:
                continue
            s = feat.slot[f]
            n = known_length(seg.words, s, start, end)
            if bounded and kept >= params.max_surrogates and _cannot_enter(
                    float(primary_known(seg.words, s, start, n, end, scr.dir_row, n_node0,
                                        n_node1)), total, majority, params, sc, kept):
                continue
            i, left, a, n_dir = scan_surrogate(seg.words, s, start, n, end, rows.w,
                                               scr.unit_input, scr.dir_row, n_node0, n_node1,
                                               min_side)
            if n_dir < 2 * min_side or i < 0:
                continue
            sc.kind[f] = THRESHOLD
            sc.left_branch[f] = left
            sc.position[f] = i  # the threshold is placed for the kept columns only (below)
            agree = a
        else:
            if coded is None:
                continue
            if kind == BINNED:
                q = feat.slot[f]
                p = ent.se_n_entries[q]
                codes, se_w, se_n = ent.se_code[q], ent.se_w[q], ent.se_n[q]
                side0, side1 = ent.se_side[q, 0], ent.se_side[q, 1]
            else:
                p, side0, side1 = wide_surrogate_entries(seg, start, end, direction, f, scr.wide)
                codes, se_w, se_n = scr.wide.wide_se_code, scr.wide.wide_se_w, scr.wide.wide_se_n
            if (bounded and kept >= params.max_surrogates
                    and _cannot_enter(_entry_rows(se_n, p), total, majority, params, sc, kept)):
                continue
            agree = _entry_surrogate(f, codes, se_w, se_n, p, side0, side1, majority_branch,
                                     feat, params, scr.side, sc)
            if agree < 0.0:
                continue
        _keep(sc, f, agree, total, majority, params)
        if bounded and sc.agreement[f] >= 0.0:
            kept = _kept_key(sc, kept, agreement_key(sc.agreement[f]), params.max_surrogates)
    n_s = _rank(sc, d, params)
    for r in range(n_s):  # the kept presorted columns' thresholds: two reads of X each
        f = sc.order[r]
        if feat.search[f] == SORTED:
            s, i = feat.slot[f], sc.position[f]
            sc.threshold[f] = midpoint(rows.X[seg.words[s, i] & ROW_MASK, f],
                                       rows.X[seg.words[s, i + 1] & ROW_MASK, f])
    return n_s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _entry_rows(se_n, p):
    """The primary-known rows of a column's p surrogate entries."""
    known = np.int64(0)
    for e in range(p):
        known += se_n[e, 0] + se_n[e, 1]
    return float(known)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cannot_enter(bound, total, majority, params, sc, kept):
    """Whether a column agreeing on at most ``bound`` (weight) can neither be kept (``_keep``)
    nor rank among the max_surrogates best of the ``kept`` kept so far (sc.top_keys, all of lower
    columns: a tie ranks it after them). Division, subtraction and the key are monotone in the
    agreement, so the bound's numbers are at least the column's own."""
    m = params.max_surrogates
    if kept < m:
        return False
    agreement = bound / total
    if not (agreement - majority) / (1.0 - majority) > params.min_adjusted:
        return True
    return agreement_key(agreement) <= sc.top_keys[m - 1]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _kept_key(sc, kept, key, m):
    """Insert a kept column's key into sc.top_keys (descending, the m largest); returns how many
    are kept."""
    i = min(kept, m - 1)
    if kept >= m and key <= sc.top_keys[i]:
        return kept + 1
    while i > 0 and sc.top_keys[i - 1] < key:
        sc.top_keys[i] = sc.top_keys[i - 1]
        i -= 1
    sc.top_keys[i] = key
    return kept + 1


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _entry_surrogate(f, codes, se_w, se_n, p, side0, side1, majority_branch, feat, params, side,
                     sc):
    """Column f's surrogate from its p surrogate entries (side0/side1: its known weight per
    primary side): its test into ``sc``, and the agreeing weight, or -1 when it has none."""
    min_side = params.min_side
    known_rows = 0
    for e in range(p):
        known_rows += se_n[e, 0] + se_n[e, 1]
    if known_rows < 2 * min_side:
        return -1.0
    if feat.categorical[f]:
        tie = heavier(side0, side1)
        if tie < 0:
            tie = max(majority_branch, 0)
        agree = surrogate_subset(se_w, se_n, p, tie, min_side, side)
        if agree < 0.0:
            return -1.0
        sc.kind[f] = SUBSET
        sc.tie_branch[f] = tie
        sc.threshold[f] = np.nan
        sc.left_branch[f] = 0
        return agree
    e, left, agree, _ = surrogate_threshold(se_w, se_n, p, min_side)
    if e < 0:
        return -1.0
    sc.kind[f] = THRESHOLD
    sc.left_branch[f] = left
    sc.threshold[f] = midpoint(feat.bin_max[f, codes[e]], feat.bin_min[f, codes[e + 1]])
    return agree


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _keep(sc, f, agree, total, majority, params):
    """Column f's surrogate is a candidate when its adjusted agreement is high enough."""
    agreement = agree / total
    if (agreement - majority) / (1.0 - majority) > params.min_adjusted:
        sc.agreement[f] = agreement


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rank(sc, d, params):
    """The kept candidates ranked (agreement to 12 decimals, ties to the lower column) into
    sc.order; returns how many, at most max_surrogates."""
    for f in range(d):
        sc.taken[f] = False
    count = 0
    while count < params.max_surrogates:
        best_f = -1
        best_key = 0.0
        for f in range(d):
            if sc.agreement[f] >= 0.0 and not sc.taken[f]:
                key = agreement_key(sc.agreement[f])
                if best_f < 0 or key > best_key:
                    best_f, best_key = f, key
        if best_f < 0:
            break
        sc.order[count] = best_f
        sc.taken[best_f] = True
        count += 1
    return count


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def surrogate_sides(seg, start, end, f, direction, rows, feat, scr, sc, out):
    """The branch of each category of the SUBSET surrogate on column f (out[code]; -1: none),
    remade from its surrogate entries."""
    for c in range(out.shape[0]):
        out[c] = -1
    if feat.search[f] == BINNED:
        q = feat.slot[f]
        p = scr.ent.se_n_entries[q]
        codes, se_w, se_n = scr.ent.se_code[q], scr.ent.se_w[q], scr.ent.se_n[q]
    else:
        p, _, _ = wide_surrogate_entries(seg, start, end, direction, f, scr.wide)
        codes, se_w, se_n = scr.wide.wide_se_code, scr.wide.wide_se_w, scr.wide.wide_se_n
    # min_side as an int64, not a literal 0: a literal argument would compile the kernel twice
    surrogate_subset(se_w, se_n, p, sc.tie_branch[f], np.int64(0), scr.side)
    for e in range(p):
        out[codes[e]] = scr.side[e]


@njit(cache=True, no_cfunc_wrapper=True)
def surrogates_from_entries(primary, mass0, mass1, majority_branch, feat, params, scr, sc):
    """``search_surrogates`` on surrogate entries summed elsewhere (every column binned, column
    f's entries in row ``feat.slot[f]`` of scr.se_*; a distributed fit's histograms): the same
    column kernels and ranking; returns how many are kept (sc.order)."""
    d = feat.search.shape[0]
    total = mass0 + mass1
    majority = max(mass0, mass1) / total
    for f in range(d):
        sc.agreement[f] = -1.0
        if f == primary:
            continue
        q = feat.slot[f]
        ent = scr.ent
        agree = _entry_surrogate(f, ent.se_code[q], ent.se_w[q], ent.se_n[q],
                                 ent.se_n_entries[q], ent.se_side[q, 0], ent.se_side[q, 1],
                                 majority_branch, feat, params, scr.side, sc)
        if agree < 0.0:
            continue
        _keep(sc, f, agree, total, majority, params)
    return _rank(sc, d, params)


@njit(cache=True, no_cfunc_wrapper=True)
def entry_surrogate_sides(f, feat, scr, sc, out):
    """``surrogate_sides`` from column f's summed surrogate entries."""
    for c in range(out.shape[0]):
        out[c] = -1
    q = feat.slot[f]
    ent = scr.ent
    p = ent.se_n_entries[q]
    surrogate_subset(ent.se_w[q], ent.se_n[q], p, sc.tie_branch[f], np.int64(0), scr.side)
    for e in range(p):
        out[ent.se_code[q, e]] = scr.side[e]
