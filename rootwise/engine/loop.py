"""TreeGenerate (seed 000, figure 2) in one numba kernel: the engine's only growth loop.

A node becomes a leaf when
  1. all its rows belong to one class, or share one target value (stopping case 1);
  2. no attribute can split it (case 2: ``search`` finds no admissible test);
  3. it is an empty branch: it takes its parent's prediction (case 3);
plus the user's limits: max_depth, min_samples_split, epsilon, impurity_threshold,
min_impurity_decrease, max_leaf_nodes, CART's ``cp`` (a node costing at most ``cost_floor``),
and pre-pruning on validation rows (``prepruning``).

Growth is depth-first (branch 0 first), or best-first by weighted impurity decrease when
``max_leaf_nodes`` is set (ties: the earlier node); either way a node's children get consecutive
ids when it is split. Every stage is a kernel of its own module: node statistics (``node_stats``),
split search (``search``), surrogates (``surrogate_split``), routing (``route``), pre-pruning
(``prepruning``), partition (``segments``), and the node table (``node_table``).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET, THRESHOLD
from .arrays import grown
from .bundles import MISSING_FRACTIONAL as FRACTIONAL
from .bundles import MISSING_SURROGATE
from .node_stats import class_stats, regression_stats
from .node_table import (
    init_leaf,
    new_nodes,
    new_surrogates,
    pool_with,
    surrogates_with_room,
    with_room,
)
from .prepruning import holdout_branches, loss, score_of, split_helps, split_holdout
from .route import (
    by_surrogates,
    fractions_of,
    primary_branches,
    primary_masses,
    receiving,
    to_majority,
)
from .scratch import new_scratch
from .search import available_columns, chosen_sides, new_candidates, search
from .segments import child_layout, root_segments, split_binary, split_multiway, with_capacity
from .surrogate_split import (
    heavier,
    new_surrogate_candidates,
    search_surrogates,
    surrogate_sides,
)


class Growth(NamedTuple):
    """What ``grow`` returns: the node table and its sizes, the pools, the pre-pruning steps."""

    nodes: object
    n_nodes: int
    pool: np.ndarray
    n_pool: int
    surrogates: object
    n_surrogates: int
    step_node: np.ndarray
    step_weight: np.ndarray
    step_subtree: np.ndarray
    step_leaf: np.ndarray
    step_pruned: np.ndarray
    n_steps: int


@njit(cache=True, _nrt=False)
def _visit(nodes, node, seg, start, end, params, ys, ws):
    """Record the node's statistics; returns (weight W, whether it may be split). ``ys``, ``ws``:
    scratch per position."""
    value = nodes.value[node]
    if params.regression:
        W, imp, pure = regression_stats(seg, start, end, params.median, value, ys, ws)
    else:
        W, imp, pure = class_stats(seg, start, end, params.criterion, value)
    nodes.n_samples[node] = end - start
    nodes.weight[node] = W
    if not W > 0.0:  # an empty branch: the parent's prediction (stopping case 3)
        p = nodes.parent[node]
        if p >= 0:
            for k in range(value.shape[0]):
                value[k] = nodes.value[p, k]
        nodes.impurity[node] = 0.0
        return W, False
    nodes.impurity[node] = imp
    if (pure or nodes.depth[node] >= params.max_depth or W < params.min_samples_split
            or imp < params.impurity_threshold):
        return W, False
    if params.cost_floor > 0.0 and _cost(W, imp, value, params) <= params.cost_floor:
        return W, False  # a leaf of every subtree T(alpha) with alpha >= the floor (``cp``)
    if params.release8:  # J48 makes a node a leaf before looking at attributes
        top = value[0]
        for k in range(value.shape[0]):
            top = max(top, value[k])
        if 2.0 * params.r8_min_objects - W > 1e-6 or abs(W - top) < 1e-6:
            return W, False
    return W, True


@njit(cache=True, _nrt=False)
def _cost(W, imp, value, params):
    """The node's cost c(t) as cost-complexity pruning counts it: the misclassified weight
    W - max_k w_k, or W I(t) (the impurity cost; regression: the sum of squares)."""
    if not params.floor_misclassified:
        return W * imp
    top = value[0]
    for k in range(value.shape[0]):
        top = max(top, value[k])
    return W - top


@njit(cache=True, _nrt=False)
def _weights_by_row(seg, start, end, rows, params, scr):
    """The rows' weights at the node by row id, and whether each row of positive weight weighs 1.
    CART's weights never change; C4.5's are scattered from the segment."""
    if params.missing != FRACTIONAL:
        return rows.w, scr.unit_input
    unit = True
    for t in range(start, end):
        wt = seg.w[t]
        scr.w_node[seg.row[t]] = wt
        if wt > 0.0 and wt != 1.0:
            unit = False
    return scr.w_node, unit


@njit(cache=True, _nrt=False)
def _find_split(nodes, node, seg, start, end, W, total_weight, rows, feat, params, scr, cand):
    """The node's chosen column (-1: none) after the selection rule, epsilon and
    min_impurity_decrease."""
    available_columns(nodes, node, scr.available)
    w_row, unit = _weights_by_row(seg, start, end, rows, params, scr)
    j, chosen_score = search(seg, start, end, scr.available, rows, feat, params, scr, cand, W,
                             w_row, unit)
    if j < 0 or chosen_score < params.epsilon:
        return -1
    if cand.gain[j] * W / total_weight < params.min_impurity_decrease:
        return -1
    return j


@njit(cache=True, nogil=True)
def grow(rows, feat, params, holdout, seg, scr, n_out):
    """Grow the tree of ``params`` on ``rows`` from the root segment ``seg`` (``segments.
    root_segments``); ``holdout``: validation rows (empty X: no pre-pruning)."""
    n = rows.w.shape[0]
    d = feat.search.shape[0]
    total_weight = 0.0  # W of the root, added in row order (min_impurity_decrease)
    for r in range(n):
        total_weight += rows.w[r]
    # literal constants would compile kernels a second time (numba specialises on a literal
    # argument): the root's ids are typed int64 like every other node's
    root = np.int64(0)
    nodes = new_nodes(64, n_out)
    init_leaf(nodes, root, np.int64(-1), root, 1.0)
    n_nodes = 1
    pool = np.zeros(64, dtype=np.int64)
    n_pool = 0
    sur = new_surrogates(64)
    n_sur = 0
    cand = new_candidates(d)
    sc = new_surrogate_candidates(d, params.max_surrogates)
    max_k = scr.sides.shape[0]
    sur_sides = np.full((max(params.max_surrogates, 1), max_k), -1, dtype=np.int64)
    sur_feature = np.zeros(max(params.max_surrogates, 1), dtype=np.int64)
    sur_kind = np.zeros(max(params.max_surrogates, 1), dtype=np.int64)
    sur_threshold = np.zeros(max(params.max_surrogates, 1))
    sur_left = np.zeros(max(params.max_surrogates, 1), dtype=np.int64)
    mw_i = np.empty(n, dtype=np.int64)  # multiway partition scratch (grows with C4.5's copies)
    mw_f = np.empty(n)
    known_w = np.zeros(max_k)
    fractions = np.zeros(max_k)
    receives = np.zeros(max_k, dtype=np.bool_)
    child_w = np.zeros(max_k)
    two_starts = np.zeros(2, dtype=np.int64)  # a binary split's children's segments
    two_ends = np.zeros(2, dtype=np.int64)

    # pre-pruning state
    pre = params.prepruning
    m_val = holdout.w.shape[0]
    vrow = np.empty(max(m_val, 1) * 2, dtype=np.int64)
    vw = np.empty(vrow.shape[0])
    for t in range(m_val):
        vrow[t] = t
        vw[t] = holdout.w[t]
    val_total = 0.0
    for t in range(m_val):
        val_total += holdout.w[t]
    val_loss = np.nan
    vdir = np.empty(vrow.shape[0], dtype=np.int64)
    vs_i = np.empty(vrow.shape[0], dtype=np.int64)
    vs_f = np.empty(vrow.shape[0])
    child_value = np.zeros((max_k, n_out))
    step_node = np.empty(16, dtype=np.int64)
    step_weight = np.empty(16)
    step_subtree = np.empty(16)
    step_leaf = np.empty(16)
    step_pruned = np.empty(16, dtype=np.bool_)
    n_steps = 0

    # where each pending node's rows are (segment and validation segment)
    seg_start = np.zeros(64, dtype=np.int64)
    seg_end = np.zeros(64, dtype=np.int64)
    val_start = np.zeros(64, dtype=np.int64)
    val_end = np.zeros(64, dtype=np.int64)
    seg_end[0] = n
    val_end[0] = m_val

    best_first = params.max_leaf_nodes > 0
    stack = np.zeros(64, dtype=np.int64)
    top = 0
    heap_key = np.zeros(64)
    heap_node = np.zeros(64, dtype=np.int64)
    n_heap = 0
    n_leaves = 1

    if best_first:
        W, ok = _visit(nodes, root, seg, root, n, params, scr.ys, scr.ws)
        if ok:
            j = _find_split(nodes, root, seg, root, n, W, total_weight, rows, feat, params, scr,
                            cand)
            if j >= 0:
                heap_key[0], heap_node[0] = -cand.gain[j] * W, 0
                n_heap = 1
    else:
        stack[0] = 0
        top = 1

    while (n_heap > 0) if best_first else (top > 0):
        if best_first:
            node = heap_node[0]
            n_heap -= 1  # pop the root of the heap: smallest (key, node)
            heap_key[0], heap_node[0] = heap_key[n_heap], heap_node[n_heap]
            i = 0
            while True:
                a, b = 2 * i + 1, 2 * i + 2
                m = i
                if a < n_heap and (heap_key[a] < heap_key[m] or (heap_key[a] == heap_key[m]
                                                                 and heap_node[a] < heap_node[m])):
                    m = a
                if b < n_heap and (heap_key[b] < heap_key[m] or (heap_key[b] == heap_key[m]
                                                                 and heap_node[b] < heap_node[m])):
                    m = b
                if m == i:
                    break
                heap_key[i], heap_key[m] = heap_key[m], heap_key[i]
                heap_node[i], heap_node[m] = heap_node[m], heap_node[i]
                i = m
            start, end = seg_start[node], seg_end[node]
            W = nodes.weight[node]
            j = _find_split(nodes, node, seg, start, end, W, total_weight, rows, feat, params,
                            scr, cand)
        else:
            top -= 1
            node = stack[top]
            start, end = seg_start[node], seg_end[node]
            W, ok = _visit(nodes, node, seg, start, end, params, scr.ys, scr.ws)
            if not ok:
                continue
            j = _find_split(nodes, node, seg, start, end, W, total_weight, rows, feat, params,
                            scr, cand)
        if j < 0:
            continue

        # ---- the test
        categorical = feat.categorical[j]
        if not categorical:
            kind = THRESHOLD
            n_b = 2
        elif params.multiway:
            kind = MULTIWAY
            n_b = feat.n_values[j]
        else:
            kind = SUBSET
            n_b = 2
        if best_first and n_leaves + n_b - 1 > params.max_leaf_nodes:
            continue
        threshold = cand.threshold[j]
        sides = scr.sides[:feat.n_values[j]]  # a categorical test's branch per category
        if kind == SUBSET:
            chosen_sides(seg, start, end, j, rows, feat, params, scr, sides)
        elif kind == MULTIWAY:
            for c in range(n_b):
                sides[c] = c
        direction = scr.direction
        primary_branches(seg, start, end, rows.X, j, kind, threshold, sides, direction,
                         known_w[:n_b])
        fractions_of(known_w[:n_b], fractions[:n_b])

        # ---- rows without a branch: surrogates (CART), every branch (C4.5), nowhere (ID3)
        n_s = 0
        m0, m1 = 0.0, 0.0
        if params.missing == MISSING_SURROGATE:
            m0, m1 = primary_masses(seg, start, end, direction)
            majority_branch = heavier(m0, m1)
            if params.max_surrogates > 0 and m0 + m1 > 0.0 and min(m0, m1) > 0.0:
                n_s = search_surrogates(seg, start, end, j, direction, m0, m1, majority_branch,
                                        rows, feat, params, scr, sc)
                for s in range(n_s):
                    f = sc.order[s]
                    sur_feature[s] = f
                    sur_kind[s] = sc.kind[f]
                    sur_threshold[s] = sc.threshold[f]
                    sur_left[s] = sc.left_branch[f]
                    if sc.kind[f] == SUBSET:
                        surrogate_sides(seg, start, end, f, direction, rows, feat, scr, sc,
                                        sur_sides[s])
                by_surrogates(seg, start, end, rows.X, direction, n_s, sur_feature, sur_kind,
                              sur_threshold, sur_left, sur_sides)
            to_majority(seg, start, end, direction, majority_branch)
        for b in range(n_b):
            receives[b] = params.missing == FRACTIONAL
        if params.missing == FRACTIONAL and params.release8:
            receiving(fractions[:n_b], True, receives[:n_b])

        # ---- the children's rows
        binary = n_b == 2 and params.missing != FRACTIONAL
        if binary:
            mid = split_binary(seg, start, end, direction, scr.goes_left, scr.flags, scr.buf_i,
                               scr.buf_f, scr.buf_codes)
            c_start, c_end = two_starts, two_ends
            c_start[0], c_end[0], c_start[1], c_end[1] = start, mid, mid, end
        else:
            c_start, c_end = child_layout(start, direction[:end - start], receives[:n_b], n_b)
            needed = start
            for b in range(n_b):
                needed = max(needed, c_end[b])
            seg = with_capacity(seg, needed)
            if needed - start > mw_i.shape[0]:
                mw_i = np.empty(2 * (needed - start), dtype=np.int64)
                mw_f = np.empty(2 * (needed - start))
            split_multiway(seg, start, end, direction[:end - start], fractions[:n_b],
                           receives[:n_b], c_start, c_end, scr.branch_of_row, mw_i, mw_f)
        if params.missing == MISSING_SURROGATE:
            for b in range(2):
                s = 0.0
                for t in range(c_start[b], c_end[b]):
                    s += seg.w[t]
                child_w[b] = s

        # ---- pre-pruning: split only if the children, as leaves, do better on validation rows
        vstart, vend = val_start[node], val_end[node]
        if pre:
            if params.missing == MISSING_SURROGATE:
                mb = heavier(child_w[0], child_w[1])
                missing_branch = MISSING_STOP if mb < 0 else mb
            elif params.missing == FRACTIONAL:
                missing_branch = MISSING_FRACTIONAL
            else:
                missing_branch = MISSING_STOP
            holdout_branches(vrow, vw, vstart, vend, holdout.X, j, kind, threshold, sides,
                             missing_branch, n_s, sur_feature, sur_kind, sur_threshold, sur_left,
                             sur_sides, vdir)
            own = nodes.value[node]
            as_leaf = loss(own, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                           params.regression, vdir, np.int64(-3), 1.0)
            as_split = loss(own, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                            params.regression, vdir, np.int64(-1), 1.0)
            for b in range(n_b):
                if params.regression:
                    cw, _, _ = regression_stats(seg, c_start[b], c_end[b], params.median,
                                                child_value[b], scr.ys, scr.ws)
                else:
                    cw, _, _ = class_stats(seg, c_start[b], c_end[b], params.criterion,
                                           child_value[b])
                value_b = child_value[b] if cw > 0.0 else own
                as_split += loss(value_b, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                                 params.regression, vdir, b, fractions[b])
            helps = split_helps(as_split, as_leaf, params.prune_on_tie)
            if np.isnan(val_loss):  # the root: the whole tree is this one leaf
                val_loss = as_leaf
            after = val_loss - as_leaf + as_split
            if n_steps == step_node.shape[0]:
                step_node = grown(step_node, n_steps + 1)
                step_weight = grown(step_weight, n_steps + 1)
                step_subtree = grown(step_subtree, n_steps + 1)
                step_leaf = grown(step_leaf, n_steps + 1)
                step_pruned = grown(step_pruned, n_steps + 1)
            reach = 0.0
            for t in range(vstart, vend):
                reach += vw[t]
            step_node[n_steps] = node
            step_weight[n_steps] = reach
            step_subtree[n_steps] = score_of(after, val_total, params.regression)
            step_leaf[n_steps] = score_of(val_loss, val_total, params.regression)
            step_pruned[n_steps] = not helps
            n_steps += 1
            if not helps:
                continue
            val_loss = after

        # ---- record the split and its children
        nodes = with_room(nodes, n_nodes + n_b)
        first = n_nodes
        n_nodes += n_b
        nodes.feature[node] = j
        nodes.kind[node] = kind
        nodes.threshold[node] = threshold if kind == THRESHOLD else np.nan
        nodes.first_child[node] = first
        nodes.n_children[node] = n_b
        nodes.improvement[node] = cand.gain[j] * W
        if kind != THRESHOLD:
            k = feat.n_values[j]
            pool = pool_with(pool, n_pool, k)
            nodes.pool_offset[node] = n_pool
            for c in range(k):
                pool[n_pool + c] = sides[c]
            n_pool += k
        if params.missing == MISSING_SURROGATE:
            mb = heavier(child_w[0], child_w[1])
            nodes.missing_branch[node] = MISSING_STOP if mb < 0 else mb
        elif params.missing == FRACTIONAL:
            nodes.missing_branch[node] = MISSING_FRACTIONAL
        else:
            nodes.missing_branch[node] = MISSING_STOP
        if n_s > 0:
            sur = surrogates_with_room(sur, n_sur + n_s)
            majority = max(m0, m1) / (m0 + m1)
            nodes.s_offset[node] = n_sur
            nodes.s_count[node] = n_s
            for s in range(n_s):
                f = sur_feature[s]
                sur.feature[n_sur] = f
                sur.kind[n_sur] = sur_kind[s]
                sur.threshold[n_sur] = sur_threshold[s]
                sur.left_branch[n_sur] = sur_left[s]
                a = sc.agreement[f]
                sur.agreement[n_sur] = a
                sur.adjusted[n_sur] = (a - majority) / (1.0 - majority)
                sur.pool_offset[n_sur] = -1
                if sur_kind[s] == SUBSET:
                    k = feat.n_values[f]
                    pool = pool_with(pool, n_pool, k)
                    sur.pool_offset[n_sur] = n_pool
                    for c in range(k):
                        pool[n_pool + c] = sur_sides[s, c]
                    n_pool += k
                n_sur += 1

        # validation rows of the children
        if pre:
            vneed = vstart
            size = 0
            for t in range(vend - vstart):
                if vdir[t] >= 0:
                    size += 1
                elif vdir[t] == -2:
                    size += n_b
            vneed = vstart + size
            if vneed > vrow.shape[0]:
                vrow = grown(vrow, vneed)
                vw = grown(vw, vneed)
                vdir = grown(vdir, vneed)
                vs_i = grown(vs_i, vneed)
                vs_f = grown(vs_f, vneed)
            vc_start = np.empty(n_b, dtype=np.int64)
            vc_end = np.empty(n_b, dtype=np.int64)
            split_holdout(vrow, vw, vstart, vend, vdir, fractions[:n_b], vc_start, vc_end, vs_i,
                          vs_f)

        if n_nodes > seg_start.shape[0]:
            seg_start = grown(seg_start, n_nodes)
            seg_end = grown(seg_end, n_nodes)
            val_start = grown(val_start, n_nodes)
            val_end = grown(val_end, n_nodes)
        for b in range(n_b):
            c = first + b
            init_leaf(nodes, c, node, nodes.depth[node] + 1, fractions[b])
            seg_start[c], seg_end[c] = c_start[b], c_end[b]
            if pre:
                val_start[c], val_end[c] = vc_start[b], vc_end[b]
        if best_first:
            n_leaves += n_b - 1
            for b in range(n_b):
                c = first + b
                Wc, ok = _visit(nodes, c, seg, seg_start[c], seg_end[c], params, scr.ys,
                                scr.ws)
                if not ok:
                    continue
                jc = _find_split(nodes, c, seg, seg_start[c], seg_end[c], Wc, total_weight, rows,
                                 feat, params, scr, cand)
                if jc < 0:
                    continue
                if n_heap == heap_key.shape[0]:
                    heap_key = grown(heap_key, n_heap + 1)
                    heap_node = grown(heap_node, n_heap + 1)
                i = n_heap  # push, then sift up
                heap_key[i], heap_node[i] = -cand.gain[jc] * Wc, c
                n_heap += 1
                while i > 0:
                    p = (i - 1) // 2
                    if heap_key[i] < heap_key[p] or (heap_key[i] == heap_key[p]
                                                     and heap_node[i] < heap_node[p]):
                        heap_key[i], heap_key[p] = heap_key[p], heap_key[i]
                        heap_node[i], heap_node[p] = heap_node[p], heap_node[i]
                        i = p
                    else:
                        break
        else:
            if top + n_b > stack.shape[0]:
                stack = grown(stack, top + n_b)
            for b in range(n_b - 1, -1, -1):  # branch 0 grows first
                stack[top] = first + b
                top += 1
    return Growth(nodes, n_nodes, pool, n_pool, sur, n_sur, step_node, step_weight, step_subtree,
                  step_leaf, step_pruned, n_steps)


def fit(rows, feat, params, holdout, layout, n_out, unit_input):
    """Everything a fit runs in numba, in three calls from Python: the root's segments
    (``layout``: sorted columns, binned columns, which come from histogram bins, their codes, the
    most categories of any column and of a WIDE one), the working memory, and the growth.
    Not one kernel around the three: numba links and optimises a kernel together with everything
    it calls, so a wrapper kernel would compile the whole engine a second time (12 s of CPU).
    The three release the GIL: cross-validation grows its folds on several threads."""
    (sorted_columns, binned, from_bins, binned_codes, max_categories, max_wide) = layout
    n, d = rows.X.shape
    seg = root_segments(rows.X, rows.yc, rows.yr, rows.w, sorted_columns, binned, from_bins,
                        binned_codes, feat.n_values, n)
    width = 3 if params.regression else params.n_classes
    scr = new_scratch(n, d, params.n_classes, width, binned, max_categories, max_wide,
                      seg.codes.shape[1], unit_input)
    return grow(rows, feat, params, holdout, seg, scr, n_out)
