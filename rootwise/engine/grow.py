"""The fast exact builder: CART on continuous columns without missing values, grown in numba.

Each feature is sorted once per fit. A node is a segment [start, end) of every feature's sorted
array of 64-bit words, one per row, packing
    bits 0-31   the row id,
    bits 32-39  the row's class code (classification),
    bit 40      "same value as the element before it in this order" (the tie flag),
and nothing else per row: the targets (regression) and weights are read by row id. Co-sorting
them beside the words would make their loads sequential, but doubles the fit's memory and every
partition would move them too; measured on 10^6 x 20 fully grown regression, loading by row id
was the faster of the two (the scan's loads are independent, so their misses overlap). A scan
only needs to know where the value changes, and the threshold, a midpoint of two real values, is
read from X once per split, so the sorted values themselves are not kept: one word moves per row.
Splitting a node partitions every feature's segment stably into the left rows then the right
rows, so each child's segment stays sorted and no node sorts again. Two rows that become
neighbours in a child have equal values exactly when every row between them in the parent tied
with its predecessor, so the partition carries the tie flags along with an AND per side. The same
pass finds the feature's best surrogate split, since it reads each row's direction anyway.
A scan over a sorted segment updates the children's statistics in O(1) per row:
    Gini:     sum_k c_k^2 changes by 2 c_k w + w^2 when class k gains weight w
    entropy:  sum_k c_k log2 c_k changes only in class k
    squared error: running sums of w and w y
and the best threshold maximises the "proxy" (the part of the weighted impurity decrease that
depends on the threshold). With unit weights the counts are integers, kept as int64: an integer
add is one cycle where a float add is four, and the loop is a chain of such adds; the sums are
exact either way, so the proxies are the same numbers. Features are searched and partitioned in
parallel only for large nodes, where the thread start-up pays for itself.

It grows exactly the tree the reference builder (``reference.builder``) grows for the same Policy; the
tests compare the two node by node.
"""

import numba
import numpy as np
from numba import njit, prange

from .._config import GINI, TIE_TOLERANCE
from .arrays import grown, grown_rows, reserved_nodes, trimmed
from .arrays import total as _total
from .criteria import impurity
from .numeric import midpoint
from .radix import radix_argsort_keys

PARALLEL_MIN_WORK = 20000  # rows x features below which a node is searched on one thread


ROW_MASK = 0xFFFFFFFF
CODE_SHIFT = 32
TIE_SHIFT = 40
TIE_BIT = 1 << TIE_SHIFT


@njit(cache=True)
def _presort_one(j, X, yc, words):
    """Feature j's rows in ascending order of value (stable) as packed words (row id, class code,
    tie flag), into words[j]."""
    n = X.shape[0]
    has_codes = yc.shape[0] > 0
    o, keys = radix_argsort_keys(X[:, j])
    for i in range(n):
        r = o[i]
        word = np.int64(r)
        if has_codes:
            word |= np.int64(yc[r]) << CODE_SHIFT
        # equal keys are equal values (-0.0 and 0.0 included), read in sorted order
        if i > 0 and keys[i] == keys[i - 1]:
            word |= TIE_BIT
        words[j, i] = word


@njit(cache=True, parallel=True)
def _presort_parallel(X, yc, words):
    for jj in prange(X.shape[1]):
        _presort_one(np.int64(jj), X, yc, words)


@njit(cache=True)
def presort(X, yc, n_threads):
    """Per feature, the rows in ascending order of value (stable) as packed words (row id, class
    code, tie flag). Features on numba's threads only for large inputs: a parallel region on a
    small one costs more CPU (the threads' start and spin-wait) than the sort. ``n_threads``
    None: one thread (see ``grow``)."""
    n, d = X.shape
    words = np.empty((d, n), dtype=np.int64)
    if n_threads is not None and n_threads > 1 and n * d >= PARALLEL_MIN_WORK:
        _presort_parallel(X, yc, words)
    else:
        for j in range(d):
            _presort_one(np.int64(j), X, yc, words)
    return words


# ----------------------------------------------------------------------------- scans


@njit(cache=True)
def _xlogx(c):
    return c * np.log2(c) if c > 0.0 else 0.0


