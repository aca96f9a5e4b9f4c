"""One tree on several threads: the subtrees below the large nodes grow side by side.

Depth-first growth (``loop``) splits a node and then grows each child's subtree in turn; the
subtrees of two nodes share nothing but the read-only table, and each one's rows are a range of
the segment that its growth partitions in place. So the root's growth splits the root alone and
sets its children aside, and the subtree of each node set aside grows on the next free one of
``n_threads`` threads (the kernels release the GIL), into tables of its own, with working memory
of its own (one per thread). A subtree's growth in turn sets aside its nodes of less than half
its rows, down to a floor: there are soon subtrees waiting for every thread, and a thread that
finishes takes the largest one waiting (the longest last), so the threads stay busy to the end.
``stitch`` then joins the pieces into the tables one thread grows: a node's children get
consecutive ids when it is split, depth-first, branch 0 first, and the pool and the surrogate
table are written in the order of the splits. Every number of a subtree is computed from its
rows alone, in the same order, so the tree is the same, bit for bit, for every ``n_threads``.

Only a depth-first binary growth is split this way: best-first growth (``max_leaf_nodes``)
chooses its next node across the whole tree, and pre-pruning, C4.5's fractional rows and
multiway splits keep state across subtrees or write children outside the parent's range.

Scaling model. A fully grown tree of L levels costs about t1 / L per level (every row is
searched at each level until it reaches a leaf), and level k has 2^k subtrees to share out, so
on T threads the growth takes about

    t1 (sum_{k < log2 T} 2^-k / L + (L - log2 T) / (L T))

plus what one thread does alone: encoding the table, the columns' presort (on every thread, but
bound by memory), the root's split, joining the pieces; and what the threads share: memory
bandwidth, and the imbalance of the last subtrees (n / (32 T) rows at most). With L ~ 30 that
is 1.9x on 2 threads, 5.5x on 8 and 7.9x on 16 for the growth alone. Replayed from a traced fit
(``benchmarks/thread_scaling.py``: each subtree's CPU time, scheduled on T workers as here; the
hard table, 10^6 rows, one thread 9.9 s) the whole fit comes to 1.66x on 2 threads, 2.3x on 4,
3.7x on 8 and 5.3x on 16: the 0.7-0.9 s one thread spends alone (encoding 0.25 s, root's split
0.2 s, presort, joining) is what bounds it on many cores, before bandwidth.
"""

from __future__ import annotations

import heapq
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np
from numba import njit

from .._config import MULTIWAY, SUBSET
from .bundles import MISSING_FRACTIONAL as FRACTIONAL
from .node_table import new_nodes, new_surrogates
from .segments import fold_segments, presort_column

MIN_ROWS = 20_000  # below this, a tree grows on one thread (the threads would cost more)
FLOOR_SHARE = 32  # no subtree of fewer than n / (FLOOR_SHARE n_threads) rows is set aside


def defer_below(n: int, n_threads: int, params, holdout) -> int:
    """Rows below which the root's growth sets a node to split aside for another thread (0:
    the tree grows on one thread)."""
    if (n_threads <= 1 or n < MIN_ROWS or params.max_leaf_nodes > 0 or params.multiway
            or params.missing == FRACTIONAL or holdout.w.shape[0] > 0):
        return 0
    return n  # every node below the root: the threads start at once on the root's children


def root_segments_threaded(X, yc, yr, w, sorted_columns, binned, from_bins, binned_codes,
                           n_values, j48, n_threads):
    """``segments.root_segments`` (room for the n rows only), its columns sorted side by side
    on ``n_threads`` threads: at 10^6 rows the sorts are an eighth of a fully grown tree's time."""
    n = X.shape[0]
    words = np.empty((sorted_columns.shape[0], n), dtype=np.int64)

    def one(s):
        presort_column(X[:, sorted_columns[s]], w, yc, words[s], j48)

    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        list(pool.map(one, range(sorted_columns.shape[0])))
    return fold_segments(X, yc, yr, w, np.arange(n, dtype=np.int64), binned, from_bins,
                         binned_codes, n_values, words)


