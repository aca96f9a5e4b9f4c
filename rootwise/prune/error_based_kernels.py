"""The kernels of C4.5's error-based pruning (``error_based``): depth-first walks over the flat
tree with the training cases of each node on one stack (``cases``), without recursion.

    route_estimate   send a list of cases through a subtree as it stands, recording each node's
                     counts and fractions, and add up its leaves' values (pessimistic estimates,
                     or training errors for release 8's collapse) subtree by subtree
    prune_tree       the bottom-up pruning with subtree raising
    collapse_tree    release 8's collapse, from the subtrees' training errors
    write_tree       the pruned tree as flat arrays, numbered as a depth-first writer numbers them

A node's estimate is the sum of its branches' estimates in branch order, so every estimate is the
number a recursion over the nodes would compute.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._config import LEAF, MISSING_FRACTIONAL
from ..engine.candidates import numpy_sum, total_and_errors
from ..engine.criteria import impurity
from ..engine.release8 import SMALL
from .cases import branch_of_value, child_order, record_cases, restore_cases, split_node, with_room
from .pessimistic import leaf_estimate

SLACK = 0.1  # release 8 prefers the simpler tree unless it is worse by more than 0.1 case
COLLAPSE_SLACK = 1e-3  # J48's collapse: subtree errors >= leaf errors - 1e-3


class Settings(NamedTuple):
    confidence: float  # CF (a Java float's value with release 8, as J48 keeps it)
    z: float  # Phi^-1(1 - CF)
    tol: float  # a leaf weighing at most this estimates 0; a branch with r_v <= tol gets no
    #             case without a value (release 8: J48's 1e-6, else 0)
    release8: bool  # J48's tolerances in comparisons and its choice among equal branches
    raising: bool  # subtree raising


class Walk(NamedTuple):
    """The frames of a depth-first walk, one per node on the current path: the node, its list
    s[a:a + m], the next branch to visit (k, -1 before the node is split), its heaviest branch,
    the list top and frame top when it was reached, and the ends of its branches' lists and of its
    frame once it is split."""

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

    touched: np.ndarray  # bool
    added: np.ndarray  # float64 (n_nodes, n_classes): counts the raised cases add to a leaf
    fresh: np.ndarray  # float64: the changed estimates
    order: np.ndarray  # int64: the touched nodes


def new_walk(n_nodes: int) -> Walk:
    return Walk(*(np.zeros(n_nodes + 1, dtype=np.int64) for _ in Walk._fields))


def new_raising(n_nodes: int, n_classes: int) -> Raising:
    return Raising(np.zeros(n_nodes, dtype=np.bool_), np.zeros((n_nodes, n_classes)),
                   np.zeros(n_nodes), np.zeros(n_nodes, dtype=np.int64))


@njit(cache=True)
def _push(w, sp, node, a, m, top, ftop):
    w.node[sp] = node
    w.a[sp] = a
    w.m[sp] = m
    w.k[sp] = -1
    w.top[sp] = top
    w.ftop[sp] = ftop
    return sp + 1


@njit(cache=True)
def _push_child(w, i, t, rec, sp):
    """Push the next branch of frame i; its list lies on top of the frame's lists, or in place of
    the node's for the heaviest branch (visited last, once the others' lists are freed)."""
    node = w.node[i]
    b = child_order(w.k[i], t.n_children[node], w.heavy[i])
    w.k[i] += 1
    c = t.first_child[node] + b
    top = w.top[i] if b == w.heavy[i] else w.end[i]
    return _push(w, sp, c, rec.start[c], rec.size[c], top, w.fend[i])


@njit(cache=True)
def _branches_sum(node, t, rec):
    """The sum of the estimates of ``node``'s branches, in branch order."""
    total = 0.0
    first = t.first_child[node]
    for c in range(first, first + t.n_children[node]):
        total += rec.estimate[c]
    return total


@njit(cache=True)
def route_estimate(root, a, m, top, ftop, t, cases, s, rec, w, p, pessimistic):
    """Send the list s[a:a + m] through the subtree of ``root`` as it stands (nothing is changed
    but ``rec`` and the stack above ``top`` / ``ftop``). Every node's counts, fractions and
    estimate go into ``rec``: a leaf's estimate is ``leaf_estimate`` (``pessimistic``) or its
    training errors (the weight outside its majority class), a split's the sum of its branches'.
    Returns (the root's estimate, stack)."""
    sp = _push(w, 0, root, a, m, top, ftop)
    while sp > 0:
        i = sp - 1
        node = w.node[i]
        if w.k[i] < 0:
            record_cases(node, w.a[i], w.m[i], s, cases, rec)
            if t.n_children[node] == 0:
                if pessimistic:
                    rec.estimate[node] = leaf_estimate(rec.counts[node], p.confidence, p.z, p.tol)
                else:
                    rec.estimate[node] = total_and_errors(rec.counts[node])[1]
                sp -= 1
                continue
            heavy, end, fend, s = split_node(node, w.a[i], w.m[i], w.top[i], w.ftop[i], t, cases,
                                             s, rec, p.tol)
            w.heavy[i], w.end[i], w.fend[i], w.k[i] = heavy, end, fend, 0
        if w.k[i] < t.n_children[node]:
            sp = _push_child(w, i, t, rec, sp)
        else:
            rec.estimate[node] = _branches_sum(node, t, rec)
            sp -= 1
    return rec.estimate[root], s


