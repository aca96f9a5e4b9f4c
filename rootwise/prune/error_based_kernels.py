"""The kernels of C4.5's error-based pruning (``error_based``): a depth-first walk over the flat
tree with the training cases of each node on one stack (``cases``), without recursion.

    prune_tree                   the bottom-up pruning with subtree raising
    route_cases                  the cases sent through a subtree as it stands, recording every
                                 node's counts, fractions and estimate (or training errors)
    raised_estimate_by_changes   a raised branch's estimate from the leaves that change
    number_nodes                 the pruned tree's nodes, numbered as a depth-first writer
                                 numbers them (``error_based`` writes the arrays with numpy)

A node's estimate is the sum of its branches' estimates in branch order, so every estimate is the
number a recursion over the nodes would compute. Few and large kernels: each compiled function
costs a fixed share of a cold start, whatever its size.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import LEAF
from ..engine.arrays import total as ordered_sum
from ..engine.criteria import impurity
from ..engine.j48 import SMALL
from ..engine.stats import total_and_errors
from .cases import (
    branch_of_value,
    child_order,
    record_cases,
    restore_cases,
    split_node,
    with_room,
)
from .pessimistic import leaf_estimate

SLACK = 0.1  # release 8 prefers the simpler tree unless it is worse by more than 0.1 case


class Settings(NamedTuple):
    confidence: float  # CF (a Java float's value with release 8, as J48 keeps it)
    z: float  # Phi^-1(1 - CF)
    tol: float  # a leaf weighing at most this estimates 0; a branch with r_v <= tol gets no
    #             case without a value (release 8: J48's 1e-6, else 0)
    release8: bool  # J48's tolerances in comparisons and its choice among equal branches
    raising: bool  # subtree raising


class Walk(NamedTuple):
    """The frames of a depth-first walk, one per node on the current path: the node, its list
    s[a:a + m], the next branch to visit (k: -1 before the node is split, n_children once its
    branches are done), its heaviest branch, the list top and frame top when it was reached, and
    the ends of its branches' lists and of its frame once it is split."""

    node: np.ndarray
    a: np.ndarray
    m: np.ndarray
    k: np.ndarray
    heavy: np.ndarray
    top: np.ndarray
    ftop: np.ndarray
    end: np.ndarray
    fend: np.ndarray


class Raising(NamedTuple):
    """Scratch of ``raised_estimate_by_changes``, by node id."""

    touched: np.ndarray  # bool: the node's estimate changes
    added: np.ndarray  # float64 (n_nodes, n_classes): a changed leaf's counts
    fresh: np.ndarray  # float64: the changed estimates
    order: np.ndarray  # int32: the touched nodes, leaves first


def new_walk(max_depth: int) -> Walk:
    """Frames for a tree of depth ``max_depth``: a frame per node on the pruning walk's path, and
    above them a frame per node on a routing walk's path (raising never deepens the tree)."""
    return Walk(*(np.zeros(2 * max_depth + 4, dtype=np.int64) for _ in Walk._fields))


def new_raising(n_nodes: int, n_classes: int) -> Raising:
    return Raising(np.zeros(n_nodes, dtype=np.bool_), np.zeros((n_nodes, n_classes)),
                   np.zeros(n_nodes), np.zeros(n_nodes, dtype=np.int32))


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def raised_estimate_by_changes(node, a, m, t, cases, s, rec, r, p):
    """The estimate of the largest branch's subtree if all of ``node``'s cases (s[a:a + m]) went
    into it, from what changes: (True, estimate), or (False, 0) when this way does not apply.

    It applies when every weight is whole (sums are then exact in any order) and no case lacks a
    branch at ``node`` or anywhere in that subtree: the branch's own cases then stay where they
    are with their weights, so only the leaves reached by the other cases change, and only the
    sums above them are added again. The result is the one routing every case would give."""
    big = t.first_child[node] + rec.largest[node]
    if not rec.whole[node] or rec.n_missing[node] > 0 or rec.missing_below[big]:
        return False, 0.0
    n_touched = 0
    ok = True
    for i in range(m):
        row = s.row[a + i]
        if branch_of_value(cases.X[row, t.feature[node]], node, t) == rec.largest[node]:
            continue
        cur = big
        while t.n_children[cur] > 0:
            b = branch_of_value(cases.X[row, t.feature[cur]], cur, t)
            if b < 0:
                ok = False
                break
            cur = t.first_child[cur] + b
        if not ok:
            break
        if not r.touched[cur]:
            r.touched[cur] = True
            r.order[n_touched] = cur
            n_touched += 1
            for k in range(cases.n_classes):
                r.added[cur, k] = rec.counts[cur, k]
        r.added[cur, cases.y[row]] += s.weight[a + i]
    if ok:
        # each changed leaf, then the sums above it again; the last time a sum is added up, every
        # branch below it is final, so each is the sum over its final branches, in branch order
        for j in range(n_touched):
            cur = r.order[j]
            r.fresh[cur] = leaf_estimate(r.added[cur], p.confidence, p.z, p.tol)
            while cur != big:
                cur = rec.parent[cur]
                if not r.touched[cur]:
                    r.touched[cur] = True
                    r.order[n_touched] = cur  # after the leaves: only to be cleared
                    n_touched += 1
                total = 0.0
                for c in range(t.first_child[cur], t.first_child[cur] + t.n_children[cur]):
                    total += r.fresh[c] if r.touched[c] else rec.estimate[c]
                r.fresh[cur] = total
    estimate = r.fresh[big] if ok and r.touched[big] else rec.estimate[big]
    for j in range(n_touched):
        r.touched[r.order[j]] = False
    return ok, estimate


@njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _push_branch(w, i, sp, t, rec):
    """Frame sp for the next branch of frame i's node (``child_order``)."""
    node, k = w.node[i], w.k[i]
    b = child_order(k, t.n_children[node], w.heavy[i])
    w.k[i] = k + 1
    c = t.first_child[node] + b
    w.node[sp], w.a[sp], w.m[sp], w.k[sp] = c, rec.start[c], rec.size[c], -1
    w.top[sp] = w.top[i] if b == w.heavy[i] else w.end[i]
    w.ftop[sp] = w.fend[i]
    return sp + 1


@njit(cache=True, no_cfunc_wrapper=True)
def route_cases(node, a, m, top, ftop, base, t, cases, s, into, w, errors, p):
    """Send the cases s[a:a + m] through the subtree of ``node`` as it stands, with frames from
    ``base`` up and free stack from ``top`` (frames from ``ftop``), recording every node's counts,
    fractions and estimate into ``into``: a leaf's training errors (``errors``, for release 8's
    collapse) or its ``leaf_estimate``; a split's, the sum of its branches'. Returns the stack.

    A loop of its own (not frames of ``prune_tree``'s loop) so that each loop writes one record
    it is given: choosing the record per frame cost a reference count per array per step, about
    a third of the pruning's time."""
    w.node[base], w.a[base], w.m[base], w.k[base] = node, a, m, -1
    w.top[base], w.ftop[base] = top, ftop
    sp = base + 1
    while sp > base:
        i = sp - 1
        node = w.node[i]
        if w.k[i] < 0:  # the node is reached: count its cases and split them
            record_cases(node, w.a[i], w.m[i], s, cases, into)
            if t.n_children[node] == 0:
                if errors:
                    into.estimate[node] = total_and_errors(into.counts[node])[1]
                else:
                    into.estimate[node] = leaf_estimate(into.counts[node], p.confidence, p.z,
                                                        p.tol)
                into.missing_below[node] = False
                sp -= 1
                continue
            heavy, end, fend, s = split_node(node, w.a[i], w.m[i], w.top[i], w.ftop[i], t, cases,
                                             s, into, p.tol)
            w.heavy[i], w.end[i], w.fend[i], w.k[i] = heavy, end, fend, 0
        nb = t.n_children[node]
        if w.k[i] < nb:
            sp = _push_branch(w, i, sp, t, into)
            continue
        as_tree = 0.0
        for c in range(t.first_child[node], t.first_child[node] + nb):
            as_tree += into.estimate[c]
        into.estimate[node] = as_tree
        sp -= 1
    return s


