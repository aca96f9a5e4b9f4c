"""The reference builder's depth-first loop for ID3 and C4.5 (multiway categorical tests,
classification), in one numba call.

``reference.builder`` grows these trees node by node in Python, calling a kernel per step; most nodes are
small, so the Python around the kernels costs more than they do. This is the same loop over the
same kernels (``evaluate_node``, ``choose``, ``branch_of_rows``, ``split_rows``, ...), in the same
order: the same node ids, tests, thresholds, weights and values, bit for bit (the tests compare
the two builders).

Release 8 (J48's variant) arrives as one argument, ``r8``: None, or the tuple of its settings
(min_objects, share, cap, in_average, log2_table, slack, distinct, distinct_at). numba prunes a
branch on ``r8 is None`` while compiling, so the seeds' C4.5 and ID3 compile without any of
release 8's kernels (a quarter of their compile time) and release 8 gets its own compiled copy.

Two numbers come from outside numba because numba's would differ in the last bit: log2 of a
number of cuts (release 8's MDL penalty; numpy's log2 is not libm's) arrives as a table made by
numpy, and the weight of all rows as numpy summed it.
"""

import numpy as np
from numba import njit

from .._config import CATEGORICAL, LEAF, MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, THRESHOLD
from .arrays import grown, grown_rows
from .candidates import choose, evaluate_node, node_statistics, numpy_sum
from .partition import branch_of_rows, split_rows
from .release8 import SMALL, split_point_sorted
from .release8 import choose as release8_choose
from .release8 import evaluate_node as release8_evaluate_node
from .stats import class_counts


@njit(cache=True)
def _grow_arrays(arrays, capacity):
    """The node arrays with room for ``capacity`` nodes (old entries kept)."""
    out = []
    for a in arrays:
        out.append(grown(a, capacity))
    return out


@njit(cache=True)
def _live(idx, w):
    """The rows of positive weight (the node's rows themselves when all are)."""
    m = 0
    for t in range(w.shape[0]):
        if w[t] > 0:
            m += 1
    if m == w.shape[0]:
        return idx, w
    live_idx = np.empty(m, dtype=idx.dtype)
    live_w = np.empty(m)
    m = 0
    for t in range(w.shape[0]):
        if w[t] > 0:
            live_idx[m] = idx[t]
            live_w[m] = w[t]
            m += 1
    return live_idx, live_w


@njit(cache=True)
def _leaf_first(y, idx, w, n_classes, min_objects):
    """Release 8: J48 makes the node a leaf before looking at attributes (less than
    2 * min_objects weight, or a single class within 1e-6)."""
    counts = class_counts(y, idx, w, n_classes)
    total = numpy_sum(counts)
    return 2.0 * min_objects - total > SMALL or abs(total - counts.max()) < SMALL


