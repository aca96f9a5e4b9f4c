"""The fast exact builder: CART on continuous columns without missing values, grown in numba.

Each feature is sorted once per fit. A node is a segment [start, end) of every feature's sorted
arrays: values, row ids, and the rows' targets (class code or y) and weights (unless all are 1),
kept beside the values because loading them by row id misses the cache (measured: 14.5 ns per
row at 10^6 rows against 3.3 ns in sorted order). Splitting a node partitions every feature's
segment stably into the left rows then the right rows, so each child's segment stays sorted and
no node sorts again.
A scan over a sorted segment updates the children's statistics in O(1) per row:
    Gini:     sum_k c_k^2 changes by 2 c_k w + w^2 when class k gains weight w
    entropy:  sum_k c_k log2 c_k changes only in class k
    squared error: running sums of w and w y
and the best threshold maximises the "proxy" (the part of the weighted impurity decrease that
depends on the threshold). Features are searched in parallel only for large nodes, where the
thread start-up pays for itself.

It grows exactly the tree the reference builder (``_builder``) grows for the same Policy; the
tests compare the two node by node.
"""

import numpy as np
from numba import njit, prange

from .._config import GINI, TIE_TOLERANCE
from .criteria import impurity
from .numeric import midpoint
from .radix import radix_argsort
from .surrogates import best_surrogate_threshold

PARALLEL_MIN_WORK = 20000  # rows x features below which a node is searched on one thread


@njit(cache=True, parallel=True)
def presort(X, yc, yr, w, unit):
    """Per feature: row ids in ascending order of value (stable), the sorted values, and beside
    them the rows' class codes (uint8) or targets, and weights (left empty when all are 1)."""
    n, d = X.shape
    order = np.empty((d, n), dtype=np.int32)
    values = np.empty((d, n), dtype=np.float64)
    codes = np.empty((d, n if yc.shape[0] > 0 else 0), dtype=np.uint8)
    targets = np.empty((d, n if yr.shape[0] > 0 else 0), dtype=np.float64)
    weights = np.empty((d, 0 if unit else n), dtype=np.float64)
    for j in prange(d):
        o = radix_argsort(X[:, j])
        for i in range(n):
            r = o[i]
            order[j, i] = r
            values[j, i] = X[r, j]
            if codes.shape[1] > 0:
                codes[j, i] = yc[r]
            if targets.shape[1] > 0:
                targets[j, i] = yr[r]
            if not unit:
                weights[j, i] = w[r]
    return order, values, codes, targets, weights


# ----------------------------------------------------------------------------- scans


@njit(cache=True)
def _xlogx(c):
    return c * np.log2(c) if c > 0.0 else 0.0


@njit(cache=True)
def _scan_binary_gini(vals, codes, ws, start, end, total, min_leaf, recip):
    """``_scan_class`` for two classes and Gini, with the class weights in registers: the general
    loop's per-row update of a counts array in memory is a dependency chain through the cache."""
    unit = ws.shape[0] == 0
    t0, t1 = total[0], total[1]
    w_all = t0 + t1
    n_all = end - start
    l0, l1 = 0.0, 0.0
    best, best_i = -np.inf, -1
    for i in range(start, end - 1):
        wr = 1.0 if unit else ws[i]
        if codes[i] == 0:
            l0 += wr
        else:
            l1 += wr
        if vals[i + 1] <= vals[i]:
            continue
        w_left = l0 + l1
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        r0, r1 = t0 - l0, t1 - l1
        if unit:
            n_left = i - start + 1
            proxy = (l0 * l0 + l1 * l1) * recip[n_left] + (r0 * r0 + r1 * r1) * recip[n_all - n_left]
        else:
            proxy = (l0 * l0 + l1 * l1) / w_left + (r0 * r0 + r1 * r1) / w_right
        if proxy > best + TIE_TOLERANCE * max(1.0, abs(best)) or best_i < 0:
            best, best_i = proxy, i
    return best, best_i


