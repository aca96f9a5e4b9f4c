"""The training cases at each node of a C4.5 tree being pruned, kept on one stack.

C4.5's pruning judges a node by the cases (rows, with their weights there) that reach it. A case
whose tested value is unknown goes down every branch v whose fraction r_v is above ``tol`` (J48's
``C45Split``), weighted w * r_v, where r_v is the branch's share of the known weight at the node
(equal shares when nothing is known). The cases of a node are a list in a fixed order, the order
C4.5's partition makes: first the cases sent down by their value, in the parent's order, then the
cases without a value, in the parent's order. Every sum (class counts, known weight per branch,
total weight) is taken in that order, so the numbers are the same, bit for bit, as a partition
of the rows done node by node.

The lists of a depth-first walk live on one stack (``CaseStack``) and cost memory in proportion to
the rows, not to rows x depth: when a node is split (``split_node``), the cases that do not go to
its heaviest branch are saved in a frame, the node's list is turned into the heaviest branch's
list in place, and the other branches' lists are written on top. The node's own list comes back
from its heaviest branch's list and the frame (``restore_cases``) when the pass needs it again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import THRESHOLD
from ..engine.arrays import grown
from ..engine.arrays import total as ordered_sum


class Cases(NamedTuple):
    """The training cases: encoded matrix, class codes and the number of classes."""

    X: np.ndarray  # float64 (n_rows, n_features), NaN = missing
    y: np.ndarray  # int64 class codes
    n_classes: int


class Tests(NamedTuple):
    """The tree being pruned, one entry per node of the grown tree (working copies: pruning turns
    nodes into leaves and moves tests up). A node is a leaf when it has no children."""

    feature: np.ndarray  # int32 (the Tree's dtypes: an unpruned tree has millions of nodes)
    kind: np.ndarray  # int8
    threshold: np.ndarray  # float64
    first_child: np.ndarray  # int32
    n_children: np.ndarray  # int32
    pool_offset: np.ndarray  # int32: a categorical test's branches, pool[offset + code]
    pool: np.ndarray  # int8, or int32 past 128 branches (``tree.narrowest_pool``)
    n_categories: np.ndarray  # int64, per feature


def tests_of(tree, *, copy: bool = True) -> Tests:
    """The tests of ``tree`` in the Tree's dtypes: copies, or the tree's own arrays (``copy=
    False``: the caller gives the tree up, ``error_based.Grown``)."""
    take = np.array if copy else np.asarray
    return Tests(take(tree.feature, dtype=np.int32), take(tree.kind, dtype=np.int8),
                 take(tree.threshold, dtype=np.float64),
                 *(take(a, dtype=np.int32) for a in (tree.first_child, tree.n_children,
                                                     tree.pool_offset)),
                 tree.pool, np.asarray(tree.n_categories, dtype=np.int64))


class NodeRecord(NamedTuple):
    """What each node's cases gave at its last visit, by node id. Counts of cases and branch
    numbers are int32: two records for every node of the unpruned tree (2.2 million at 10^6
    rows of the benchmarks' ``real_table``) were a large part of a C4.5 fit's peak memory."""

    counts: np.ndarray  # float64 (n_nodes, n_classes): weighted class counts
    n_positive: np.ndarray  # int32: cases of positive weight
    fraction: np.ndarray  # float64: r_v of the node's branch at its parent
    parent: np.ndarray  # int32
    estimate: np.ndarray  # float64: the subtree's estimate (the sum over its leaves)
    n_missing: np.ndarray  # int32: cases without a branch at the node's test
    whole: np.ndarray  # bool: every weight a whole number, so every sum is exact in any order
    missing_below: np.ndarray  # bool: some case lacks a branch at the node or below it
    largest: np.ndarray  # int32: the branch with the most weight (J48's maxBag)
    start: np.ndarray  # int64: where the node's list lies on the stack
    size: np.ndarray  # int64: its length


class CaseStack(NamedTuple):
    """Case lists (row, weight) and frames of saved cases (row, weight, position in the list,
    branch), both used as stacks; ``branch`` is scratch for one list's branches. Rows,
    positions and branches are int32 (a table of fewer than 2^31 rows)."""

    row: np.ndarray
    weight: np.ndarray
    saved_row: np.ndarray
    saved_weight: np.ndarray
    saved_rank: np.ndarray
    saved_branch: np.ndarray
    branch: np.ndarray


def new_record(n_nodes: int, n_classes: int) -> NodeRecord:
    i32 = np.int32
    return NodeRecord(np.zeros((n_nodes, n_classes)), np.zeros(n_nodes, dtype=i32),
                      np.ones(n_nodes), np.full(n_nodes, -1, dtype=i32), np.zeros(n_nodes),
                      np.zeros(n_nodes, dtype=i32), np.zeros(n_nodes, dtype=np.bool_),
                      np.zeros(n_nodes, dtype=np.bool_), np.zeros(n_nodes, dtype=i32),
                      np.zeros(n_nodes, dtype=np.int64), np.zeros(n_nodes, dtype=np.int64))


def new_stack(n_rows: int) -> CaseStack:
    """Room for the root's list twice over; the stack grows when missing values ask for more."""
    size = max(16, 2 * n_rows)
    i32 = np.int32
    return CaseStack(np.empty(size, dtype=i32), np.empty(size), np.empty(size, dtype=i32),
                     np.empty(size), np.empty(size, dtype=i32), np.empty(size, dtype=i32),
                     np.empty(max(1, n_rows), dtype=i32))


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def with_room(s, lists_end, frames_end):
    """``s`` with the list stack holding at least ``lists_end`` entries and the frame stack
    ``frames_end`` (doubling: amortised O(1) per entry)."""
    row, weight = s.row, s.weight
    if lists_end > row.shape[0]:
        row, weight = grown(row, lists_end), grown(weight, lists_end)
    saved_row, saved_weight, saved_rank, saved_branch = (s.saved_row, s.saved_weight, s.saved_rank,
                                                         s.saved_branch)
    if frames_end > saved_row.shape[0]:
        saved_row, saved_weight = grown(saved_row, frames_end), grown(saved_weight, frames_end)
        saved_rank, saved_branch = grown(saved_rank, frames_end), grown(saved_branch, frames_end)
    return CaseStack(row, weight, saved_row, saved_weight, saved_rank, saved_branch, s.branch)


@njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def branch_of_value(x, node, t):
    """The branch a value takes at ``node``'s test (``engine.partition.branch_of_rows``): x <= t
    is branch 0 of a threshold test, a category code its branch in the pool; -1 for a missing
    value or a category without a branch."""
    if np.isnan(x):
        return -1
    if t.kind[node] == THRESHOLD:
        return 0 if x <= t.threshold[node] else 1
    code = np.int64(x)
    if code < 0 or code >= t.n_categories[t.feature[node]]:
        return -1
    return np.int64(t.pool[t.pool_offset[node] + code])


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def record_cases(node, a, m, s, cases, rec):
    """Class counts and the number of positive weights of the list at s[a:a + m] into ``rec``;
    returns its total weight, added in order, and whether every weight is whole."""
    for k in range(cases.n_classes):
        rec.counts[node, k] = 0.0
    positive = 0
    whole = True
    for t in range(a, a + m):
        w = s.weight[t]
        rec.counts[node, cases.y[s.row[t]]] += w
        if w > 0:
            positive += 1
        if w != np.floor(w):
            whole = False
    rec.n_positive[node] = positive
    total = ordered_sum(s.weight[a:a + m])
    rec.whole[node] = whole and total < 2.0 ** 53
    return total


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def split_node(node, a, m, top, ftop, t, cases, s, rec, tol):
    """Split the list of ``node`` (s[a:a + m]) into its branches' lists.

    The fractions r_v come from the known weight per branch (summed in list order) over its numpy
    sum; a case without a branch goes to every branch with r_v > ``tol``. The heaviest branch (the
    longest list; the first on a tie) takes its list in place of the node's; the cases that do not
    go there are saved in a frame at saved[ftop:] with their positions and branches; the other
    branches' lists are written at top, in branch order. Each child's fraction, parent and
    list are recorded. Returns (heaviest branch, new top, new frame top, stack)."""
    nb = t.n_children[node]
    first = t.first_child[node]
    branch = s.branch
    known_w = np.zeros(nb)
    own = np.zeros(nb, dtype=np.int64)
    n_missing = 0
    for i in range(m):
        b = branch_of_value(cases.X[s.row[a + i], t.feature[node]], node, t)
        branch[i] = b
        if b >= 0:
            known_w[b] += s.weight[a + i]
            own[b] += 1
        else:
            n_missing += 1
    known = ordered_sum(known_w)
    fractions = np.empty(nb)
    for b in range(nb):  # a loop rather than known_w / known: the same divisions, less to compile
        fractions[b] = known_w[b] / known if known > 0 else 1.0 / nb
    heavy = 0
    longest = -1
    for b in range(nb):
        size = own[b] + (n_missing if fractions[b] > tol else 0)
        if size > longest:
            heavy, longest = b, size
    n_saved = m - own[heavy]
    light = 0
    for b in range(nb):
        if b != heavy:
            light += own[b] + (n_missing if fractions[b] > tol else 0)
    s = with_room(s, top + light, ftop + n_saved)
    # the frame: every case not in the heaviest branch, in list order
    missing = np.empty(n_missing, dtype=np.int64)  # where the cases without a branch are saved
    f = ftop
    j = 0
    for i in range(m):
        if branch[i] != heavy:
            s.saved_row[f] = s.row[a + i]
            s.saved_weight[f] = s.weight[a + i]
            s.saved_rank[f] = i
            s.saved_branch[f] = branch[i]
            if branch[i] < 0:
                missing[j] = f
                j += 1
            f += 1
    # the heaviest branch's list, in place: its own cases (moving down only), then the others
    pos = a
    for i in range(m):
        if branch[i] == heavy:
            s.row[pos] = s.row[a + i]
            s.weight[pos] = s.weight[a + i]
            pos += 1
    if fractions[heavy] > tol:
        r = fractions[heavy]
        for f in missing:
            s.row[pos] = s.saved_row[f]
            s.weight[pos] = s.saved_weight[f] * r
            pos += 1
    rec.start[first + heavy] = a
    rec.size[first + heavy] = pos - a
    # the other branches' lists, at top
    fill = np.empty(nb, dtype=np.int64)
    end = top
    for b in range(nb):
        if b == heavy:
            continue
        fill[b] = end
        rec.start[first + b] = end
        rec.size[first + b] = own[b] + (n_missing if fractions[b] > tol else 0)
        end += rec.size[first + b]
    for f in range(ftop, ftop + n_saved):
        b = s.saved_branch[f]
        if b >= 0:
            s.row[fill[b]] = s.saved_row[f]
            s.weight[fill[b]] = s.saved_weight[f]
            fill[b] += 1
    if n_missing > 0:
        for b in range(nb):
            if b == heavy or not fractions[b] > tol:
                continue
            r = fractions[b]
            for f in missing:
                s.row[fill[b]] = s.saved_row[f]
                s.weight[fill[b]] = s.saved_weight[f] * r
                fill[b] += 1
    for b in range(nb):
        c = first + b
        rec.fraction[c] = fractions[b]
        rec.parent[c] = node
    rec.n_missing[node] = n_missing
    return heavy, end, ftop + n_saved, s


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def restore_cases(a, m, ftop, n_saved, s):
    """The node's list back at s[a:a + m], from its heaviest branch's list (whose first
    m - n_saved cases are the node's own, in order, with their weights) and the frame at
    saved[ftop:ftop + n_saved]. Filled from the end, so nothing is read after it is overwritten."""
    f = ftop + n_saved - 1
    own = a + m - n_saved - 1
    for pos in range(m - 1, -1, -1):
        if f >= ftop and s.saved_rank[f] == pos:
            s.row[a + pos] = s.saved_row[f]
            s.weight[a + pos] = s.saved_weight[f]
            f -= 1
        else:
            s.row[a + pos] = s.row[own]
            s.weight[a + pos] = s.weight[own]
            own -= 1


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def child_order(k, nb, heavy):
    """The k-th branch to visit: the others in order, then the heaviest (its list lies below theirs
    on the stack, so it is walked once theirs are freed)."""
    if k == nb - 1:
        return heavy
    return k if k < heavy else k + 1
