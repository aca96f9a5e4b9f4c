"""TreeGenerate (Zhou 2016, figure 4.2) in one numba kernel: the engine's only growth loop.

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
split search (``search``), the chosen split applied (``chosen``: routing with ``route`` and the
surrogates of ``surrogate_split``, partition with ``segments``, the split's record), pre-pruning
(``prepruning``), and the node table (``node_table``). The loop and its stages are compiled
per combination of paths a fit takes (``paths``: an ID3 fit compiles no CART or regression code).
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .. import _interrupts
from .._config import ABSOLUTE_ERROR, ENTROPY, MULTIWAY, SUBSET, THRESHOLD
from . import pages
from .arrays import enlarged, unset
from .bundles import MISSING_FRACTIONAL as FRACTIONAL
from .bundles import WIDE
from .chosen import (
    add_children,
    binary_rows,
    child_weights,
    missing_branch_of,
    new_chosen,
    record_split,
    route,
)
from .growable import Growable, GrowableTables
from .histograms import child_slots, release, root_slot, rows_slot
from .monotone import child_bounds, constraint_of
from .node_stats import class_stats, regression_stats
from .node_table import init_leaf, new_nodes, new_surrogates
from .paths import paths_of
from .prepruning import holdout_branches, loss, score_of, split_helps, split_holdout
from .presort import kept_words
from .scratch import new_scratch, wide_codes
from .search import available_columns, new_candidates, search
from .segments import (
    child_layout,
    fold_segments,
    new_multiway_scratch,
    root_segments,
    split_multiway,
    with_capacity,
)
from .surrogate_split import new_surrogate_candidates
from .two_rows import split_two_rows, two_rows_apply


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


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _visit(nodes, node, seg, start, end, params, ys, ws, reg, clf, r8):
    """Record the node's statistics; returns (weight W, whether it may be split). ``ys``, ``ws``:
    scratch per position; ``reg``, ``clf``, ``r8``: switches (``paths``)."""
    value = nodes.value[node]
    W, imp, pure = 0.0, 0.0, True
    if reg is not None:
        W, imp, pure = regression_stats(seg, start, end, params.criterion, params.median,
                                         value, ys, ws)
    elif clf is not None:
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
    if params.min_split_rows > 0 and _rows_of_weight(seg, start, end) < params.min_split_rows:
        return W, False  # min_samples_split counts rows (scikit-learn, rpart's minsplit)
    if params.cost_floor > 0.0 and _cost(W, imp, value, params) <= params.cost_floor:
        return W, False  # a leaf of every subtree T(alpha) with alpha >= the floor (``cp``)
    if r8 is not None:  # J48 makes a node a leaf before looking at attributes
        top = value[0]
        for k in range(value.shape[0]):
            top = max(top, value[k])
        if 2.0 * params.r8_min_objects - W > 1e-6 or abs(W - top) < 1e-6:
            return W, False
    return W, True


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rows_of_weight(seg, start, end):
    """The node's rows of positive weight (a row of weight 0 is no sample to scikit-learn)."""
    n = np.int64(0)
    for t in range(start, end):
        if seg.w[t] > 0.0:
            n += 1
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cost(W, imp, value, params):
    """The node's cost c(t) as cost-complexity pruning counts it: the misclassified weight
    W - max_k w_k, or W I(t) (the impurity cost; regression: the sum of squares)."""
    if not params.floor_misclassified:
        return W * imp
    top = value[0]
    for k in range(value.shape[0]):
        top = max(top, value[k])
    return W - top


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _weights_by_row(seg, start, end, rows, scr, frac):
    """The rows' weights at the node by row id, and whether each row of positive weight weighs 1.
    CART's weights never change; C4.5's (``frac``) are scattered from the segment."""
    if frac is None:
        return rows.w, scr.unit_input
    unit = True
    for t in range(start, end):
        wt = seg.w[t]
        scr.w_node[seg.row[t]] = wt
        if wt > 0.0 and wt != 1.0:
            unit = False
    return scr.w_node, unit


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _find_split(nodes, node, seg, start, end, W, total_weight, rows, feat, params, scr, cand,
                slot, reg, clf, multi, subset, frac, surr, r8, sortd, coded):
    """The node's chosen column (-1: none) after the selection rule, epsilon and
    min_impurity_decrease; ``slot``: the node's class histogram (-1: none); the rest: switches
    (``paths``)."""
    if multi is not None:  # only a multiway test above uses a column up: no walk to the root
        available_columns(nodes, node, scr.available)
    w_row, unit = _weights_by_row(seg, start, end, rows, scr, frac)
    lo, hi = -np.inf, np.inf
    if params.monotonic.shape[0] > 0:  # the node's bounds (``monotone``)
        lo, hi = nodes.lower[node], nodes.upper[node]
    j, chosen_score = search(seg, start, end, scr.available, rows, feat, params, scr, cand, W,
                             w_row, unit, slot, lo, hi, reg, clf, multi, subset, r8, sortd,
                             coded)
    if j < 0 or chosen_score < params.epsilon:
        return -1
    if cand.gain[j] * W / total_weight < params.min_impurity_decrease:
        return -1
    return j