@njit(cache=True)
def _bar(best):
    """What a later candidate must exceed to replace ``best``: ties within rounding keep the first."""
    return best + TIE_TOLERANCE * max(1.0, abs(best))


@njit(cache=True)
def _code(word):
    return (word >> CODE_SHIFT) & 0xFF


@njit(cache=True)
def _tied(word):
    """Whether this row's value equals the previous row's in the segment's order."""
    return (word >> TIE_SHIFT) & 1


@njit(cache=True)
def _scan_binary_gini_unit(words, j, start, end, total, min_leaf, recip):
    """``_scan_class_unit`` for two classes and Gini, the counts in registers and updated without
    a branch (the class of the next row is close to random, a branch would be mispredicted)."""
    t0, t1 = np.int64(total[0]), np.int64(total[1])
    n_all = end - start
    l0, l1 = np.int64(0), np.int64(0)
    best, best_i, bar = -np.inf, -1, -np.inf
    for i in range(start, end - 1):
        c = _code(words[j, i])
        l1 += c
        l0 += 1 - c
        if _tied(words[j, i + 1]):
            continue
        n_left = i - start + 1
        if n_left < min_leaf or n_all - n_left < min_leaf:
            continue
        r0, r1 = t0 - l0, t1 - l1
        proxy = (l0 * l0 + l1 * l1) * recip[n_left] + (r0 * r0 + r1 * r1) * recip[n_all - n_left]
        if proxy > bar:
            best, best_i, bar = proxy, i, _bar(proxy)
    return best, best_i


@njit(cache=True)
def _scan_class_unit(words, j, start, end, total, n_classes, criterion, min_leaf, recip,
                     xlogx_table, left):
    """Best boundary of one feature's sorted segment for classification, every weight 1.
    Returns (proxy, i): rows start..i go left; i = -1 if none is admissible. ``recip`` holds 1/k
    and ``xlogx_table`` k log2 k for k = 0..n (table look-ups instead of divisions and logs);
    ``left`` is int64 scratch of n_classes."""
    if n_classes == 2 and criterion == GINI:
        return _scan_binary_gini_unit(words, j, start, end, total, min_leaf, recip)
    gini = criterion == GINI
    sq_all = np.int64(0)
    ent_all = 0.0
    for k in range(n_classes):
        c = np.int64(total[k])
        left[k] = 0
        sq_all += c * c
        if not gini:
            ent_all += xlogx_table[c]
    n_all = end - start
    sq_left, sq_right = np.int64(0), sq_all
    ent_left, ent_right = 0.0, ent_all
    best, best_i, bar = -np.inf, -1, -np.inf
    for i in range(start, end - 1):
        k = _code(words[j, i])
        lk = left[k]
        rk = np.int64(total[k]) - lk
        if gini:
            sq_left += 2 * lk + 1
            sq_right -= 2 * rk - 1
        else:
            ent_left += xlogx_table[lk + 1] - xlogx_table[lk]
            ent_right += xlogx_table[rk - 1] - xlogx_table[rk]
        left[k] = lk + 1
        if _tied(words[j, i + 1]):
            continue
        n_left = i - start + 1
        n_right = n_all - n_left
        if n_left < min_leaf or n_right < min_leaf:
            continue
        if gini:
            # W_l Gini_l + W_r Gini_r = W - (S_l / W_l + S_r / W_r): maximise the bracket
            proxy = sq_left * recip[n_left] + sq_right * recip[n_right]
        else:
            # W_l Ent_l + W_r Ent_r = W_l log W_l + W_r log W_r - E_l - E_r: maximise the negative
            proxy = ent_left + ent_right - xlogx_table[n_left] - xlogx_table[n_right]
        if proxy > bar:
            best, best_i, bar = proxy, i, _bar(proxy)
    return best, best_i