@njit(cache=True)
def _scan_class(vals, codes, ws, start, end, total, n_classes, criterion, min_leaf, recip):
    """Best boundary of one feature's sorted segment for classification.
    Returns (proxy, i): rows start..i go left; i = -1 if none is admissible.
    With unit weights ``ws`` is empty and ``recip`` (1/k for k = 0..n) turns the two divisions
    per candidate into table look-ups."""
    unit = ws.shape[0] == 0
    if n_classes == 2 and criterion == GINI:
        return _scan_binary_gini(vals, codes, ws, start, end, total, min_leaf, recip)
    left = np.zeros(n_classes)
    w_all = 0.0
    sq_all = 0.0
    ent_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
        sq_all += total[k] * total[k]
        ent_all += _xlogx(total[k])
    n_all = end - start
    w_left = 0.0
    sq_left = 0.0
    sq_right = sq_all
    ent_left = 0.0
    ent_right = ent_all
    best, best_i = -np.inf, -1
    gini = criterion == GINI
    for i in range(start, end - 1):
        k = codes[i]
        wr = 1.0 if unit else ws[i]
        lk = left[k]
        rk = total[k] - lk
        if gini:
            sq_left += 2.0 * lk * wr + wr * wr
            sq_right += -2.0 * rk * wr + wr * wr
        else:
            ent_left += _xlogx(lk + wr) - _xlogx(lk)
            ent_right += _xlogx(rk - wr) - _xlogx(rk)
        left[k] = lk + wr
        w_left += wr
        if vals[i + 1] <= vals[i]:
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        if gini:
            # W_l Gini_l + W_r Gini_r = W - (S_l / W_l + S_r / W_r): maximise the bracket
            if unit:
                n_left = i - start + 1
                proxy = sq_left * recip[n_left] + sq_right * recip[n_all - n_left]
            else:
                proxy = sq_left / w_left + sq_right / w_right
        else:
            # W_l Ent_l + W_r Ent_r = W_l log W_l + W_r log W_r - E_l - E_r: maximise the negative
            proxy = ent_left + ent_right - _xlogx(w_left) - _xlogx(w_right)
        if proxy > best + TIE_TOLERANCE * max(1.0, abs(best)) or best_i < 0:
            best, best_i = proxy, i
    return best, best_i


@njit(cache=True)
def _scan_regression(vals, ys, ws, start, end, min_leaf, recip):
    """Best boundary for squared error: maximise (sum_l wy)^2 / W_l + (sum_r wy)^2 / W_r."""
    unit = ws.shape[0] == 0
    w_all, s_all = 0.0, 0.0
    for i in range(start, end):
        wr = 1.0 if unit else ws[i]
        w_all += wr
        s_all += wr * ys[i]
    n_all = end - start
    w_left, s_left = 0.0, 0.0
    best, best_i = -np.inf, -1
    for i in range(start, end - 1):
        wr = 1.0 if unit else ws[i]
        w_left += wr
        s_left += wr * ys[i]
        if vals[i + 1] <= vals[i]:
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        s_right = s_all - s_left
        if unit:
            n_left = i - start + 1
            proxy = s_left * s_left * recip[n_left] + s_right * s_right * recip[n_all - n_left]
        else:
            proxy = s_left * s_left / w_left + s_right * s_right / w_right
        if best_i < 0 or proxy > best + TIE_TOLERANCE * max(1.0, abs(best)):
            best, best_i = proxy, i
    return best, best_i


@njit(cache=True)
def _search_one(j, values, codes, targets, weights, start, end, total, n_classes, criterion,
                min_leaf, regression, recip):
    ws = weights[j]  # empty when every weight is 1
    if regression:
        return _scan_regression(values[j], targets[j], ws, start, end, min_leaf, recip)
    return _scan_class(values[j], codes[j], ws, start, end, total, n_classes, criterion,
                       min_leaf, recip)


@njit(cache=True, parallel=True)
def _search_parallel(values, codes, targets, weights, start, end, total, n_classes, criterion,
                     min_leaf, regression, recip, proxies, positions):
    for j in prange(values.shape[0]):
        p, i = _search_one(j, values, codes, targets, weights, start, end, total, n_classes,
                           criterion, min_leaf, regression, recip)
        proxies[j] = p
        positions[j] = i


@njit(cache=True)
def _search(values, codes, targets, weights, start, end, total, n_classes, criterion, min_leaf,
            regression, recip, proxies, positions):
    d = values.shape[0]
    if (end - start) * d >= PARALLEL_MIN_WORK:
        _search_parallel(values, codes, targets, weights, start, end, total, n_classes,
                         criterion, min_leaf, regression, recip, proxies, positions)
    else:
        for j in range(d):
            p, i = _search_one(j, values, codes, targets, weights, start, end, total, n_classes,
                               criterion, min_leaf, regression, recip)
            proxies[j] = p
            positions[j] = i


# ----------------------------------------------------------------------------- partition


@njit(cache=True)
def _split_row(a, start, m, g, buf):
    """Stable partition of a[start:start+m] by the 0/1 flags g: flagged first. Branch-free (each
    element is written to both places and the counters advance by the flag) because left or
    right is close to random and a branch would be mispredicted half the time."""
    n_left = 0
    n_right = 0
    for i in range(m):
        x = a[start + i]
        a[start + n_left] = x  # n_left <= i: never overwrites an unread element
        buf[n_right] = x
        gi = g[i]
        n_left += gi
        n_right += 1 - gi
    for t in range(n_right):
        a[start + n_left + t] = buf[t]