# growth state kept between the calls of ``_grow_from``: int64 slots of ``state``
(TOP, N_HEAP, N_LEAVES, N_NODES, N_POOL, N_SUR, N_STEPS, NEED_SEG, NEED_MW, NEED_VAL,
 RELEASE_AT, WORK_BUDGET, DEFER_BELOW) = range(13)
N_STATE = 13
NEVER = np.iinfo(np.int64).max
# cells (a node's rows x the table's columns) whose splits one call of ``_grow_from`` searches
# before it returns to Python, which then acts on a signal (``_interrupts``): about a tenth of a
# second of search, and some 100 microseconds of Python per return
WORK_PER_CALL = 1 << 24


class Entries(NamedTuple):
    """Pending nodes, one entry each: the node, its rows (segment of the training rows and of
    the validation rows) and its class histogram (``histograms``; -1: none). Entries travel with
    the stack and the heap, so their memory follows the nodes waiting (a few per level
    depth-first), not every node grown: by node, they were 80 MB of the fully grown regressor's
    peak at 10^6 rows."""

    node: np.ndarray
    seg_start: np.ndarray
    seg_end: np.ndarray
    val_start: np.ndarray
    val_end: np.ndarray
    slot: np.ndarray


class Pending(NamedTuple):
    """The nodes still to grow: the depth-first stack (best-first: the new nodes whose splits are
    yet to be searched for their keys) and the best-first heap, ordered by (key, node)."""

    stack: Entries
    heap: Entries
    heap_key: np.ndarray


def new_entries(size):
    return Entries(*(np.zeros(size, dtype=np.int64) for _ in Entries._fields))


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _put(e, i, node, start, end, vstart, vend, slot):
    e.node[i], e.seg_start[i], e.seg_end[i] = node, start, end
    e.val_start[i], e.val_end[i], e.slot[i] = vstart, vend, slot


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _move(e, dst, src):
    _put(e, dst, e.node[src], e.seg_start[src], e.seg_end[src], e.val_start[src], e.val_end[src],
         e.slot[src])


class Validation(NamedTuple):
    """Pre-pruning's working memory: the validation rows' segments, and the steps taken."""

    vrow: np.ndarray
    vw: np.ndarray
    vdir: np.ndarray
    vs_i: np.ndarray
    vs_f: np.ndarray
    vc_start: np.ndarray  # per branch: the children's validation segments
    vc_end: np.ndarray
    child_value: np.ndarray
    step_node: np.ndarray
    step_weight: np.ndarray
    step_subtree: np.ndarray
    step_leaf: np.ndarray
    step_pruned: np.ndarray


def node_bound(n, params):
    """The node tables' first size for a fit on n rows. A CART tree (binary splits, each row in
    one child) has at most 2n - 1 nodes, 2 max_leaf_nodes - 1 best-first, 2^(depth + 1) - 1
    under max_depth: its tables are reserved at that size (plus one split's children) at once.
    Pages no node reaches are never resident (np.empty: numba's np.zeros writes every page),
    where doubling held the old tables and the new ones at once: the fully grown
    regression tree of 10^6 rows peaked at 9x its encoded matrix. C4.5 (a row with a missing
    value goes down every branch) and multiway trees have no such bound and start at 64."""
    if params.multiway or params.missing == FRACTIONAL:
        return 64
    cap = 2 * n - 1
    if params.max_leaf_nodes > 0:
        cap = min(cap, 2 * params.max_leaf_nodes - 1)
    if params.max_depth < 40:
        cap = min(cap, (1 << (params.max_depth + 1)) - 1)
    return max(cap + 2, 64)


def grow(rows, feat, params, holdout, seg, n, scr, n_out, own_segment=False, n_threads=1,
         new_scratch=None):
    """Grow the tree of ``params`` on ``rows`` from the root segment ``seg`` (``segments.
    root_segments``) of n rows (it may have room for more); ``holdout``: validation rows (empty X:
    no pre-pruning). ``own_segment``: no one else reads ``seg``, so its finished rows may be
    given back as the tree grows (``pages``). ``n_threads`` > 1 grows the subtrees below the
    large nodes side by side (``subtrees``), each with the working memory ``new_scratch()``;
    the tree is the same for every ``n_threads``.

    The loop over nodes is the kernel ``_grow_from``, which never replaces an array: it returns
    when a table lacks room for the next node, the table grows (by remapping, ``growable``, or
    in ``_with_room``), and it is called again. The tables are made and grown here, in Python,
    not in a kernel around ``_grow_from``: numba links and optimises a kernel together with
    everything it calls, so such a kernel compiled the whole growth loop a second time (about 8
    of the 85 s of CPU of a first fit). This loop turns once per doubling of a table, and once
    per WORK_PER_CALL cells searched, so that a signal is acted on within a fraction of a second
    (``_interrupts``). (Inside a kernel, numba would also count the references of every array a
    loop replaces, on each of its iterations.)"""
    from . import subtrees

    n = int(n)
    g = Grower(feat, params, holdout, scr, node_bound(n, params), n_out, n)
    paths = paths_of(params, feat.search)  # the kernels' specialisation for this fit (``paths``)
    total_weight, val_total = _root(seg, np.int64(n), holdout.w, params, scr, g.nodes, g.pend,
                                    g.state, *paths)
    defer = subtrees.defer_below(n, n_threads, params, holdout)
    g.state[DEFER_BELOW] = defer
    finished = None if defer else _finished_rows(seg, n, params, own_segment)
    g.run(rows, feat, params, holdout, seg, scr, total_weight, val_total, paths, finished, n)
    if defer and g.state[N_HEAP] > 0:
        return subtrees.grow_deferred(g, n, rows, feat, params, holdout, seg, total_weight,
                                      val_total, paths, n_out, n_threads, new_scratch, scr)
    return g.growth()