@njit(cache=True)
def _scan_class_weighted(words, j, ws, start, end, total, n_classes, criterion, min_leaf, left):
    """``_scan_class_unit`` with sample weights: the same updates in floats."""
    left[:] = 0.0
    w_all = 0.0
    sq_all = 0.0
    ent_all = 0.0
    for k in range(n_classes):
        w_all += total[k]
        sq_all += total[k] * total[k]
        ent_all += _xlogx(total[k])
    w_left = 0.0
    sq_left = 0.0
    sq_right = sq_all
    ent_left = 0.0
    ent_right = ent_all
    best, best_i, bar = -np.inf, -1, -np.inf
    gini = criterion == GINI
    for i in range(start, end - 1):
        k = _code(words[j, i])
        wr = ws[words[j, i] & ROW_MASK]
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
        if _tied(words[j, i + 1]):
            continue
        w_right = w_all - w_left
        if w_left < min_leaf or w_right < min_leaf or w_left <= 0.0 or w_right <= 0.0:
            continue
        if gini:
            proxy = sq_left / w_left + sq_right / w_right
        else:
            proxy = ent_left + ent_right - _xlogx(w_left) - _xlogx(w_right)
        if proxy > bar:
            best, best_i, bar = proxy, i, _bar(proxy)
    return best, best_i


@njit(cache=True)
def _scan_regression(words, j, ys, ws, start, end, min_leaf, recip):
    """Best boundary for squared error: maximise (sum_l wy)^2 / W_l + (sum_r wy)^2 / W_r."""
    unit = ws.shape[0] == 0
    w_all, s_all = 0.0, 0.0
    for i in range(start, end):
        r = words[j, i] & ROW_MASK
        wr = 1.0 if unit else ws[r]
        w_all += wr
        s_all += wr * ys[r]
    n_all = end - start
    w_left, s_left = 0.0, 0.0
    best, best_i, bar = -np.inf, -1, -np.inf
    for i in range(start, end - 1):
        r = words[j, i] & ROW_MASK
        wr = 1.0 if unit else ws[r]
        w_left += wr
        s_left += wr * ys[r]
        if _tied(words[j, i + 1]):
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
        if proxy > bar:
            best, best_i, bar = proxy, i, _bar(proxy)
    return best, best_i


@njit(cache=True)
def _search_features(j0, j1, words, ys, ws, start, end, total, n_classes, criterion, min_leaf,
                     regression, recip, xlogx_table, left_int, left_float, proxies, positions):
    """Best boundary of features j0..j1-1 into proxies[j], positions[j]; ``ys``, ``ws``: targets
    and weights by row id (ws empty when every weight is 1). A range rather than one feature per
    call: numba adjusts the reference count of every array argument at each call, atomically,
    and a fully grown tree has about one node per row, each searching every feature."""
    for j in range(j0, j1):
        if regression:
            p, i = _scan_regression(words, j, ys, ws, start, end, min_leaf, recip)
        elif ws.shape[0] == 0:
            p, i = _scan_class_unit(words, j, start, end, total, n_classes, criterion, min_leaf,
                                    recip, xlogx_table, left_int)
        else:
            p, i = _scan_class_weighted(words, j, ws, start, end, total, n_classes, criterion,
                                        min_leaf, left_float)
        proxies[j] = p
        positions[j] = i


@njit(cache=True, parallel=True)
def _search_parallel(words, ys, ws, start, end, total, n_classes, criterion, min_leaf,
                     regression, recip, xlogx_table, proxies, positions):
    for jj in prange(words.shape[0]):
        j = np.int64(jj)  # prange counts in uint64: one compiled _search_features, not two
        _search_features(j, j + 1, words, ys, ws, start, end, total, n_classes, criterion,
                         min_leaf, regression, recip, xlogx_table,
                         np.empty(n_classes, dtype=np.int64), np.empty(n_classes), proxies,
                         positions)


@njit(cache=True)
def _search(words, ys, ws, start, end, total, n_classes, criterion, min_leaf,
            regression, recip, xlogx_table, proxies, positions, left_int, left_float, n_threads):
    d = words.shape[0]
    if n_threads is not None and n_threads > 1 and (end - start) * d >= PARALLEL_MIN_WORK:
        _search_parallel(words, ys, ws, start, end, total, n_classes, criterion,
                         min_leaf, regression, recip, xlogx_table, proxies, positions)
    else:
        _search_features(np.int64(0), np.int64(d), words, ys, ws, start, end, total, n_classes,
                         criterion, min_leaf, regression, recip, xlogx_table, left_int,
                         left_float, proxies, positions)


# ----------------------------------------------------------------------------- partition + surrogates