@njit(cache=True)
def _partition_one(j, order, values, codes, targets, weights, start, end, goes_left, g, buf_rows,
                   buf_vals, buf_codes, buf_targets, buf_weights):
    """Stable partition of feature j's arrays over the segment: left rows first, each side
    still sorted."""
    m = end - start
    for i in range(m):
        g[i] = goes_left[order[j, start + i]]
    _split_row(order[j], start, m, g, buf_rows)
    _split_row(values[j], start, m, g, buf_vals)
    if codes.shape[1] > 0:
        _split_row(codes[j], start, m, g, buf_codes)
    if targets.shape[1] > 0:
        _split_row(targets[j], start, m, g, buf_targets)
    if weights.shape[1] > 0:
        _split_row(weights[j], start, m, g, buf_weights)


@njit(cache=True, parallel=True)
def _partition_parallel(order, values, codes, targets, weights, start, end, goes_left, skip):
    for j in prange(order.shape[0]):
        if j != skip:
            m = end - start
            _partition_one(j, order, values, codes, targets, weights, start, end, goes_left,
                           np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int32),
                           np.empty(m), np.empty(m, dtype=np.uint8), np.empty(m), np.empty(m))


@njit(cache=True)
def _partition(order, values, codes, targets, weights, start, end, goes_left, skip, buffers):
    d = order.shape[0]
    if (end - start) * d >= PARALLEL_MIN_WORK:
        _partition_parallel(order, values, codes, targets, weights, start, end, goes_left, skip)
    else:
        g, buf_rows, buf_vals, buf_codes, buf_targets, buf_weights = buffers
        for j in range(d):
            if j != skip:
                _partition_one(j, order, values, codes, targets, weights, start, end, goes_left,
                               g, buf_rows, buf_vals, buf_codes, buf_targets, buf_weights)


# ----------------------------------------------------------------------------- surrogates


@njit(cache=True)
def _surrogates_of(order, values, start, end, primary, goes_left, w, max_surrogates,
                   min_side, min_adjusted, out_feature, out_threshold, out_left, out_agree,
                   direction, ws, cand_agree, cand_t, cand_left):
    """Best threshold surrogate of every other feature (all values are known here), as
    ``_missing.find_surrogates`` chooses them: kept when the adjusted agreement exceeds
    ``min_adjusted``, ranked by agreement rounded to 12 digits, ties to the lower feature.
    Returns the count. ``direction`` and ``ws`` (n rows) and the ``cand_*`` arrays (d features)
    are scratch space owned by the caller: a fully grown tree has ~2n nodes, and allocating them
    at every node cost more than the search on small nodes."""
    d = order.shape[0]
    w0 = 0.0
    w1 = 0.0
    for i in range(start, end):
        r = order[primary, i]
        if goes_left[r]:
            w0 += w[r]
        else:
            w1 += w[r]
    total = w0 + w1
    if total <= 0.0 or max_surrogates <= 0:
        return 0
    majority = max(w0, w1) / total
    cand_agree[:] = -1.0
    for j in range(d):
        if j == primary:
            continue
        for i in range(start, end):
            r = order[j, i]
            direction[i - start] = 0 if goes_left[r] else 1
            ws[i - start] = w[r]
        m = end - start
        t, left, agree = best_surrogate_threshold(values[j, start:end], direction[:m], ws[:m],
                                                  min_side)
        if not np.isnan(t) and (agree / total - majority) / (1.0 - majority) > min_adjusted:
            cand_agree[j] = agree / total
            cand_t[j] = t
            cand_left[j] = left
    key = np.floor(cand_agree * 1e12 + 0.5)  # agreement to 12 digits, as the reference ranks them
    count = 0
    while count < max_surrogates:
        best_j = -1
        for j in range(d):
            if cand_agree[j] >= 0.0 and (best_j < 0 or key[j] > key[best_j]):
                best_j = j
        if best_j < 0:
            break
        out_feature[count] = best_j
        out_threshold[count] = cand_t[best_j]
        out_left[count] = cand_left[best_j]
        out_agree[count] = cand_agree[best_j]
        cand_agree[best_j] = -1.0
        count += 1
    return count


# ----------------------------------------------------------------------------- growth


