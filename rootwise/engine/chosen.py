"""The chosen split at a node, applied: each row's branch, the children's segments, and the split
written into the tree. ``loop._grow_from`` calls these once per split.

    route         the test's branch of each row: its own value where known, else (CART) its first
                  surrogate with a value, else the majority branch (``route``, ``surrogate_split``)
    binary_rows   a binary split's children's segments (``segments.split_binary``)
    record_split  the test, its surrogates and their category -> branch entries in the pool
    add_children  the children as new leaves

They allocate nothing and run without reference counting; all but ``route`` are inlined into
the growth loop (``bundles``, "Argument copies"): most of a regression fit's 10^5 splits are at
nodes of 2-4 rows, where passing the bundles field by field cost more than the work. The caller
makes room in the tables before ``record_split`` and ``add_children``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET, THRESHOLD
from .bundles import BINNED, MISSING_SURROGATE, SORTED
from .bundles import MISSING_FRACTIONAL as FRACTIONAL
from .node_table import init_leaf
from .route import (
    branch_of_value,
    by_surrogates,
    fractions_of,
    primary_branches,
    primary_masses,
    receiving,
    to_majority,
)
from .search import chosen_sides
from .segments import END_BIT, ROW_MASK, code_at, split_binary
from .surrogate_split import heavier, search_surrogates, surrogate_sides


class Chosen(NamedTuple):
    """The working arrays of the split being applied (allocated once per fit)."""

    sur_sides: np.ndarray  # (max_surrogates, categories): a SUBSET surrogate's branch per category
    sur_feature: np.ndarray  # (max_surrogates,) the kept surrogates, rank order
    sur_kind: np.ndarray
    sur_threshold: np.ndarray
    sur_left: np.ndarray
    known_w: np.ndarray  # per branch: the known weight the test sends there
    fractions: np.ndarray  # per branch: r_v, its share of the known weight
    receives: np.ndarray  # per branch, bool: C4.5 sends the rows without a branch there
    child_w: np.ndarray  # per branch: the child's weight once every row has a branch
    c_start: np.ndarray  # per branch: the child's segment
    c_end: np.ndarray


def new_chosen(max_surrogates, max_branches):
    s = max(max_surrogates, 1)
    k = max(max_branches, 2)
    return Chosen(np.full((s, k), -1, dtype=np.int64), np.zeros(s, dtype=np.int64),
                  np.zeros(s, dtype=np.int64), np.zeros(s), np.zeros(s, dtype=np.int64),
                  np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.bool_), np.zeros(k),
                  np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def route(seg, start, end, j, kind, threshold, cut, n_b, rows, feat, params, scr, sc, ch, reg,
          clf, multi, subset, surr, r8, sortd, coded):
    """Each segment position's branch under the test on column j into scr.direction (and a SUBSET
    test's branch per category into scr.sides); ``cut``: a presorted column's last word on the
    left. Returns (surrogates kept, m0, m1), m0/m1 the weights the primary sends each way
    (CART); the rest: switches (``paths``)."""
    sides = scr.sides[:feat.n_values[j]]
    if multi is not None and kind == MULTIWAY:
        for c in range(n_b):
            sides[c] = c
    if subset is not None and coded is not None and kind == SUBSET:
        chosen_sides(seg, start, end, j, rows, feat, params, scr, sides, reg, clf)
    direction = scr.direction
    primary_directions(seg, start, end, j, kind, threshold, sides, rows.X, feat, cut, scr.dir_row,
                       direction, ch.known_w[:n_b], sortd, coded)
    fractions_of(ch.known_w[:n_b], ch.fractions[:n_b])

    # rows without a branch: surrogates (CART), every branch (C4.5), nowhere (ID3)
    n_s = 0
    m0, m1 = 0.0, 0.0
    if surr is not None:
        m0, m1 = primary_masses(seg, start, end, direction)
        majority_branch = heavier(m0, m1)
        # a surrogate sends min_side primary-known rows each way: a node with fewer than
        # 2 min_side of them has none (a third of the splits of a fully grown tree)
        if (params.max_surrogates > 0 and m0 + m1 > 0.0 and min(m0, m1) > 0.0
                and _has_rows_known(direction, end - start, 2 * params.min_side)):
            n_s = search_surrogates(seg, start, end, j, direction, m0, m1, majority_branch, rows,
                                    feat, params, scr, sc, sortd, coded)
            for s in range(n_s):
                f = sc.order[s]
                ch.sur_feature[s] = f
                ch.sur_kind[s] = sc.kind[f]
                ch.sur_threshold[s] = sc.threshold[f]
                ch.sur_left[s] = sc.left_branch[f]
                if coded is not None and sc.kind[f] == SUBSET:
                    # its own categories only, not a row of the widest column's: codes of the
                    # training rows lie below them (pre-pruning's validation rows may not)
                    k = ch.sur_sides.shape[1] if params.prepruning else feat.n_values[f]
                    surrogate_sides(seg, start, end, f, direction, rows, feat, scr, sc,
                                    ch.sur_sides[s, :k])
            by_surrogates(seg, start, end, rows.X, direction, n_s, ch.sur_feature, ch.sur_kind,
                          ch.sur_threshold, ch.sur_left, ch.sur_sides)
        to_majority(seg, start, end, direction, majority_branch)
    for b in range(n_b):
        ch.receives[b] = params.missing == FRACTIONAL
    if r8 is not None and params.missing == FRACTIONAL:
        receiving(ch.fractions[:n_b], True, ch.receives[:n_b])
    return n_s, m0, m1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _has_rows_known(direction, n, need):
    """Whether at least ``need`` of the first n positions have a primary branch."""
    seen = 0
    for t in range(n):
        seen += np.int64(direction[t] >= 0)
        if seen >= need:
            return True
    return False


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def primary_directions(seg, start, end, j, kind, threshold, sides, X, feat, cut, by_row,
                       direction, known_w, sortd, coded):
    """``route.primary_branches``, read from the column as the node holds it where it can: a
    presorted column's known words sit in the segment in order, so the rows up to the cut
    (``cut``: the last left word) go left and the others right; a binned column's codes sit in
    the segment by position (``cut``: a binned threshold's last bin on the left). X's row of
    each of the node's rows is a cache miss on a large table (a node's rows lie anywhere in X).
    ``by_row``: int8 scratch by row id."""
    for b in range(known_w.shape[0]):
        known_w[b] = 0.0
    # (release 8 leaves no cut: cut < 0); ``sortd``, ``coded``: switches (``paths``)
    if sortd is not None and kind == THRESHOLD and feat.search[j] == SORTED and cut >= 0:
        # known words: x <= words[cut] <= threshold < words[cut + 1] <= x' (``thresholds.
        # midpoint``); END words (missing, or of weight 0) go by their value, as in the reference
        s = feat.slot[j]
        for p in range(start, end):
            word = seg.words[s, p]
            r = word & ROW_MASK
            if word & END_BIT:
                by_row[r] = np.int8(branch_of_value(X[r, j], kind, threshold, sides))
            else:
                by_row[r] = np.int8(0 if p <= cut else 1)
        for t in range(start, end):
            b = np.int64(by_row[seg.row[t]])
            direction[t - start] = b
            if b >= 0:
                known_w[b] += seg.w[t]
        return
    if coded is not None and kind == SUBSET and feat.search[j] == BINNED:
        # a category's code, or n_values[j] = len(sides) when missing: no branch
        q = feat.slot[j]
        for t in range(start, end):
            c = code_at(seg.codes, t, q)
            b = sides[c] if c < sides.shape[0] else -1
            direction[t - start] = b
            if b >= 0:
                known_w[b] += seg.w[t]
        return
    if coded is not None and kind == THRESHOLD and feat.search[j] == BINNED:
        # bins of a continuous column: a row of weight holds a bin present at the node, so its
        # bin's side of the cut (``cut``: the last bin on the left) is its value's. A row of
        # weight 0 may hold a bin between the two around the cut: its value decides.
        q = feat.slot[j]
        missing = feat.n_values[j]
        for t in range(start, end):
            c = code_at(seg.codes, t, q)
            if c == missing:
                b = -1
            elif seg.w[t] > 0.0:
                b = 0 if c <= cut else 1
            else:
                b = branch_of_value(X[seg.row[t], j], kind, threshold, sides)
            direction[t - start] = b
            if b >= 0:
                known_w[b] += seg.w[t]
        return
    primary_branches(seg, start, end, X, j, kind, threshold, sides, direction, known_w)


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def binary_rows(seg, start, end, scr, ch, least):
    """A binary split's partition of the segment: the children's segments into ch.c_start /
    ch.c_end (``least``: ``split_binary``)."""
    mid = split_binary(seg, start, end, scr.direction, scr.goes_left, scr.buf_i, scr.buf_f,
                       scr.buf_codes, least)
    ch.c_start[0], ch.c_end[0], ch.c_start[1], ch.c_end[1] = start, mid, mid, end


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def child_weights(seg, ch):
    """Each child's weight, added in its segment's order (CART's missing branch)."""
    for b in range(2):
        s = 0.0
        for t in range(ch.c_start[b], ch.c_end[b]):
            s += seg.w[t]
        ch.child_w[b] = s


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def missing_branch_of(params, ch):
    """Where a row with no value for the test (nor any surrogate) goes at prediction: the heavier
    child (CART; MISSING_STOP on a tie), every child (C4.5), or nowhere (ID3)."""
    if params.missing == MISSING_SURROGATE:
        mb = heavier(ch.child_w[0], ch.child_w[1])
        return MISSING_STOP if mb < 0 else mb
    if params.missing == FRACTIONAL:
        return MISSING_FRACTIONAL
    return MISSING_STOP


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def record_split(nodes, node, j, kind, threshold, n_b, first, improvement, params, feat, scr,
                 sc, ch, n_s, m0, m1, pool, n_pool, sur, n_sur):
    """The split of ``node`` into the table (its children get ids first..first + n_b - 1), its
    surrogates into rows n_sur.. of ``sur`` and its categories' branches into the pool from
    n_pool (room for them made by the caller). Returns the pool's new length."""
    nodes.feature[node] = j
    nodes.kind[node] = kind
    nodes.threshold[node] = threshold if kind == THRESHOLD else np.nan
    nodes.first_child[node] = first
    nodes.n_children[node] = n_b
    nodes.improvement[node] = improvement
    if kind != THRESHOLD:
        # a multiway test's slice (category c -> branch c) is only reserved here: its entries
        # may not fit the growth's int8 pool, ``node_table.to_tree`` writes them
        k = feat.n_values[j]
        nodes.pool_offset[node] = n_pool
        if kind == SUBSET:
            for c in range(k):
                pool[n_pool + c] = np.int8(scr.sides[c])
        n_pool += k
    nodes.missing_branch[node] = missing_branch_of(params, ch)
    if n_s > 0:
        majority = max(m0, m1) / (m0 + m1)
        nodes.s_offset[node] = n_sur
        nodes.s_count[node] = n_s
        for s in range(n_s):
            f = ch.sur_feature[s]
            row = n_sur + s
            sur.feature[row] = f
            sur.kind[row] = ch.sur_kind[s]
            sur.threshold[row] = ch.sur_threshold[s]
            sur.left_branch[row] = ch.sur_left[s]
            a = sc.agreement[f]
            sur.agreement[row] = a
            sur.adjusted[row] = (a - majority) / (1.0 - majority)
            sur.pool_offset[row] = -1
            if ch.sur_kind[s] == SUBSET:
                k = feat.n_values[f]
                sur.pool_offset[row] = n_pool
                for c in range(k):
                    pool[n_pool + c] = np.int8(ch.sur_sides[s, c])
                n_pool += k
    return n_pool


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def add_children(nodes, node, first, n_b, ch):
    """The split's children as new leaves (room made by the caller)."""
    for b in range(n_b):
        init_leaf(nodes, first + b, node, nodes.depth[node] + 1, ch.fractions[b])