@njit(cache=True)
def _partition_features(j0, j1, skip, X, words, ws, start, end, goes_left, buffers, b, move,
                        surrogate, min_side, w_dir0, w_dir1, cand_agree, cand_t, cand_left):
    """For each feature j in j0..j1-1 but ``skip``: stable partition of its words over the
    segment, left rows first, each side still sorted (``ws``: weights by row id, empty when all
    are 1); written branch-free (every element goes to both places and the counters advance by
    the flag) because left or right is close to random and a branch would be mispredicted half
    the time. A row's tie flag in its child is the AND of the flags from its side's previous row
    up to it.

    When ``surrogate``, the same pass finds feature j's best threshold surrogate as
    ``surrogates.best_surrogate_threshold`` does (every value is known here): a cut between two
    distinct values with at least ``min_side`` rows each way, agreement = weight sent the
    primary's way, strictly above the majority ``max(w_dir0, w_dir1)``, the lowest cut on ties.
    It leaves (agreement, threshold, left branch) in cand_*[j], agreement -1 if none.
    ``move`` False: only the surrogate search (neither child will be split, so their segments
    are never read again). ``buffers[b]`` is the scratch row for the right side. (A range of
    features per call, 2-D arrays and indices rather than row views: numba adjusts the reference
    count of every array argument and view atomically, at each call.)"""
    unit = ws.shape[0] == 0  # ws: weights by row id
    for j in range(j0, j1):
        if j == skip:
            continue
        best = max(w_dir0, w_dir1)
        bar = _bar(best)  # what an agreement must exceed (``_beats``), updated with best
        best_lo, best_hi, best_left = -1, -1, 0
        # a cut before row i leaves i - start rows below and end - i above: both >= min_side
        first_cut, last_cut = start + max(min_side, 1), end - min_side
        below0, below1 = 0.0, 0.0  # weight so far of rows the primary sends left / right
        prev_row = -1
        n_left = 0
        n_right = 0
        tie_left = np.int64(1)  # every row since the left side's last one tied with the one before
        tie_right = np.int64(1)
        untie = ~np.int64(TIE_BIT)
        for i in range(start, end):
            word = words[j, i]
            r = word & ROW_MASK
            tied = _tied(word)
            g = np.int64(goes_left[r])
            wr = 1.0 if unit else ws[r]
            if surrogate:
                if not tied and i >= first_cut and i <= last_cut:
                    agree_0 = below0 + (w_dir1 - below1)  # x <= t -> branch 0
                    agree_1 = below1 + (w_dir0 - below0)  # x <= t -> branch 1
                    if agree_0 > bar:
                        best, best_lo, best_hi, best_left = agree_0, prev_row, r, 0
                        bar = _bar(best)
                    elif agree_1 > bar:
                        best, best_lo, best_hi, best_left = agree_1, prev_row, r, 1
                        bar = _bar(best)
                below0 += wr * g
                below1 += wr * (1 - g)
                prev_row = r
            if not move:
                continue
            tie_left &= tied
            tie_right &= tied
            moved = (word & untie) | (((tie_left & g) | (tie_right & (1 - g))) << TIE_SHIFT)
            tie_left |= g
            tie_right |= 1 - g
            # left rows written in place: n_left <= i - start, so no unread element is overwritten
            p = start + n_left
            words[j, p] = moved
            buffers[b, n_right] = moved
            n_left += g
            n_right += 1 - g
        if move:
            # plain loops: a slice assignment costs more than the copy on the many small nodes
            p = start + n_left
            for t in range(n_right):
                words[j, p + t] = buffers[b, t]
        if surrogate:
            cand_agree[j] = -1.0
            if best_lo >= 0:
                cand_agree[j] = best
                cand_t[j] = midpoint(X[best_lo, j], X[best_hi, j])
                cand_left[j] = best_left