@njit(cache=True)
def _not_worse(a, b, release8):
    """a <= b + 0.1 case (release 8: within J48's 1e-6 too)."""
    if release8:
        return a - (b + SLACK) < SMALL
    return a <= b + SLACK


@njit(cache=True)
def _largest_branch(node, total, t, rec, release8):
    """The branch with the most weight, r_v * W (unknown cases spread by the fractions); on a tie
    the first, or with release 8 the last (J48's ``maxBag``)."""
    first = t.first_child[node]
    best = 0
    most = -1.0
    if not release8:
        for b in range(t.n_children[node]):
            size = rec.fraction[first + b] * total
            if size > most:
                best, most = b, size
        return best
    best, most = -1, 0.0
    for b in range(t.n_children[node]):
        size = rec.fraction[first + b] * total
        if most - size < SMALL:
            best, most = b, size
    return best


@njit(cache=True)
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
                r.added[cur, k] = 0.0
        r.added[cur, cases.y[row]] += s.weight[a + i]
    if ok:
        n_leaves = n_touched
        for j in range(n_leaves):  # the leaves' ancestors up to the branch
            cur = r.order[j]
            r.fresh[cur] = leaf_estimate(rec.counts[cur] + r.added[cur], p.confidence, p.z, p.tol)
            while cur != big:
                cur = rec.parent[cur]
                if r.touched[cur]:
                    break
                r.touched[cur] = True
                r.order[n_touched] = cur
                n_touched += 1
        splits = r.order[n_leaves:n_touched]
        for j in np.argsort(-rec.depth[splits]):  # deepest first: branches before their node
            cur = splits[j]
            total = 0.0
            first = t.first_child[cur]
            for c in range(first, first + t.n_children[cur]):
                total += r.fresh[c] if r.touched[c] else rec.estimate[c]
            r.fresh[cur] = total
    estimate = r.fresh[big] if r.touched[big] else rec.estimate[big]
    for j in range(n_touched):
        r.touched[r.order[j]] = False
    return ok, estimate


@njit(cache=True)
def prune_tree(n_rows, t, cases, s, rec, scratch, w, route_walk, r, p):
    """C4.5's pruning of the tree, bottom-up from the cases s[0:n_rows] at the root.

    After its branches are pruned, a node is compared as a leaf (``leaf_estimate`` of its counts),
    as its subtree (the sum of its branches' estimates) and, with raising, as its largest branch
    receiving all its cases. It becomes a leaf when that is not worse than both others (0.1 case
    slack), else the largest branch takes its place when that is not worse than the subtree, and
    the node, with the raised test and all its cases, is pruned again from the start.

    With raising, each node's list is put back (``restore_cases``) before its walk returns, for
    its parent may send it into another subtree. Returns the stack."""
    sp = _push(w, 0, 0, 0, n_rows, n_rows, 0)
    while sp > 0:
        i = sp - 1
        node = w.node[i]
        if w.k[i] < 0:
            total = record_cases(node, w.a[i], w.m[i], s, cases, rec)
            if t.n_children[node] == 0:
                rec.estimate[node] = leaf_estimate(rec.counts[node], p.confidence, p.z, p.tol)
                rec.missing_below[node] = False
                sp -= 1
                continue
            heavy, end, fend, s = split_node(node, w.a[i], w.m[i], w.top[i], w.ftop[i], t, cases,
                                             s, rec, p.tol)
            w.heavy[i], w.end[i], w.fend[i], w.k[i] = heavy, end, fend, 0
            rec.largest[node] = _largest_branch(node, total, t, rec, p.release8)
        if w.k[i] < t.n_children[node]:
            sp = _push_child(w, i, t, rec, sp)
            continue
        a, m = w.a[i], w.m[i]
        as_tree = _branches_sum(node, t, rec)
        as_leaf = leaf_estimate(rec.counts[node], p.confidence, p.z, p.tol)
        big = t.first_child[node] + rec.largest[node]
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
                    as_big, s = route_estimate(big, top, m, top + m, w.fend[i], t, cases, s,
                                               scratch, route_walk, p, True)
        if _not_worse(as_leaf, as_tree, p.release8) and _not_worse(as_leaf, as_big, p.release8):
            t.n_children[node] = 0
            t.kind[node] = LEAF
            rec.estimate[node] = as_leaf
            rec.missing_below[node] = False
            sp -= 1
        elif _not_worse(as_big, as_tree, p.release8):
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
            first = t.first_child[node]
            for c in range(first, first + t.n_children[node]):
                below = below or rec.missing_below[c]
            rec.missing_below[node] = below
            sp -= 1
    return s