@njit(cache=True)
def _best_split(X, y, idx, w, available, kinds, n_categories, ranks, rank_row, n_classes,
                criterion, by_ratio, min_leaf, two_branches, tie, r8):
    """``Splitter.best_split`` (or ``Release8Splitter``'s when ``r8`` is not None) on the node's
    live rows: (feature, kind, threshold, gain, score); feature -1 when nothing can split the
    node. Each ``r8 is not None`` block unpacks ``r8`` itself: the tests must stay on the
    argument for numba to prune them."""
    if r8 is not None:
        min_objects, share, cap, in_average, log2_table, slack, distinct, distinct_at = r8
        if _leaf_first(y, idx, w, n_classes, min_objects):
            return -1, LEAF, np.nan, 0.0, 0.0
    features = np.flatnonzero(available)
    total_w = numpy_sum(w)
    if r8 is not None:
        min_objects, share, cap, in_average, log2_table, slack, distinct, distinct_at = r8
        found, gain, iv, rho, admissible, weight, cuts, mid, _, _ = release8_evaluate_node(
            X, ranks, rank_row, features, kinds, n_categories, y, idx, w, total_w, n_classes,
            min_objects, share, cap)
        ratio = np.zeros(features.shape[0])
        for f in range(features.shape[0]):
            if cuts[f] != 0:  # a continuous test: the MDL penalty
                g = gain[f] - log2_table[cuts[f]] / weight[f]
                if g < SMALL:
                    found[f] = False
                else:
                    gain[f] = g
            if found[f] and iv[f] > 0:
                ratio[f] = gain[f] / iv[f]
        threshold = mid
    else:
        found, gain, iv, ratio, rho, admissible, threshold, _, _ = evaluate_node(
            X, ranks, rank_row, features, kinds, n_categories, y, idx, w, total_w, n_classes,
            criterion, min_leaf, two_branches)
    pick = np.flatnonzero(found)
    if r8 is not None:
        min_objects, share, cap, in_average, log2_table, slack, distinct, distinct_at = r8
        i, score = release8_choose(gain[pick], ratio[pick], admissible[pick],
                                   in_average[features][pick], slack)
    else:
        i, score = choose(gain[pick], ratio[pick], admissible[pick], by_ratio, tie)
    if i < 0:
        return -1, LEAF, np.nan, 0.0, 0.0
    f = pick[i]
    j = features[f]
    if kinds[j] == CATEGORICAL:
        return j, MULTIWAY, np.nan, gain[f], score
    t = threshold[f]
    if r8 is not None:  # the largest training value of the column not above the midpoint
        min_objects, share, cap, in_average, log2_table, slack, distinct, distinct_at = r8
        r = rank_row[j]
        value = split_point_sorted(distinct[distinct_at[r]:distinct_at[r + 1]], X[:, j], t)
        if np.isfinite(value):
            t = value
    return j, THRESHOLD, t, gain[f], score