@njit(cache=True, parallel=True)
def _partition_parallel(X, words, ws, start, end, goes_left, skip, thread_buffers, move,
                        surrogate, min_side, w_dir0, w_dir1, cand_agree, cand_t, cand_left):
    """Features on numba's threads, each thread with its own scratch row of ``thread_buffers``
    (allocated once per fit: fresh large arrays per node cost page faults)."""
    for jj in prange(words.shape[0]):
        j = np.int64(jj)  # prange counts in uint64: one compiled _partition_features, not two
        t = np.int64(numba.get_thread_id())
        if t < thread_buffers.shape[0]:
            _partition_features(j, j + 1, skip, X, words, ws, start, end, goes_left,
                                thread_buffers, t, move, surrogate, min_side, w_dir0, w_dir1,
                                cand_agree, cand_t, cand_left)
        else:  # a threading layer numbering its threads beyond the count: own scratch
            own = np.empty((1, end - start), dtype=np.int64)
            _partition_features(j, j + 1, skip, X, words, ws, start, end, goes_left, own,
                                np.int64(0), move, surrogate, min_side, w_dir0, w_dir1,
                                cand_agree, cand_t, cand_left)


@njit(cache=True)
def _partition(X, words, ws, start, end, goes_left, skip, thread_buffers, move, surrogate,
               min_side, w_dir0, w_dir1, cand_agree, cand_t, cand_left, n_threads):
    d = words.shape[0]
    if n_threads is not None and n_threads > 1 and (end - start) * d >= PARALLEL_MIN_WORK:
        _partition_parallel(X, words, ws, start, end, goes_left, skip, thread_buffers, move,
                            surrogate, min_side, w_dir0, w_dir1, cand_agree, cand_t, cand_left)
    else:
        _partition_features(np.int64(0), np.int64(d), skip, X, words, ws, start, end, goes_left,
                            thread_buffers, np.int64(0), move, surrogate, min_side, w_dir0,
                            w_dir1, cand_agree, cand_t, cand_left)


@njit(cache=True)
def _rank_surrogates(primary, total, majority, max_surrogates, min_adjusted, cand_agree, cand_t,
                     cand_left, out_feature, out_threshold, out_left, out_agree):
    """Keep the candidates whose adjusted agreement exceeds ``min_adjusted`` and rank them as
    ``reference.missing.find_surrogates`` does: by agreement rounded to 12 digits, ties to the lower
    feature. Returns the count written to out_*."""
    d = cand_agree.shape[0]
    cand_agree[primary] = -1.0
    for j in range(d):
        if cand_agree[j] >= 0.0:
            a = cand_agree[j] / total
            if (a - majority) / (1.0 - majority) > min_adjusted:
                cand_agree[j] = a
            else:
                cand_agree[j] = -1.0
    count = 0
    while count < max_surrogates:
        best_j = -1
        best_key = 0.0
        for j in range(d):
            if cand_agree[j] >= 0.0:
                key = np.floor(cand_agree[j] * 1e12 + 0.5)
                if best_j < 0 or key > best_key:
                    best_j, best_key = j, key
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
def _segment_stats(j, words, ys, ws, start, end, n_classes, criterion, regression, out):
    """Statistics of the rows of a segment, read from feature j's words (targets ``ys`` and
    weights ``ws`` by row id, ws empty when every weight is 1): writes the node's value (class
    weights, or the mean) into ``out`` and returns (weight, impurity, pure)."""
    unit = ws.shape[0] == 0
    if regression:
        wsum, s = 0.0, 0.0
        for i in range(start, end):
            r = words[j, i] & ROW_MASK
            wi = 1.0 if unit else ws[r]
            wsum += wi
            s += wi * ys[r]
        mean = s / wsum
        sse = 0.0
        pure = True
        y0 = ys[words[j, start] & ROW_MASK]
        for i in range(start, end):
            r = words[j, i] & ROW_MASK
            wi = 1.0 if unit else ws[r]
            sse += wi * (ys[r] - mean) ** 2
            if ys[r] != y0:
                pure = False
        out[0] = mean
        return wsum, sse / wsum, pure
    out[:] = 0.0
    for i in range(start, end):
        word = words[j, i]
        out[_code(word)] += 1.0 if unit else ws[word & ROW_MASK]
    nonzero = 0
    for k in range(n_classes):
        if out[k] > 0.0:
            nonzero += 1
    return _total(out), impurity(out, criterion), nonzero <= 1