@njit(cache=True)
def collapse_subtrees(t, rec):
    """Release 8's collapse, top-down: a split whose subtree makes at least as many training errors
    (``rec.estimate``, from ``route_estimate`` with training errors) as the node would as a leaf,
    within 1e-3, becomes that leaf; its descendants are not judged."""
    stack = np.empty(t.feature.shape[0], dtype=np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if t.n_children[node] == 0:
            continue
        if rec.estimate[node] >= total_and_errors(rec.counts[node])[1] - COLLAPSE_SLACK:
            t.n_children[node] = 0
            t.kind[node] = LEAF
            continue
        first = t.first_child[node]
        for c in range(first, first + t.n_children[node]):
            stack[top] = c
            top += 1


@njit(cache=True)
def write_tree(t, rec, criterion):
    """The tree reachable from the root as flat node arrays (``Tree``'s fields), numbered as a
    depth-first writer numbers them: a node's children get consecutive ids when the node is
    written, and the first child is written next. A node's value is its class counts; a node
    without cases takes its parent's (seed 000's empty branch). Returns (fields as a tuple in the
    order of ``WRITTEN``, value, pool)."""
    n_nodes = t.feature.shape[0]
    n_classes = rec.counts.shape[1]
    # how many nodes and pool entries the tree has now
    stack = np.empty(n_nodes, dtype=np.int64)
    stack[0] = 0
    top = 1
    count = 0
    pool_size = 0
    while top > 0:
        top -= 1
        node = stack[top]
        count += 1
        if t.n_children[node] > 0:
            if t.pool_offset[node] >= 0:
                pool_size += t.n_categories[t.feature[node]]
            for c in range(t.first_child[node], t.first_child[node] + t.n_children[node]):
                stack[top] = c
                top += 1
    feature = np.full(count, -1, dtype=np.int64)
    kind = np.full(count, LEAF, dtype=np.int64)
    threshold = np.full(count, np.nan)
    first_child = np.full(count, -1, dtype=np.int64)
    n_children = np.zeros(count, dtype=np.int64)
    pool_offset = np.full(count, -1, dtype=np.int64)
    missing_branch = np.full(count, -1, dtype=np.int64)  # MISSING_STOP for leaves
    parent = np.full(count, -1, dtype=np.int64)
    depth = np.zeros(count, dtype=np.int64)
    node_impurity = np.zeros(count)
    n_node_samples = np.zeros(count, dtype=np.int64)
    weighted = np.zeros(count)
    branch_fraction = np.ones(count)
    value = np.zeros((count, n_classes))
    pool = np.empty(pool_size, dtype=np.int32)
    origin = np.empty(count, dtype=np.int64)  # the node each new id was made from
    origin[0] = 0
    next_id = 1
    used_pool = 0
    stack[0] = 0  # new ids now
    top = 1
    while top > 0:
        top -= 1
        nid = stack[top]
        node = origin[nid]
        counts = rec.counts[node]
        total = numpy_sum(counts)
        if total > 0 or nid == 0:
            for k in range(n_classes):
                value[nid, k] = counts[k]
        else:
            for k in range(n_classes):
                value[nid, k] = value[parent[nid], k]
        node_impurity[nid] = impurity(value[nid], criterion)
        n_node_samples[nid] = rec.n_positive[node]
        weighted[nid] = total
        nb = t.n_children[node]
        if nb == 0:
            continue
        first = t.first_child[node]
        for b in range(nb):
            c = next_id + b
            origin[c] = first + b
            parent[c] = nid
            depth[c] = depth[nid] + 1
            branch_fraction[c] = rec.fraction[first + b]
        feature[nid] = t.feature[node]
        kind[nid] = t.kind[node]
        threshold[nid] = t.threshold[node]
        first_child[nid] = next_id
        n_children[nid] = nb
        missing_branch[nid] = MISSING_FRACTIONAL
        if t.pool_offset[node] >= 0:
            pool_offset[nid] = used_pool
            for code in range(t.n_categories[t.feature[node]]):
                pool[used_pool] = t.pool[t.pool_offset[node] + code]
                used_pool += 1
        for b in range(nb - 1, -1, -1):
            stack[top] = next_id + b
            top += 1
        next_id += nb
    return ((feature, kind, threshold, first_child, n_children, pool_offset, missing_branch,
             parent, depth, node_impurity, n_node_samples, weighted, branch_fraction), value, pool)


# the node fields ``write_tree`` returns, in its order
WRITTEN = ("feature", "kind", "threshold", "first_child", "n_children", "pool_offset",
           "missing_branch", "parent", "depth", "impurity", "n_node_samples",
           "weighted_n_node_samples", "branch_fraction")