def grow_deferred(top, n, rows, feat, params, holdout, seg, total_weight, val_total, paths, n_out,
                  n_threads, new_scratch, scr):
    """The whole tree: ``top``'s nodes (a ``loop.Grower`` that set nodes aside on its heap)
    and the subtree of each node set aside, grown on ``n_threads`` threads; as ``loop.Growth``.
    ``scr``: ``top``'s working memory, which one thread takes over (the others make their own:
    at 10^6 rows a tenth of a second each, while the root's children wait).

    A subtree's growth sets aside in turn its nodes of less than half its rows, down to
    ``floor`` rows: a thread that is free takes the largest one waiting, so the threads stay
    busy to the end, and only the root's split is searched on one thread alone."""
    from .loop import DEFER_BELOW, N_HEAP, Grower, Growth, node_bound, subtree_root

    floor = max(n // (FLOOR_SHARE * n_threads), MIN_ROWS // FLOOR_SHARE)
    local = threading.local()  # a thread's working memory, kept for its next subtree
    spare = [scr]
    parts = [(top, -1, -1)]  # (grower, the part holding the subtree's root, the root's id there)

    def one(start, end, depth, fraction, lower, upper):
        scr = getattr(local, "scr", None)
        if scr is None:
            try:
                scr = spare.pop()  # one at a time: the GIL
            except IndexError:
                scr = new_scratch()
            local.scr = scr
        m = end - start
        g = Grower(feat, params, holdout, scr, node_bound(m, params), n_out, m)
        subtree_root(seg, np.int64(start), np.int64(end), np.int64(depth), fraction, lower,
                     upper, params, scr, g.nodes, g.pend, g.state, *paths)
        g.state[DEFER_BELOW] = m // 2 if m // 2 >= floor else 0
        g.run(rows, feat, params, holdout, seg, scr, total_weight, val_total, paths, None, m)
        return g

    pending = []  # (-rows, order, part, node, start, end): the largest subtree first
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        waiting = {}

        def set_aside(p):  # part p's nodes set aside, to be grown
            g = parts[p][0]
            heap = g.pend.heap
            for i in range(int(g.state[N_HEAP])):
                start, end = int(heap.seg_start[i]), int(heap.seg_end[i])
                heapq.heappush(pending, (start - end, len(pending), p, int(heap.node[i]), start,
                                         end))

        def hand_out():  # no more at once than threads: the one freed next takes the largest
            while pending and len(waiting) < n_threads:
                _, _, p, v, start, end = heapq.heappop(pending)
                nodes = parts[p][0].nodes
                f = pool.submit(one, start, end, int(nodes.depth[v]), float(nodes.fraction[v]),
                                float(nodes.lower[v]), float(nodes.upper[v]))
                waiting[f] = (p, v)

        try:
            set_aside(0)
            hand_out()
            while waiting:
                finished, _ = wait(list(waiting), return_when=FIRST_COMPLETED)
                for f in finished:
                    p, v = waiting.pop(f)
                    parts.append((f.result(), p, v))
                    set_aside(len(parts) - 1)
                hand_out()
        except BaseException:  # an interrupt: the subtrees not started never start
            for f in waiting:
                f.cancel()
            raise
    growths = [g.growth() for g, _, _ in parts]
    nodes, n_nodes, pool_, n_pool, sur, n_sur = _joined(growths, [(p, v) for _, p, v in parts],
                                                        feat.n_values)
    main = growths[0]
    return Growth(nodes, n_nodes, pool_, n_pool, sur, n_sur, main.step_node, main.step_weight,
                  main.step_subtree, main.step_leaf, main.step_pruned, 0)


def _joined(parts, roots, n_values):
    """The tables of the growths ``parts`` as one tree's, numbered as one thread numbers them
    (``stitch``); ``roots[i]``: (the part holding part i's root as a node set aside, its id
    there), (-1, -1) for the tree's root."""
    n_out = parts[0].nodes.value.shape[1]
    sizes = np.array([p.n_nodes for p in parts], dtype=np.int64)
    base = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    pool_base = np.concatenate(([0], np.cumsum([p.n_pool for p in parts])[:-1]))
    sur_base = np.concatenate(([0], np.cumsum([p.n_surrogates for p in parts])[:-1]))
    total = int(sizes.sum())
    # every node of every part in one table: part i's node v at row base[i] + v, its links
    # (children, parent, pool and surrogate offsets) moved by the part's bases
    joined = new_nodes(total, n_out)
    for name, a in zip(joined._fields, joined, strict=True):
        for i, p in enumerate(parts):
            a[base[i]:base[i] + p.n_nodes] = getattr(p.nodes, name)[:p.n_nodes]
    n_sur = int(sum(p.n_surrogates for p in parts))
    sur = new_surrogates(max(n_sur, 1))
    for name, a in zip(sur._fields, sur, strict=True):
        for i, p in enumerate(parts):
            a[sur_base[i]:sur_base[i] + p.n_surrogates] = getattr(p.surrogates, name)[
                :p.n_surrogates]
    redirect = np.arange(total, dtype=np.int64)
    for i, p in enumerate(parts):
        rows = slice(base[i], base[i] + p.n_nodes)
        _moved(joined.first_child[rows], base[i])
        _moved(joined.parent[rows], base[i])
        _moved(joined.pool_offset[rows], pool_base[i])
        _moved(joined.s_offset[rows], sur_base[i])
        _moved(sur.pool_offset[sur_base[i]:sur_base[i] + p.n_surrogates], pool_base[i])
        q, v = roots[i]
        if q >= 0:  # a node set aside is its subtree's root (parts come after their parent's)
            held = base[q] + v
            redirect[held] = base[i]
            joined.parent[base[i]] = joined.parent[held]
    n_pool = int(sum(p.n_pool for p in parts))
    out_nodes = new_nodes(total, n_out)
    out_sur = new_surrogates(max(n_sur, 1))
    out_pool = np.empty(max(n_pool, 1), dtype=parts[0].pool.dtype)
    n_nodes, runs = stitch(joined, redirect, sur, n_values, out_nodes, out_sur)
    _copy_runs(runs, [p.pool[:p.n_pool] for p in parts], pool_base, out_pool)
    return out_nodes, n_nodes, out_pool[:n_pool], n_pool, out_sur, n_sur


def _copy_runs(runs, pools, bases, out):
    """The pool in the order of splits: run (at, src, k) of ``runs`` is entries src..src + k - 1
    of the pools of the parts laid end to end (part i's from ``bases[i]``), copied to ``out``
    from ``at``. A run is a stretch of one part's splits, whose slices it wrote one after the
    other: a few hundred copies at memory speed, instead of an entry at a time and a first copy
    of all the pools into one."""
    ends = bases + np.array([p.shape[0] for p in pools], dtype=np.int64)
    for at, src, k in runs:
        while k > 0:  # a run may go on into the next part's pool
            i = int(np.searchsorted(ends, src, side="right"))
            take = min(k, int(ends[i]) - src)
            out[at:at + take] = pools[i][src - bases[i]:src - bases[i] + take]
            at, src, k = at + take, src + take, k - take


def _moved(a, by):
    """Add ``by`` to the links of ``a`` (-1: none)."""
    a[a >= 0] += by


def stitch(t, redirect, sur, n_values, out, out_sur):
    """Renumber the joined table ``t`` as one thread grows it: from the root, depth-first,
    branch 0 first, a split node's children get the next consecutive ids, and its test's pool
    slice and its surrogates (with theirs) are placed in that order of splits. ``redirect[v]``:
    the row holding node v (a node set aside: its subtree's root); a category test's slice has
    ``n_values`` of its column entries (``chosen.record_split``). Returns the node count and the
    pool's runs (``_copy_runs``; offsets into the joined pool, whose entries are not read here).

    The order is found by a walk over the links alone (``_order``); each field is then one
    gather by it (a walk that copied every field node by node took 180 ns a node)."""
    n = t.feature.shape[0]
    row_of = np.empty(n, dtype=np.int64)  # new id -> joined row
    new_of = np.empty(n, dtype=np.int64)  # joined row -> new id
    first = np.empty(n, dtype=np.int64)  # new id -> its first child's new id
    splits = np.empty(n, dtype=np.int64)  # the split nodes' new ids, in the order of splits
    m, n_splits = _order(t.first_child, t.n_children, redirect, row_of, new_of, first, splits,
                         np.empty(n, dtype=np.int64))
    row_of = row_of[:m]
    for name, a in zip(t._fields, t, strict=True):
        np.take(a, row_of, axis=0, out=getattr(out, name)[:m])
    out.first_child[:m] = np.where(out.n_children[:m] > 0, first[:m], -1)
    parent = out.parent[:m]
    parent[:] = np.where(parent >= 0, new_of[np.maximum(parent, 0)], -1)
    runs = np.empty((n_splits + sur.feature.shape[0] + 1, 3), dtype=np.int64)  # a run a slice at most
    n_runs = _pool_and_surrogates(splits[:n_splits], row_of, t, sur, n_values, out, out_sur, runs)
    return m, runs[:n_runs].tolist()


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def _order(first_child, n_children, redirect, row_of, new_of, first, splits, stack):
    """``stitch``'s walk: each new id's joined row (row_of), each joined row's new id (new_of),
    each new id's first child (first), and the split nodes in the order of splits; returns
    (nodes, splits). ``stack``: scratch."""
    root = redirect[0]
    row_of[0], new_of[root] = root, 0
    stack[0] = 0
    top, n_new, n_splits = 1, 1, 0
    while top > 0:
        top -= 1
        v = stack[top]
        r = row_of[v]
        nb = n_children[r]
        if nb == 0:
            continue
        splits[n_splits] = v
        n_splits += 1
        first[v] = n_new
        for b in range(nb):
            c = redirect[first_child[r] + b]
            row_of[n_new + b] = c
            new_of[c] = n_new + b
        for b in range(nb - 1, -1, -1):  # branch 0 is grown first
            stack[top] = n_new + b
            top += 1
        n_new += nb
    return n_new, n_splits


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def _pool_and_surrogates(splits, row_of, t, sur, n_values, out, out_sur, runs):
    """The new pool offsets of the split nodes ``splits`` (new ids, in the order of splits) and
    of their surrogates, placed in that order, with the surrogate rows copied into ``out_sur``;
    the pool's entries to copy as runs (at, source, entries) into ``runs``, a slice that starts
    where the last ended joined to it. Returns the number of runs."""
    n_pool, n_sur, n_runs = 0, 0, 0
    for v in splits:
        r = row_of[v]
        if t.kind[r] == SUBSET or t.kind[r] == MULTIWAY:
            out.pool_offset[v] = n_pool
            k = n_values[t.feature[r]]
            n_runs = _run(runs, n_runs, n_pool, t.pool_offset[r], k)
            n_pool += k
        if t.s_count[r] > 0:
            out.s_offset[v] = n_sur
            for s in range(t.s_offset[r], t.s_offset[r] + t.s_count[r]):
                _copy_surrogate(sur, s, out_sur, n_sur)
                if sur.pool_offset[s] >= 0:
                    out_sur.pool_offset[n_sur] = n_pool
                    k = n_values[sur.feature[s]]
                    n_runs = _run(runs, n_runs, n_pool, sur.pool_offset[s], k)
                    n_pool += k
                n_sur += 1
    return n_runs


@njit(cache=True, nogil=True, _nrt=False, inline="always", no_cpython_wrapper=True,
      no_cfunc_wrapper=True)
def _run(runs, n_runs, at, src, k):
    """The slice of k entries from ``src`` to ``at``, as a new run or the last run's end;
    returns the number of runs."""
    if n_runs > 0 and runs[n_runs - 1, 1] + runs[n_runs - 1, 2] == src \
            and runs[n_runs - 1, 0] + runs[n_runs - 1, 2] == at:
        runs[n_runs - 1, 2] += k
        return n_runs
    runs[n_runs, 0], runs[n_runs, 1], runs[n_runs, 2] = at, src, k
    return n_runs + 1


# inlined: a call passes each of the bundle's arrays field by field (``bundles``)
@njit(cache=True, nogil=True, _nrt=False, inline="always", no_cpython_wrapper=True,
      no_cfunc_wrapper=True)
def _copy_surrogate(sur, s, out, i):
    """Surrogate row s into row i of ``out`` (its pool offset is set after)."""
    out.feature[i] = sur.feature[s]
    out.kind[i] = sur.kind[s]
    out.threshold[i] = sur.threshold[s]
    out.left_branch[i] = sur.left_branch[s]
    out.pool_offset[i] = sur.pool_offset[s]
    out.agreement[i] = sur.agreement[s]
    out.adjusted[i] = sur.adjusted[s]