@njit(cache=True)
def _derived(first_child, impurity, wsum, s_offset, s_count, s_agree):
    """The node fields that follow from a grown binary tree (children of P at first_child[P] and
    first_child[P] + 1, created after P): for split node P with children L, R of weights w_L, w_R
        branch_fraction[L] = w_L / w_P,   depth[L] = depth[P] + 1,
        improvement[P] = w_P max(0, I_P - (w_L / w_P) I_L - (w_R / w_P) I_R),
        missing_branch[P] = the heavier child (-1 on a tie within TIE_TOLERANCE),
    and each surrogate's adjusted agreement (a - m) / (1 - m), m = max(w_L, w_R) / (w_L + w_R).
    Returns (parent, depth, branch_fraction, missing_branch, improvement, adjusted)."""
    n = first_child.shape[0]
    parent = np.full(n, -1, dtype=np.int32)
    depth = np.zeros(n, dtype=np.int32)
    fraction = np.ones(n)
    missing_branch = np.full(n, -1, dtype=np.int32)
    improvement = np.zeros(n)
    adjusted = np.empty(s_agree.shape[0])
    for node in range(n):
        left = first_child[node]
        if left < 0:
            continue
        W, lw, rw = wsum[node], wsum[left], wsum[left + 1]
        for c in range(2):
            parent[left + c] = node
            depth[left + c] = depth[node] + 1
        fraction[left], fraction[left + 1] = lw / W, rw / W
        # a row missing the primary and every surrogate goes to the heavier child; on a tie it
        # stays here (-1), as the reference's larger_child decides
        if abs(lw - rw) > TIE_TOLERANCE * max(1.0, max(lw, rw)):
            missing_branch[node] = 0 if lw > rw else 1
        gain = impurity[node] - (lw / W) * impurity[left] - (rw / W) * impurity[left + 1]
        if gain < 0.0:
            gain = 0.0
        improvement[node] = gain * W
        majority = max(lw, rw) / (lw + rw)
        for t in range(s_offset[node], s_offset[node] + s_count[node]):
            adjusted[t] = (s_agree[t] - majority) / (1.0 - majority)
    return parent, depth, fraction, missing_branch, improvement, adjusted