@njit(cache=True, no_cfunc_wrapper=True)
def prune_tree(n_rows, t, cases, s, rec, scratch, w, r, p):
    """C4.5's pruning, bottom-up, in a depth-first walk with the cases s[0:n_rows] at the root.

    After its branches are pruned, a node is compared as a leaf (``leaf_estimate`` of its
    counts), as its subtree (the sum of its branches' estimates) and, with raising, as its
    largest branch receiving all its cases. It becomes a leaf when that is not worse than both
    others (0.1 case slack), else the largest branch takes its place when that is not worse than
    the subtree, and the node, with the raised test and all its cases, is pruned again from the
    start. With raising, each node's list is put back (``restore_cases``) before its walk
    returns, for its parent may send it into another subtree. The raised branch's estimate comes
    from ``raised_estimate_by_changes`` when it applies, else from a copy of the cases routed
    through the branch's subtree (``route_cases`` into ``scratch``). Returns the stack."""
    w.node[0], w.a[0], w.m[0], w.k[0] = 0, 0, n_rows, -1
    w.top[0], w.ftop[0] = n_rows, 0
    sp = np.int64(1)  # not a literal, which would compile ``route_cases`` twice
    while sp > 0:
        i = sp - 1
        node = w.node[i]
        if w.k[i] < 0:  # the node is reached: count its cases and split them
            total = record_cases(node, w.a[i], w.m[i], s, cases, rec)
            if t.n_children[node] == 0:
                rec.estimate[node] = leaf_estimate(rec.counts[node], p.confidence, p.z, p.tol)
                rec.missing_below[node] = False
                sp -= 1
                continue
            heavy, end, fend, s = split_node(node, w.a[i], w.m[i], w.top[i], w.ftop[i], t, cases,
                                             s, rec, p.tol)
            w.heavy[i], w.end[i], w.fend[i], w.k[i] = heavy, end, fend, 0
            # the branch with the most weight, r_v W (J48's maxBag): on a tie the first, with
            first = t.first_child[node]  # release 8 the last
            best, most = 0, -1.0
            for b in range(t.n_children[node]):
                size = rec.fraction[first + b] * total
                if size > most or (p.release8 and most - size < SMALL):
                    best, most = b, size
            rec.largest[node] = best
        nb = t.n_children[node]
        first = t.first_child[node]
        if w.k[i] < nb:
            sp = _push_branch(w, i, sp, t, rec)
            continue
        as_tree = 0.0
        for c in range(first, first + nb):
            as_tree += rec.estimate[c]
        a, m = w.a[i], w.m[i]
        as_leaf = leaf_estimate(rec.counts[node], p.confidence, p.z, p.tol)
        big = first + rec.largest[node]
        as_big = np.inf
        if p.raising:
            restore_cases(a, m, w.ftop[i], w.fend[i] - w.ftop[i], s)
            if t.n_children[big] == 0:
                as_big = as_leaf  # the branch as a leaf holding all the node's cases
            else:
                done, as_big = raised_estimate_by_changes(node, a, m, t, cases, s, rec, r, p)
                if not done:  # route a copy of the cases through the branch's subtree
                    top = w.top[i]
                    s = with_room(s, top + m, w.fend[i])
                    for j in range(m):
                        s.row[top + j] = s.row[a + j]
                        s.weight[top + j] = s.weight[a + j]
                    s = route_cases(big, top, m, top + m, w.fend[i], sp, t, cases, s, scratch, w,
                                    np.bool_(False), p)
                    as_big = scratch.estimate[big]
        # not worse: a <= b + 0.1 case (release 8: within J48's 1e-6 too)
        if p.release8:
            leaf_wins = as_leaf - (as_tree + SLACK) < SMALL and as_leaf - (as_big + SLACK) < SMALL
            raise_wins = as_big - (as_tree + SLACK) < SMALL
        else:
            leaf_wins = as_leaf <= as_tree + SLACK and as_leaf <= as_big + SLACK
            raise_wins = as_big <= as_tree + SLACK
        if leaf_wins:
            t.n_children[node] = 0
            t.kind[node] = LEAF
            rec.estimate[node] = as_leaf
            rec.missing_below[node] = False
            sp -= 1
        elif raise_wins:
            # subtree raising: the largest branch's test replaces the node's; prune it again
            t.feature[node] = t.feature[big]
            t.kind[node] = t.kind[big]
            t.threshold[node] = t.threshold[big]
            t.pool_offset[node] = t.pool_offset[big]
            t.first_child[node] = t.first_child[big]
            t.n_children[node] = t.n_children[big]
            w.k[i] = -1
        else:
            rec.estimate[node] = as_tree
            below = rec.n_missing[node] > 0
            for c in range(first, first + nb):
                below = below or rec.missing_below[c]
            rec.missing_below[node] = below
            sp -= 1
    return s


@njit(cache=True, no_cfunc_wrapper=True)
def number_nodes(first_child, n_children, counts, criterion):
    """The nodes reachable from the root, numbered as a depth-first writer numbers them: a node's
    children get consecutive ids when the node is written, and its first child is written next.
    Per new id: the node it was (``origin``), its parent and depth, its first child's new id (-1
    for a leaf), the node whose class counts are its value (its own; for a node without cases,
    its parent's value: TreeGenerate's empty branch) and the impurity of that value; and the new ids
    in the order they are written (``written``: where categorical tests add to the pool)."""
    n_nodes = first_child.shape[0]
    stack = np.empty(n_nodes, dtype=np.int64)
    stack[0] = 0
    top = 1
    count = 0
    while top > 0:
        top -= 1
        node = stack[top]
        count += 1
        for c in range(first_child[node], first_child[node] + n_children[node]):
            stack[top] = c
            top += 1
    origin = np.empty(count, dtype=np.int64)
    parent = np.empty(count, dtype=np.int64)
    depth = np.empty(count, dtype=np.int64)
    first = np.empty(count, dtype=np.int64)
    source = np.empty(count, dtype=np.int64)
    node_impurity = np.empty(count)
    written = np.empty(count, dtype=np.int64)
    origin[0], parent[0], depth[0] = 0, -1, 0
    next_id = 1
    stack[0] = 0  # new ids now
    top = 1
    n_written = 0
    while top > 0:
        top -= 1
        nid = stack[top]
        written[n_written] = nid
        n_written += 1
        node = origin[nid]
        if nid == 0 or ordered_sum(counts[node]) > 0:
            source[nid] = node
        else:
            source[nid] = source[parent[nid]]
        node_impurity[nid] = impurity(counts[source[nid]], criterion)
        nb = n_children[node]
        first[nid] = next_id if nb > 0 else -1
        for b in range(nb):
            origin[next_id + b] = first_child[node] + b
            parent[next_id + b] = nid
            depth[next_id + b] = depth[nid] + 1
        for b in range(nb - 1, -1, -1):
            stack[top] = next_id + b
            top += 1
        next_id += nb
    return origin, parent, depth, first, source, node_impurity, written