class Grower:
    """The tables of one growth (the node table, the category pool, the surrogate table) and
    the loop's working memory; ``run`` grows the pending nodes into them."""

    def __init__(self, feat, params, holdout, scr, cap, n_out, n):
        d = feat.search.shape[0]
        max_k = scr.sides.shape[0]
        self.max_b = max_k if params.multiway else 2  # children of one split, at most
        self.max_k, self.max_s = max_k, params.max_surrogates
        max_s = self.max_s
        # the tables by node, the surrogate table and the pool grow without a copy
        # (``growable``): copied, each was a peak at 10^6 rows (the regressor's pool, C4.5's node
        # table)
        self.nodes_t = GrowableTables(new_nodes(cap, n_out))
        # int8: the pool holds an entry per category of every subset test and subset surrogate
        # (83 million in the fully grown regressor at 10^6 rows), each -1, 0 or 1; multiway
        # tests only reserve their slices (``record_split``)
        self.pool = Growable(64, np.int8)
        self.sur_t = GrowableTables(new_surrogates(max(max_s * (cap // 2), 64) if cap > 64
                                                   else 64))
        self.cand = new_candidates(d)
        self.sc = new_surrogate_candidates(d, max_s)
        self.ch = new_chosen(max_s, max_k)
        # multiway partition scratch (grows with C4.5's copies); a binary CART split never uses
        # it
        multiway = params.multiway or params.missing == FRACTIONAL
        self.mw = new_multiway_scratch(n if multiway else 1, self.max_b)
        # pre-pruning: the validation rows, their directions and segments, and the steps taken
        m_val = holdout.w.shape[0]
        size = max(m_val, 1) * 2
        vrow, vw = unset(size, np.int64), unset(size)
        vrow[:m_val] = np.arange(m_val)
        vw[:m_val] = holdout.w
        self.val = Validation(vrow, vw, unset(size, np.int64), unset(size, np.int64),
                              unset(size), np.empty(self.max_b, dtype=np.int64),
                              np.empty(self.max_b, dtype=np.int64), np.zeros((max_k, n_out)),
                              np.empty(16, dtype=np.int64), np.empty(16), np.empty(16),
                              np.empty(16), np.empty(16, dtype=np.bool_))
        self.val_loss = np.full(1, np.nan)
        # the pending nodes: the stack and the heap of their entries
        self.pend = Pending(new_entries(64), new_entries(64), np.zeros(64))
        self.state = np.zeros(N_STATE, dtype=np.int64)
        self.cap = cap
        self.nodes, self.sur = self.nodes_t.bundle(), self.sur_t.bundle()

    def run(self, rows, feat, params, holdout, seg, scr, total_weight, val_total, paths,
            finished, n):
        """Grow every pending node (``_grow_from``, called again after each table grows);
        ``finished``: ``pages.FinishedRows`` of the segment, or None."""
        state, d = self.state, feat.search.shape[0]
        max_b, max_k, max_s = self.max_b, self.max_k, self.max_s
        # a return every 1/16 of the nodes a tree can have, to give the finished rows back: what
        # is left at the end of growth is about a 16th of the segment
        step = max(self.cap // 16, 1)
        state[RELEASE_AT] = step if finished is not None else NEVER
        state[WORK_BUDGET] = max(WORK_PER_CALL // max(d, 1), 1)  # rows searched per call
        while True:
            _interrupts.check()  # a signal, or the main thread's interrupt in a CV fold's thread
            # room for the largest split the next node can make (``max_b`` children, ``max_k``
            # pool entries for its test and each of ``max_s`` surrogates); a table is only
            # remapped while it has no view but its own, so the bundles are dropped first
            room, sur_room = int(state[N_NODES]) + max_b, int(state[N_SUR]) + max_s
            if room > self.nodes_t.rows or sur_room > self.sur_t.rows:
                self.nodes = self.sur = None
                self.nodes_t.reserve(room)
                self.sur_t.reserve(sur_room)
                self.nodes, self.sur = self.nodes_t.bundle(), self.sur_t.bundle()
            self.pool.reserve(int(state[N_POOL]) + max_k * (1 + max_s))
            self.pend, self.val, seg, self.mw = _with_room(self.pend, self.val, seg, self.mw,
                                                           state, max_b)
            if _grow_from(rows, feat, params, holdout, seg, scr, self.cand, self.sc, self.ch,
                          self.nodes, self.pool.array, self.sur, self.pend, self.val, self.mw,
                          state, self.val_loss, total_weight, val_total, *paths):
                break
            if finished is not None:
                top = int(state[TOP])
                finished.release(int(self.pend.stack.seg_start[:top].min()) if top > 0 else n)
                state[RELEASE_AT] = int(state[N_NODES]) + step

    def growth(self):
        """The grown tables, as ``Growth``."""
        state, val = self.state, self.val
        self.nodes = self.pend = self.sur = None
        n_nodes, n_pool, n_sur = int(state[N_NODES]), int(state[N_POOL]), int(state[N_SUR])
        return Growth(self.nodes_t.finished(n_nodes), n_nodes, self.pool.finished(n_pool),
                      n_pool, self.sur_t.finished(n_sur), n_sur, val.step_node,
                      val.step_weight, val.step_subtree, val.step_leaf, val.step_pruned,
                      int(state[N_STEPS]))


def _finished_rows(seg, n, params, own_segment):
    """``pages.FinishedRows`` of the segment when its finished rows can be given back: growth
    depth-first (every row below the stack's top node is finished) with binary splits that
    partition the segment in place (C4.5's and multiway splits write their children elsewhere);
    else None."""
    if not (own_segment and pages.available() and params.max_leaf_nodes == 0
            and not params.multiway and params.missing != FRACTIONAL
            and (n >= pages.MIN_ROWS or pages.POISON)):
        return None
    return pages.FinishedRows(seg)


def _with_room(pend, val, seg, mw, state, max_b):
    """The pending stack and heap with room for ``max_b`` more nodes, and the tables with room
    for what ``_grow_from``'s last call asked (``state``'s NEED_* slots, cleared here). (The
    tables by node, the surrogates and the pool grow in ``grow``.)"""
    top, n_heap, n_steps = (int(state[i]) for i in (TOP, N_HEAP, N_STEPS))
    if top + max_b > pend.stack.node.shape[0]:
        pend = pend._replace(stack=Entries(*(enlarged(a, top + max_b) for a in pend.stack)))
    if n_heap + max_b > pend.heap_key.shape[0]:
        pend = pend._replace(heap=Entries(*(enlarged(a, n_heap + max_b) for a in pend.heap)),
                             heap_key=enlarged(pend.heap_key, n_heap + max_b))
    need_val = int(state[NEED_VAL])
    if n_steps + 1 > val.step_node.shape[0] or need_val > val.vrow.shape[0]:
        v, s = max(need_val, 1), n_steps + 1
        val = Validation(*(enlarged(a, v) for a in val[:5]), val.vc_start, val.vc_end,
                         val.child_value, *(enlarged(a, s) for a in val[8:]))
    if state[NEED_SEG] > 0:
        seg = with_capacity(seg, int(state[NEED_SEG]))
    if state[NEED_MW] > mw.src.shape[0]:
        mw = new_multiway_scratch(2 * int(state[NEED_MW]), max_b)
    state[NEED_SEG], state[NEED_MW], state[NEED_VAL] = 0, 0, 0
    return pend, val, seg, mw


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def _root(seg, n, holdout_w, params, scr, nodes, pend, state, reg, clf, multi, subset, frac, surr,
          r8, sortd, coded):
    """The root, pending: its node, the first entries of the pending tables, and ``state``.
    Returns the weight W of the root and of the validation rows, added in row order
    (min_impurity_decrease, pre-pruning's scores)."""
    total_weight = 0.0
    for t in range(n):
        total_weight += seg.w[t]
    val_total = 0.0
    for t in range(holdout_w.shape[0]):
        val_total += holdout_w[t]
    # literal constants would compile kernels a second time (numba specialises on a literal
    # argument): the root's ids are typed int64 like every other node's
    root = np.int64(0)
    init_leaf(nodes, root, np.int64(-1), root, 1.0)
    if params.monotonic.shape[0] > 0:  # the root's value is free (``monotone``)
        nodes.lower[root] = -np.inf
        nodes.upper[root] = np.inf
    state[N_NODES] = 1
    state[N_LEAVES] = 1
    m_val = np.int64(holdout_w.shape[0])
    # the stack's entry 0: the root, its rows [0, n) and validation rows [0, m_val)
    if params.max_leaf_nodes > 0:  # best-first: the root waits for its split's key
        W, ok = _visit(nodes, root, seg, root, n, params, scr.ys, scr.ws, reg, clf, r8)
        if ok:
            _put(pend.stack, root, root, root, n, root, m_val, np.int64(-1))
            state[TOP] = 1
    else:
        slot = np.int64(-1)
        if clf is not None and subset is not None and coded is not None:  # ``histograms``
            slot = root_slot(scr.hist, seg, n, params.n_classes)
        _put(pend.stack, root, root, root, n, root, m_val, slot)
        state[TOP] = 1
    return total_weight, val_total


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def subtree_root(seg, start, end, depth, fraction, lower, upper, params, scr, nodes, pend, state,
                 reg, clf, multi, subset, frac, surr, r8, sortd, coded):
    """A subtree's root, pending, as node 0 of its own tables (``subtrees``): the node set
    aside at ``depth`` with rows [start, end) of ``seg``, its branch fraction and its bounds
    (``monotone``); ``state`` as ``_root`` leaves it. Visited again when it is popped: the
    same numbers as its first visit."""
    root = np.int64(0)
    init_leaf(nodes, root, np.int64(-1), depth, fraction)
    if params.monotonic.shape[0] > 0:
        nodes.lower[root] = lower
        nodes.upper[root] = upper
    state[N_NODES] = 1
    state[N_LEAVES] = 1
    slot = np.int64(-1)
    if clf is not None and subset is not None and coded is not None:  # ``histograms``
        slot = rows_slot(scr.hist, seg, start, end, params.n_classes)
    _put(pend.stack, root, root, start, end, root, root, slot)
    state[TOP] = 1


@njit(cache=True, nogil=True, _nrt=False, no_cfunc_wrapper=True)
def _grow_from(rows, feat, params, holdout, seg, scr, cand, sc, ch, nodes, pool, sur, pend, val,
               mw, state, val_loss, total_weight, val_total, reg, clf, multi, subset, frac, surr,
               r8, sortd, coded):
    """Grow the pending nodes (``grow``'s loop); returns True when none is left, False when a
    table needs room first: the node is left pending, ``state`` holds the counts and what more
    room the node needs (NEED_*), and every array is as the caller passed it.

    Compiled without reference counting (``_nrt=False``): it allocates nothing, and neither may
    anything it calls, for numba compiles the callees under the caller's flags (their scratch
    comes from ``grow``: ``segments.MultiwayScratch``, ``chosen.Chosen``). The small per-node
    stages are inlined here; the split search and the routing are called, once per node each
    (``bundles``, "Argument copies"); best-first growth searches a new node's split (for its key
    in the heap) from the same call site as a popped node's. ``reg`` ... ``r8``: the paths this fit
    takes (``paths``: None where it takes none)."""
    stack, heap, heap_key = pend.stack, pend.heap, pend.heap_key
    vrow, vw, vdir, vs_i, vs_f = val.vrow, val.vw, val.vdir, val.vs_i, val.vs_f
    vc_start, vc_end, child_value = val.vc_start, val.vc_end, val.child_value
    top, n_heap, n_leaves = state[TOP], state[N_HEAP], state[N_LEAVES]
    n_nodes, n_pool, n_sur, n_steps = state[N_NODES], state[N_POOL], state[N_SUR], state[N_STEPS]
    best_first = params.max_leaf_nodes > 0
    pre = params.prepruning
    max_k = scr.sides.shape[0]
    max_b = max_k if multi is not None else 2
    max_s = params.max_surrogates
    done = True
    work = 0  # rows whose splits this call has searched (``grow``: WORK_BUDGET)
    # depth-first, a node to split of fewer than state[DEFER_BELOW] rows is set aside on the
    # heap, which depth-first growth has no other use for (``subtrees``: grown on other threads)
    defer_below = state[DEFER_BELOW]
    two = False  # a regression node of two rows may take its own path (``two_rows``)
    if reg is not None and surr is not None:
        two = two_rows_apply(params, feat, scr.unit_input)
    while top > 0 or (n_heap > 0 and best_first):
        if (n_nodes + max_b > nodes.feature.shape[0]
                or n_pool + max_k * (1 + max_s) > pool.shape[0]
                or n_sur + max_s > sur.feature.shape[0] or top + max_b > stack.node.shape[0]
                or n_heap + max_b > heap_key.shape[0] or n_steps + 1 > val.step_node.shape[0]
                or n_nodes >= state[RELEASE_AT]  # ``grow`` gives finished rows back
                or work >= state[WORK_BUDGET]):  # back to Python for a while (signals)
            done = False
            break
        popped_key = 0.0
        slot = np.int64(-1)  # the node's class histogram: depth-first growth only
        keyed = False  # best-first: a new node whose split is searched for its key only
        if best_first:
            if top > 0:
                top -= 1
                node, start, end = stack.node[top], stack.seg_start[top], stack.seg_end[top]
                vstart, vend = stack.val_start[top], stack.val_end[top]
                keyed = True
            else:
                node, start, end = heap.node[0], heap.seg_start[0], heap.seg_end[0]
                vstart, vend = heap.val_start[0], heap.val_end[0]
                popped_key = heap_key[0]
                n_heap -= 1  # pop the root of the heap: smallest (key, node)
                heap_key[0] = heap_key[n_heap]
                _move(heap, 0, n_heap)
                _sift_down(heap, heap_key, n_heap)
            W = nodes.weight[node]
        else:
            top -= 1
            node, start, end = stack.node[top], stack.seg_start[top], stack.seg_end[top]
            vstart, vend, slot = stack.val_start[top], stack.val_end[top], stack.slot[top]
            W, ok = _visit(nodes, node, seg, start, end, params, scr.ys, scr.ws, reg, clf, r8)
            if not ok:
                release(scr.hist, slot)
                continue
            if end - start < defer_below:  # a node to split, set aside with its subtree
                release(scr.hist, slot)  # the subtree counts its own histograms
                _put(heap, n_heap, node, start, end, vstart, vend, np.int64(-1))
                n_heap += 1
                continue
        # the one call of the split search (a best-first node is searched for its key, then
        # again when popped: the candidates are overwritten by the nodes searched in between)
        work += end - start
        pair = False  # the split of two rows, searched and routed at once (``two_rows``)
        n_s, m0, m1 = np.int64(0), 0.0, 0.0
        if reg is not None and surr is not None and two and end - start == 2 and W == 2.0:
            pair = True
            j, n_s, m0, m1 = split_two_rows(seg, start, W, total_weight, rows, feat, params,
                                            scr.scan, scr.scan.xl2, scr.sides, scr.direction,
                                            cand, ch, sortd, coded)
        else:
            j = _find_split(nodes, node, seg, start, end, W, total_weight, rows, feat, params,
                            scr, cand, slot, reg, clf, multi, subset, frac, surr, r8, sortd,
                            coded)
        if keyed:
            if j >= 0:
                n_heap = _push(heap, heap_key, n_heap, -cand.gain[j] * W, node, start, end,
                               vstart, vend)
            continue
        if j < 0:
            release(scr.hist, slot)
            continue

        # ---- the test, and each row's branch
        categorical = feat.categorical[j]
        if not categorical:
            kind = THRESHOLD
            n_b = 2
        elif multi is not None:
            kind = MULTIWAY
            n_b = feat.n_values[j]
        else:
            kind = SUBSET
            n_b = 2
        if best_first and n_leaves + n_b - 1 > params.max_leaf_nodes:
            continue
        threshold = cand.threshold[j]
        if not pair:
            n_s, m0, m1 = route(seg, start, end, j, kind, threshold, cand.position[j], n_b, rows,
                                feat, params, scr, sc, ch, reg, clf, multi, subset, surr, r8,
                                sortd, coded)

        # ---- room for the children's validation rows, found before any training row moves: a
        # node put back to wait for room must find its segment as it was (the partition below
        # is in place, C4.5's copies may run past the segment's end). C4.5 sends a validation
        # row without a value down every branch; otherwise a row goes to one child at most.
        if pre:
            size = vend - vstart
            if frac is not None:  # vdir does not depend on the partition here
                holdout_branches(vrow, vw, vstart, vend, holdout.X, j, kind, threshold,
                                 scr.sides[:feat.n_values[j]], missing_branch_of(params, ch), n_s,
                                 ch.sur_feature, ch.sur_kind, ch.sur_threshold, ch.sur_left,
                                 ch.sur_sides, vdir)
                size = 0
                for t in range(vend - vstart):
                    if vdir[t] >= 0:
                        size += 1
                    elif vdir[t] == -2:
                        size += n_b
            if vstart + size > vrow.shape[0]:
                state[NEED_VAL] = vstart + size
                top, n_heap = _keep_pending(node, start, end, vstart, vend, slot, popped_key,
                                            best_first, stack, top, heap, heap_key, n_heap)
                done = False
                break

        # ---- the children's rows. A child of fewer than ``least`` rows is a leaf whatever its
        # statistics (``_visit``: one row is pure; min_samples_split's rows; max_depth)
        least = NEVER if nodes.depth[node] + 1 >= params.max_depth else max(
            np.int64(2), params.min_split_rows)
        if multi is None and frac is None:  # CART: every split is binary
            binary_rows(seg, start, end, scr, ch, least)
        elif frac is None and n_b == 2:  # ID3's threshold tests
            binary_rows(seg, start, end, scr, ch, least)
        else:
            direction = scr.direction[:end - start]
            needed = max(start, child_layout(start, direction, ch.receives, n_b, ch.c_start,
                                             ch.c_end))
            if needed > seg.row.shape[0] or needed - start > mw.src.shape[0]:
                state[NEED_SEG], state[NEED_MW] = needed, needed - start
                top, n_heap = _keep_pending(node, start, end, vstart, vend, slot, popped_key,
                                            best_first, stack, top, heap, heap_key, n_heap)
                done = False
                break
            split_multiway(seg, start, end, direction, n_b, ch, scr.branch_of_row, mw)
        if surr is not None:
            child_weights(seg, ch)

        # ---- pre-pruning: split only if the children, as leaves, do better on validation rows
        if pre:
            if frac is None:  # CART's missing branch: the heavier child
                holdout_branches(vrow, vw, vstart, vend, holdout.X, j, kind, threshold,
                                 scr.sides[:feat.n_values[j]], missing_branch_of(params, ch),
                                 n_s, ch.sur_feature, ch.sur_kind, ch.sur_threshold, ch.sur_left,
                                 ch.sur_sides, vdir)
            own = nodes.value[node]
            as_leaf = loss(own, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                           params.regression, vdir, np.int64(-3), 1.0)
            as_split = loss(own, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                            params.regression, vdir, np.int64(-1), 1.0)
            for b in range(n_b):
                cw = 0.0
                if reg is not None:
                    cw, _, _ = regression_stats(seg, ch.c_start[b], ch.c_end[b],
                                                params.criterion, params.median,
                                                child_value[b], scr.ys, scr.ws)
                elif clf is not None:
                    cw, _, _ = class_stats(seg, ch.c_start[b], ch.c_end[b], params.criterion,
                                           child_value[b])
                value_b = child_value[b] if cw > 0.0 else own
                as_split += loss(value_b, vrow, vw, vstart, vend, holdout.yc, holdout.yr,
                                 params.regression, vdir, b, ch.fractions[b])
            helps = split_helps(as_split, as_leaf, params.prune_on_tie)
            if np.isnan(val_loss[0]):  # the root: the whole tree is this one leaf
                val_loss[0] = as_leaf
            after = val_loss[0] - as_leaf + as_split
            reach = 0.0
            for t in range(vstart, vend):
                reach += vw[t]
            val.step_node[n_steps] = node
            val.step_weight[n_steps] = reach
            val.step_subtree[n_steps] = score_of(after, val_total, params.regression)
            val.step_leaf[n_steps] = score_of(val_loss[0], val_total, params.regression)
            val.step_pruned[n_steps] = not helps
            n_steps += 1
            if not helps:
                release(scr.hist, slot)
                continue
            val_loss[0] = after

        # ---- record the split and its children (``_with_room`` made room for them)
        first = n_nodes
        n_nodes += n_b
        n_pool = record_split(nodes, node, j, kind, threshold, n_b, first, cand.gain[j] * W,
                              params, feat, scr, sc, ch, n_s, m0, m1, pool, n_pool, sur, n_sur)
        n_sur += n_s
        add_children(nodes, node, first, n_b, ch)
        if params.monotonic.shape[0] > 0:
            child_bounds(nodes, node, first, n_b, constraint_of(params, j), seg, ch.c_start,
                         ch.c_end, params.regression)
        slot0, slot1 = np.int64(-1), np.int64(-1)
        # class histograms: CART's classifier, a binary split (``fit`` allows them for no other)
        if clf is not None and subset is not None and coded is not None and slot >= 0:
            if max(ch.c_end[0] - ch.c_start[0], ch.c_end[1] - ch.c_start[1]) < least:
                release(scr.hist, slot)  # two leaves: their codes were not partitioned
            else:
                slot0, slot1 = child_slots(scr.hist, slot, seg, ch.c_start, ch.c_end,
                                           params.n_classes)
        if pre:  # the children's validation rows
            split_holdout(vrow, vw, vstart, vend, vdir, ch.fractions[:n_b], vc_start[:n_b],
                          vc_end[:n_b], vs_i, vs_f, mw.fill)
        else:
            for b in range(n_b):
                vc_start[b], vc_end[b] = 0, 0
        if best_first:  # the children wait on the stack for their keys, branch 0 first
            n_leaves += n_b - 1
            for b in range(n_b - 1, -1, -1):
                c = first + b
                _, ok = _visit(nodes, c, seg, ch.c_start[b], ch.c_end[b], params, scr.ys, scr.ws,
                               reg, clf, r8)
                if ok:
                    _put(stack, top, c, ch.c_start[b], ch.c_end[b], vc_start[b], vc_end[b],
                         np.int64(-1))
                    top += 1
        else:
            for b in range(n_b - 1, -1, -1):  # branch 0 grows first
                c_slot = slot0 if b == 0 else (slot1 if b == 1 else np.int64(-1))
                _put(stack, top, first + b, ch.c_start[b], ch.c_end[b], vc_start[b], vc_end[b],
                     c_slot)
                top += 1
    state[TOP], state[N_HEAP], state[N_LEAVES] = top, n_heap, n_leaves
    state[N_NODES], state[N_POOL], state[N_SUR], state[N_STEPS] = n_nodes, n_pool, n_sur, n_steps
    return done


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _sift_down(heap, heap_key, n_heap):
    """Restore the heap order (smallest (key, node) first) from its root down."""
    node = heap.node
    i = 0
    while True:
        a, b = 2 * i + 1, 2 * i + 2
        m = i
        if a < n_heap and (heap_key[a] < heap_key[m] or (heap_key[a] == heap_key[m]
                                                         and node[a] < node[m])):
            m = a
        if b < n_heap and (heap_key[b] < heap_key[m] or (heap_key[b] == heap_key[m]
                                                         and node[b] < node[m])):
            m = b
        if m == i:
            break
        _swap(heap, heap_key, i, m)
        i = m


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _swap(heap, heap_key, i, m):
    heap_key[i], heap_key[m] = heap_key[m], heap_key[i]
    for a in heap:  # every field of the entries
        a[i], a[m] = a[m], a[i]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _push(heap, heap_key, n_heap, key, node, start, end, vstart, vend):
    """Add the entry of ``node`` with ``key`` to the heap (room made by the caller); returns
    its new size."""
    i = n_heap
    heap_key[i] = key
    _put(heap, i, node, start, end, vstart, vend, np.int64(-1))
    while i > 0:
        p = (i - 1) // 2
        if heap_key[i] < heap_key[p] or (heap_key[i] == heap_key[p]
                                         and heap.node[i] < heap.node[p]):
            _swap(heap, heap_key, i, p)
            i = p
        else:
            break
    return n_heap + 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _keep_pending(node, start, end, vstart, vend, slot, key, best_first, stack, top, heap,
                  heap_key, n_heap):
    """Put a popped node back, to be grown again once there is room: the heap pops by (key,
    node) alone, so the order of growth does not change. Returns (top, n_heap)."""
    if best_first:
        return top, _push(heap, heap_key, n_heap, key, node, start, end, vstart, vend)
    _put(stack, top, node, start, end, vstart, vend, slot)
    return top + 1, n_heap


def fit(rows, feat, params, holdout, layout, n_out, unit_input, train=None, presort=None,
        n_threads=1):
    """Everything a fit runs in numba, in a few calls from Python: the root's segments
    (``layout``: sorted columns, binned columns, which come from histogram bins, their codes, the
    most categories of any column and of a WIDE one), the working memory, and the growth.
    ``train``: the rows grown on, ascending ids of the rows of ``rows`` (None: all of them),
    read in place (a cross-validation fold copies none of the table), their words kept from
    ``presort`` (``presort.SharedPresort`` of rows.X) instead of sorted.
    Not one kernel around them: numba links and optimises a kernel together with everything
    it calls, so a wrapper kernel would compile the whole engine a second time (12 s of CPU).
    They release the GIL: cross-validation grows its folds on several threads, and a fit on
    ``n_threads`` grows the subtrees of one tree side by side (``subtrees``)."""
    from . import subtrees

    (sorted_columns, binned, from_bins, binned_codes, max_categories, max_wide) = layout
    n, d = rows.X.shape
    if train is None:
        # C4.5's copies of the rows without the tested value need room beyond n; this caller
        # holds the root's arrays for the whole fit, so a segment grown later would hold both
        # (1.46n positions at most on the benchmarks' mixed table of 10^6 rows). Pages never reached are
        # never resident.
        capacity = 2 * n if params.missing == FRACTIONAL else n
        if subtrees.defer_below(n, n_threads, params, holdout) > 0:  # capacity n
            seg = subtrees.root_segments_threaded(rows.X, rows.yc, rows.yr, rows.w,
                                                  sorted_columns, binned, from_bins,
                                                  binned_codes, feat.n_values, params.release8,
                                                  n_threads)
        else:
            seg = root_segments(rows.X, rows.yc, rows.yr, rows.w, sorted_columns, binned,
                                from_bins, binned_codes, feat.n_values, capacity,
                                params.release8)
        n_train = n
    else:
        words = kept_words(presort, rows.yc, train, n)
        seg = fold_segments(rows.X, rows.yc, rows.yr, rows.w, train, binned, from_bins,
                            binned_codes, feat.n_values, words)
        n_train = train.shape[0]
    width = 3 if params.regression else params.n_classes
    # class histograms hold counts only when every weight is 0 or 1 and stays so (not C4.5's
    # fractions); their children are the two of a binary split, grown depth-first
    histograms = (unit_input and not params.regression and params.missing != FRACTIONAL
                  and not params.multiway and params.max_leaf_nodes == 0)

    wide = wide_codes(rows.X, feat.search, WIDE) if max_wide > 0 else None

    def scratch():  # a thread's own working memory (``subtrees``)
        return new_scratch(n_train, d, params.n_classes, width, binned, feat.n_values,
                           max_categories, max_wide, seg.codes.shape[1], unit_input, histograms,
                           n, params.criterion == ENTROPY,
                           params.regression and (params.median
                                                  or params.criterion == ABSOLUTE_ERROR),
                           params.multiway or params.missing == FRACTIONAL, wide)

    return grow(rows, feat, params, holdout, seg, np.int64(n_train), scratch(), n_out,
                own_segment=True, n_threads=n_threads, new_scratch=scratch)