@njit(cache=True)
def grow_multiway(X, y, w, kinds, n_categories, n_classes, ranks, rank_row, criterion, by_ratio,
                  min_leaf, two_branches, tie, fractional, max_depth, min_samples_split,
                  impurity_threshold, epsilon, min_impurity_decrease, total_weight, r8):
    """``reference.builder``'s depth-first growth (``visit``, then ``expand``) for classification with
    multiway categorical tests. Returns the node arrays (feature, kind, threshold, first_child,
    n_children, pool_offset, missing_branch, parent, depth, impurity, n_node_samples,
    weighted_n_node_samples, branch_fraction, improvement), the values and the category pool."""
    n_rows, n_features = X.shape
    capacity = 64
    ints = [np.full(capacity, -1, dtype=np.int64) for _ in range(8)]
    floats = [np.zeros(capacity) for _ in range(5)]
    (feature, kind, first_child, n_children, pool_offset, missing_branch, parent,
     depth) = ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7]
    threshold, impurity, weighted, fraction, improvement = (floats[0], floats[1], floats[2],
                                                            floats[3], floats[4])
    n_samples = np.zeros(capacity, dtype=np.int64)
    value = np.zeros((capacity, n_classes))
    pool = np.zeros(0, dtype=np.int32)  # int32 as the Tree's pool and the Python splitter's tests:
    # branch_of_rows then compiles once for both builders

    n_nodes = 1
    kind[0], n_children[0], parent[0], depth[0], fraction[0] = LEAF, 0, -1, 0, 1.0
    threshold[0] = np.nan
    stack_node = [0]
    stack_idx = [np.arange(n_rows)]
    stack_w = [w.copy()]
    stack_available = [np.ones(n_features, dtype=np.bool_)]
    stack_parent = [np.zeros(n_classes)]
    while len(stack_node) > 0:
        node = stack_node.pop()
        idx = stack_idx.pop()
        ws = stack_w.pop()
        available = stack_available.pop()
        parent_value = stack_parent.pop()
        # ------------------------------------------------------------- visit
        counts, total, imp, pure = node_statistics(y, idx, ws, n_classes, criterion)
        if total <= 0.0:
            counts, imp = parent_value.copy(), 0.0  # an empty branch: the parent's prediction
        for k in range(n_classes):  # a loop, not value[node] = counts: see ``arrays``
            value[node, k] = counts[k]
        impurity[node] = imp
        n_samples[node] = idx.shape[0]
        weighted[node] = total
        if (total <= 0.0 or pure or depth[node] >= max_depth or total < min_samples_split
                or imp < impurity_threshold):
            continue
        live_idx, live_w = _live(idx, ws)
        j, test, t, gain, score = _best_split(
            X, y, live_idx, live_w, available, kinds, n_categories, ranks, rank_row, n_classes,
            criterion, by_ratio, min_leaf, two_branches, tie, r8)
        if j < 0 or score < epsilon or gain * total / total_weight < min_impurity_decrease:
            continue
        # ------------------------------------------------------------- expand
        n_b = n_categories[j] if test == MULTIWAY else 2
        categories = (np.arange(n_b).astype(np.int32) if test == MULTIWAY
                      else np.zeros(0, dtype=np.int32))
        branch, known_w = branch_of_rows(X, j, test, t, categories, idx, ws, n_b)
        known = numpy_sum(known_w)
        if known > 0:
            fractions = known_w / known
        else:
            fractions = np.full(n_b, 1.0 / n_b)
        receives = np.full(n_b, fractional)
        if r8 is not None and fractional:  # J48: not down a branch with 0 < r_v <= 1e-6
            for b in range(n_b):
                if not (fractions[b] > SMALL or fractions[b] == 0.0):
                    receives = fractions > SMALL
                    break
        part_idx, part_w, offsets = split_rows(idx, ws, branch, fractions, receives)
        if n_nodes + n_b > feature.shape[0]:
            capacity = max(2 * feature.shape[0], n_nodes + n_b)
            ints = _grow_arrays(ints, capacity)
            floats = _grow_arrays(floats, capacity)
            (feature, kind, first_child, n_children, pool_offset, missing_branch, parent,
             depth) = ints[0], ints[1], ints[2], ints[3], ints[4], ints[5], ints[6], ints[7]
            threshold, impurity, weighted, fraction, improvement = (
                floats[0], floats[1], floats[2], floats[3], floats[4])
            n_samples = grown(n_samples, capacity)
            value = grown_rows(value, capacity)
        first = n_nodes
        for b in range(n_b):
            c = first + b
            feature[c], kind[c], first_child[c], n_children[c] = -1, LEAF, -1, 0
            pool_offset[c], missing_branch[c] = -1, MISSING_STOP
            parent[c], depth[c], fraction[c] = node, depth[node] + 1, fractions[b]
            threshold[c], impurity[c], weighted[c], improvement[c] = np.nan, 0.0, 0.0, 0.0
        n_nodes += n_b
        feature[node], kind[node], threshold[node] = j, test, t
        first_child[node], n_children[node] = first, n_b
        if test == MULTIWAY:
            pool_offset[node] = pool.shape[0]
            pool = np.concatenate((pool, categories))
        missing_branch[node] = MISSING_FRACTIONAL if fractional else MISSING_STOP
        improvement[node] = gain * weighted[node]
        child_available = available
        if test == MULTIWAY:
            child_available = available.copy()
            child_available[j] = False  # a multiway test uses its attribute up
        for b in range(n_b - 1, -1, -1):  # branch 0 grows first
            stack_node.append(first + b)
            stack_idx.append(part_idx[offsets[b]:offsets[b + 1]])
            stack_w.append(part_w[offsets[b]:offsets[b + 1]])
            stack_available.append(child_available)
            stack_parent.append(counts)
    n = n_nodes
    return (feature[:n], kind[:n], threshold[:n], first_child[:n], n_children[:n],
            pool_offset[:n], missing_branch[:n], parent[:n], depth[:n], impurity[:n],
            n_samples[:n], weighted[:n], fraction[:n], improvement[:n], value[:n], pool)