@njit(cache=True)
def _double_int(a):
    out = np.empty(2 * a.shape[0], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _double_float(a):
    out = np.empty(2 * a.shape[0], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _double_rows(a):
    out = np.empty((2 * a.shape[0], a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _node_stats(j, codes, targets, weights, start, end, n_classes, criterion, regression):
    """(value, weight, impurity, pure) of the rows of a segment, read from feature j's arrays."""
    unit = weights.shape[1] == 0
    if regression:
        wsum, s = 0.0, 0.0
        for i in range(start, end):
            wi = 1.0 if unit else weights[j, i]
            wsum += wi
            s += wi * targets[j, i]
        mean = s / wsum
        sse = 0.0
        pure = True
        y0 = targets[j, start]
        for i in range(start, end):
            wi = 1.0 if unit else weights[j, i]
            sse += wi * (targets[j, i] - mean) ** 2
            if targets[j, i] != y0:
                pure = False
        value = np.empty(1)
        value[0] = mean
        return value, wsum, sse / wsum, pure
    counts = np.zeros(n_classes)
    for i in range(start, end):
        counts[codes[j, i]] += 1.0 if unit else weights[j, i]
    nonzero = 0
    for k in range(n_classes):
        if counts[k] > 0.0:
            nonzero += 1
    total = counts.sum()
    return counts, total, impurity(counts, criterion), nonzero <= 1


@njit(cache=True)
def grow(X, yc, yr, w, n_classes, criterion, regression, max_depth, min_samples_split, min_leaf,
         min_impurity_decrease, impurity_threshold, max_surrogates, min_side, min_adjusted):
    """Grow depth-first (branch 0 first); children of a node get consecutive ids. Returns the node
    arrays, the value array and the surrogate table (see ``rootwise._fast``)."""
    n, d = X.shape
    n_out = 1 if regression else n_classes
    total_w = w.sum()
    unit = True
    for r in range(n):
        if w[r] != 1.0:
            unit = False
            break
    order, values, codes, targets, weights = presort(X, yc, yr, w, unit)
    recip = np.empty(n + 1)
    recip[0] = 0.0
    for k in range(1, n + 1):
        recip[k] = 1.0 / k

    cap = 64
    feature = np.full(cap, -1, dtype=np.int32)
    threshold = np.full(cap, np.nan)
    first_child = np.full(cap, -1, dtype=np.int32)
    parent = np.full(cap, -1, dtype=np.int32)
    depth = np.zeros(cap, dtype=np.int32)
    impurity = np.zeros(cap)
    n_samples = np.zeros(cap, dtype=np.int64)
    wsum = np.zeros(cap)
    fraction = np.ones(cap)
    missing_branch = np.full(cap, -1, dtype=np.int32)
    improvement = np.zeros(cap)
    s_offset = np.full(cap, -1, dtype=np.int32)
    s_count = np.zeros(cap, dtype=np.int32)
    value = np.zeros((cap, n_out))
    s_cap = 64
    s_feature = np.empty(s_cap, dtype=np.int32)
    s_threshold = np.empty(s_cap)
    s_left = np.empty(s_cap, dtype=np.int8)
    s_agree = np.empty(s_cap)
    s_adj = np.empty(s_cap)
    n_sur = 0

    st_node = np.empty(64, dtype=np.int64)
    st_start = np.empty(64, dtype=np.int64)
    st_end = np.empty(64, dtype=np.int64)
    top = 0
    st_node[0], st_start[0], st_end[0] = 0, 0, n
    top = 1
    count = 1

    goes_left = np.zeros(n, dtype=np.uint8)
    buffers = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int32), np.empty(n),
               np.empty(n, dtype=np.uint8), np.empty(n), np.empty(n))
    proxies = np.empty(d)
    positions = np.empty(d, dtype=np.int64)
    sf = np.empty(max(max_surrogates, 1), dtype=np.int64)
    sthr = np.empty(max(max_surrogates, 1))
    sl = np.empty(max(max_surrogates, 1), dtype=np.int64)
    sa = np.empty(max(max_surrogates, 1))
    s_dir = np.empty(n, dtype=np.int64)
    s_ws = np.empty(n)
    c_agree = np.empty(d)
    c_t = np.empty(d)
    c_left = np.empty(d, dtype=np.int64)

    while top > 0:
        top -= 1
        node, start, end = st_node[top], st_start[top], st_end[top]
        val, W, imp, pure = _node_stats(0, codes, targets, weights, start, end, n_classes,
                                        criterion, regression)
        value[node] = val
        wsum[node] = W
        impurity[node] = imp
        n_samples[node] = end - start
        if pure or depth[node] >= max_depth or W < min_samples_split or imp < impurity_threshold:
            continue
        _search(values, codes, targets, weights, start, end, val, n_classes, criterion, min_leaf,
                regression, recip, proxies, positions)
        best_j = -1
        best = -np.inf
        for j in range(d):
            if positions[j] >= 0 and proxies[j] > best:
                best = proxies[j]
        if best == -np.inf:
            continue
        # ties: the lowest feature whose gain (proxy / W + constant) is within tolerance of the best
        for j in range(d):
            if positions[j] >= 0 and proxies[j] / W >= best / W - TIE_TOLERANCE:
                best_j = j
                break
        i_best = positions[best_j]
        # the exact decrease, from the children's statistics
        _, lw, limp, _ = _node_stats(best_j, codes, targets, weights, start, i_best + 1,
                                     n_classes, criterion, regression)
        _, rw, rimp, _ = _node_stats(best_j, codes, targets, weights, i_best + 1, end, n_classes,
                                     criterion, regression)
        gain = imp - (lw / W) * limp - (rw / W) * rimp
        if gain < 0.0:
            gain = 0.0
        if gain * W / total_w < min_impurity_decrease:
            continue
        for i in range(start, end):
            goes_left[order[best_j, i]] = 1 if i <= i_best else 0
        if max_surrogates > 0:
            m = _surrogates_of(order, values, start, end, best_j, goes_left, w, max_surrogates,
                               min_side, min_adjusted, sf, sthr, sl, sa, s_dir, s_ws, c_agree,
                               c_t, c_left)
            if m > 0:
                while n_sur + m > s_cap:
                    s_feature = _double_int(s_feature)
                    s_threshold = _double_float(s_threshold)
                    s_left = _double_int(s_left)
                    s_agree = _double_float(s_agree)
                    s_adj = _double_float(s_adj)
                    s_cap *= 2
                majority = max(lw, rw) / (lw + rw)
                s_offset[node] = n_sur
                s_count[node] = m
                for t in range(m):
                    s_feature[n_sur + t] = sf[t]
                    s_threshold[n_sur + t] = sthr[t]
                    s_left[n_sur + t] = sl[t]
                    s_agree[n_sur + t] = sa[t]
                    s_adj[n_sur + t] = (sa[t] - majority) / (1.0 - majority)
                n_sur += m
        _partition(order, values, codes, targets, weights, start, end, goes_left, best_j,
                   buffers)
        while count + 2 > feature.shape[0]:
            feature = _double_int(feature)
            threshold = _double_float(threshold)
            first_child = _double_int(first_child)
            parent = _double_int(parent)
            depth = _double_int(depth)
            impurity = _double_float(impurity)
            n_samples = _double_int(n_samples)
            wsum = _double_float(wsum)
            fraction = _double_float(fraction)
            missing_branch = _double_int(missing_branch)
            improvement = _double_float(improvement)
            s_offset = _double_int(s_offset)
            s_count = _double_int(s_count)
            value = _double_rows(value)
        left_id = count
        count += 2
        feature[node] = best_j
        threshold[node] = midpoint(values[best_j, i_best], values[best_j, i_best + 1])
        first_child[node] = left_id
        # a row missing the primary and every surrogate goes to the heavier child; on a tie it
        # stays here (-1), as the reference's larger_child decides
        if abs(lw - rw) <= TIE_TOLERANCE * max(1.0, max(lw, rw)):
            missing_branch[node] = -1
        else:
            missing_branch[node] = 0 if lw > rw else 1
        improvement[node] = gain * W
        for c in range(2):
            cid = left_id + c
            feature[cid] = -1
            threshold[cid] = np.nan
            first_child[cid] = -1
            parent[cid] = node
            depth[cid] = depth[node] + 1
            missing_branch[cid] = -1
            improvement[cid] = 0.0
            s_offset[cid] = -1
            s_count[cid] = 0
            fraction[cid] = (lw if c == 0 else rw) / W
        if top + 2 > st_node.shape[0]:
            st_node = _double_int(st_node)
            st_start = _double_int(st_start)
            st_end = _double_int(st_end)
        # right pushed first, so the left child (branch 0) grows first
        st_node[top], st_start[top], st_end[top] = left_id + 1, i_best + 1, end
        st_node[top + 1], st_start[top + 1], st_end[top + 1] = left_id, start, i_best + 1
        top += 2
    return (feature[:count], threshold[:count], first_child[:count], parent[:count],
            depth[:count], impurity[:count], n_samples[:count], wsum[:count], fraction[:count],
            missing_branch[:count], improvement[:count], s_offset[:count], s_count[:count],
            value[:count],
            s_feature[:n_sur], s_threshold[:n_sur], s_left[:n_sur], s_agree[:n_sur],
            s_adj[:n_sur])