@njit(cache=True)
def grow(X, yc, yr, w, n_classes, criterion, regression, max_depth, min_samples_split, min_leaf,
         min_impurity_decrease, impurity_threshold, max_surrogates, min_side, min_adjusted,
         n_threads, reserve_bytes):
    """Grow depth-first (branch 0 first); children of a node get consecutive ids. Returns the node
    arrays, the value array and the surrogate table (see ``engine.exact``). ``n_threads``:
    numba's current thread count (big nodes are searched and partitioned on that many threads),
    or None for one thread: numba then prunes every ``n_threads is not None`` branch, so that
    specialisation neither compiles nor loads the parallel kernels (a small fit's).

    A node's statistics are computed when its parent splits (from the chosen feature's segments,
    which the exact decrease needs anyway), and a child that will not be split is never pushed:
    when neither child is split again the parent's partition is skipped."""
    n, d = X.shape
    n_out = 1 if regression else n_classes
    total_w = _total(w)  # loops, not numba's sum or slice copies: see ``arrays``
    unit = True
    for r in range(n):
        if w[r] != 1.0:
            unit = False
            break
    words = presort(X, yc, n_threads)
    # targets and weights are read by row id (``ws`` empty when every weight is 1): co-sorting
    # them beside the words doubled the fit's memory and made every partition move them too
    ys = yr
    ws = np.empty(0) if unit else w
    recip = np.empty(n + 1)
    recip[0] = 0.0
    for k in range(1, n + 1):
        recip[k] = 1.0 / k
    # k log2 k for the unit-weight entropy scan; not needed (left empty) otherwise
    xlogx_table = np.zeros(n + 1 if (unit and not regression and criterion != GINI) else 0)
    for k in range(1, xlogx_table.shape[0]):
        xlogx_table[k] = _xlogx(float(k))

    # reserved, not grown: pages that no node reaches are never resident (``reserved_nodes``);
    # np.empty because every field is written when its node is created
    # Only what the growth decides is kept per node; what follows from it (parents, depths,
    # branch fractions, improvements, missing-value branches, adjusted agreements) is derived
    # afterwards (``_derived``), once the sorted words are freed: the arrays of a fully grown tree
    # (two nodes per row) would otherwise sit beside them at the fit's peak.
    cap = reserved_nodes(n, max_depth, 48 + 8 * n_out, reserve_bytes)
    feature = np.empty(cap, dtype=np.int32)
    threshold = np.empty(cap)
    first_child = np.empty(cap, dtype=np.int32)
    impurity = np.empty(cap)
    n_samples = np.empty(cap, dtype=np.int64)
    wsum = np.empty(cap)
    s_offset = np.empty(cap, dtype=np.int32)
    s_count = np.empty(cap, dtype=np.int32)
    value = np.empty((cap, n_out))
    # at most max_surrogates per split node, and a tree of cap nodes has (cap - 1) / 2 of them
    s_cap = max(1, min(max_surrogates * (cap // 2), reserve_bytes // 21))
    s_feature = np.empty(s_cap, dtype=np.int32)
    s_threshold = np.empty(s_cap)
    s_left = np.empty(s_cap, dtype=np.int8)
    s_agree = np.empty(s_cap)
    n_sur = 0

    goes_left = np.zeros(n, dtype=np.uint8)
    # partition scratch, one row per thread numba runs (get_thread_id is below this count)
    n_rows = np.int64(1)
    if n_threads is not None:
        n_rows = np.int64(n_threads)
    buffers = np.empty((n_rows, n), dtype=np.int64)
    proxies = np.empty(d)
    positions = np.empty(d, dtype=np.int64)
    left_int = np.empty(max(n_classes, 1), dtype=np.int64)
    left_float = np.empty(max(n_classes, 1))
    sf = np.empty(max(max_surrogates, 1), dtype=np.int64)
    sthr = np.empty(max(max_surrogates, 1))
    sl = np.empty(max(max_surrogates, 1), dtype=np.int64)
    sa = np.empty(max(max_surrogates, 1))
    c_agree = np.empty(d)
    c_t = np.empty(d)
    c_left = np.empty(d, dtype=np.int64)
    child_value = np.empty((2, n_out))
    child_w = np.empty(2)
    child_imp = np.empty(2)
    child_split = np.zeros(2, dtype=np.bool_)

    # np.int64(0), not 0: a literal start compiled a second _segment_stats
    W0, imp0, pure0 = _segment_stats(np.int64(0), words, ys, ws, np.int64(0), n, n_classes,
                                     criterion, regression, value[0])
    wsum[0], impurity[0], n_samples[0] = W0, imp0, n
    feature[0], threshold[0], first_child[0], s_offset[0], s_count[0] = -1, np.nan, -1, -1, 0
    st_node = np.empty(64, dtype=np.int64)
    st_start = np.empty(64, dtype=np.int64)
    st_end = np.empty(64, dtype=np.int64)
    st_depth = np.empty(64, dtype=np.int64)
    top = 0
    if not (pure0 or max_depth <= 0 or W0 < min_samples_split or imp0 < impurity_threshold):
        st_node[0], st_start[0], st_end[0], st_depth[0] = 0, 0, n, 0
        top = 1
    count = 1

    while top > 0:
        top -= 1
        node, start, end, node_depth = st_node[top], st_start[top], st_end[top], st_depth[top]
        W, imp = wsum[node], impurity[node]
        _search(words, ys, ws, start, end, value[node], n_classes, criterion, min_leaf,
                regression, recip, xlogx_table, proxies, positions, left_int, left_float,
                n_threads)
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
        # the children's statistics, and from them the exact decrease
        for c in range(2):
            lo, hi = (start, i_best + 1) if c == 0 else (i_best + 1, end)
            cw, cimp, cpure = _segment_stats(best_j, words, ys, ws, lo, hi, n_classes,
                                             criterion, regression, child_value[c])
            child_w[c], child_imp[c] = cw, cimp
            child_split[c] = not (cpure or node_depth + 1 >= max_depth
                                  or cw < min_samples_split or cimp < impurity_threshold)
        lw, rw = child_w[0], child_w[1]
        gain = imp - (lw / W) * child_imp[0] - (rw / W) * child_imp[1]
        if gain < 0.0:
            gain = 0.0
        if gain * W / total_w < min_impurity_decrease:
            continue
        # each row's side, and the weight going each way summed in the primary's order (the
        # order the reference sums it in)
        w0, w1 = 0.0, 0.0
        for i in range(start, end):
            r = words[best_j, i] & ROW_MASK
            g = 1 if i <= i_best else 0
            goes_left[r] = g
            if g:
                w0 += w[r]
            else:
                w1 += w[r]
        # a surrogate needs min_side rows on each side
        surrogate = max_surrogates > 0 and w0 + w1 > 0.0 and end - start >= 2 * min_side
        move = child_split[0] or child_split[1]
        threshold[node] = midpoint(X[words[best_j, i_best] & ROW_MASK, best_j],
                                   X[words[best_j, i_best + 1] & ROW_MASK, best_j])
        if move or surrogate:
            _partition(X, words, ws, start, end, goes_left, best_j, buffers, move,
                       surrogate, min_side, w0, w1, c_agree, c_t, c_left, n_threads)
        if surrogate:
            m = _rank_surrogates(best_j, w0 + w1, max(w0, w1) / (w0 + w1), max_surrogates,
                                 min_adjusted, c_agree, c_t, c_left, sf, sthr, sl, sa)
            if m > 0:
                while n_sur + m > s_cap:
                    s_feature = grown(s_feature, 0)
                    s_threshold = grown(s_threshold, 0)
                    s_left = grown(s_left, 0)
                    s_agree = grown(s_agree, 0)
                    s_cap *= 2
                s_offset[node] = n_sur
                s_count[node] = m
                for t in range(m):
                    s_feature[n_sur + t] = sf[t]
                    s_threshold[n_sur + t] = sthr[t]
                    s_left[n_sur + t] = sl[t]
                    s_agree[n_sur + t] = sa[t]
                n_sur += m
        while count + 2 > feature.shape[0]:
            feature = grown(feature, 0)
            threshold = grown(threshold, 0)
            first_child = grown(first_child, 0)
            impurity = grown(impurity, 0)
            n_samples = grown(n_samples, 0)
            wsum = grown(wsum, 0)
            s_offset = grown(s_offset, 0)
            s_count = grown(s_count, 0)
            value = grown_rows(value, 0)
        left_id = count
        count += 2
        feature[node] = best_j
        first_child[node] = left_id
        for c in range(2):
            cid = left_id + c
            feature[cid] = -1
            threshold[cid] = np.nan
            first_child[cid] = -1
            s_offset[cid] = -1
            s_count[cid] = 0
            for k in range(n_out):
                value[cid, k] = child_value[c, k]
            wsum[cid] = child_w[c]
            impurity[cid] = child_imp[c]
            n_samples[cid] = (i_best + 1 - start) if c == 0 else (end - i_best - 1)
        if top + 2 > st_node.shape[0]:
            st_node = grown(st_node, 0)
            st_start = grown(st_start, 0)
            st_end = grown(st_end, 0)
            st_depth = grown(st_depth, 0)
        # right pushed first, so the left child (branch 0) grows first
        if child_split[1]:
            st_node[top], st_start[top], st_end[top] = left_id + 1, i_best + 1, end
            st_depth[top] = node_depth + 1
            top += 1
        if child_split[0]:
            st_node[top], st_start[top], st_end[top] = left_id, start, i_best + 1
            st_depth[top] = node_depth + 1
            top += 1
    # the words, the scratch and the tables are not used below: numba releases an array after
    # its last use, so the derived fields are allocated when they are gone (measured on the fully
    # grown 10^6-row regression fit: this call's peak fell from 421 to 357 MB above the process
    # before the fit when they stopped being grown beside the words)
    feature, threshold = trimmed(feature, count), trimmed(threshold, count)
    first_child, impurity = trimmed(first_child, count), trimmed(impurity, count)
    wsum, n_samples = trimmed(wsum, count), trimmed(n_samples, count)
    s_offset, s_count = trimmed(s_offset, count), trimmed(s_count, count)
    value = trimmed(value, count)
    s_feature, s_threshold = trimmed(s_feature, n_sur), trimmed(s_threshold, n_sur)
    s_left, s_agree = trimmed(s_left, n_sur), trimmed(s_agree, n_sur)
    parent, depth, fraction, missing_branch, improvement, s_adj = _derived(
        first_child, impurity, wsum, s_offset, s_count, s_agree)
    return (feature, threshold, first_child, parent, depth, impurity, n_samples, wsum, fraction,
            missing_branch, improvement, s_offset, s_count, value, s_feature, s_threshold, s_left,
            s_agree, s_adj)
