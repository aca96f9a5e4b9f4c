"""The test oracle for rootwise.prune.error_based: the former implementation, kept as it was (a
Python recursion over mutable nodes that routes rows with the reference ``Splitter``). The
compiled passes must give the same trees, bit for bit (tests/test_prune_error_based.py).

C4.5's error-based (pessimistic) pruning with subtree raising (Quinlan 1993, ch. 4), and release
8's collapse of subtrees that do not lower the training error, as J48 does them
(``C45PruneableClassifierTree`` in Weka 3.6).

A leaf holding N training cases (weighted, fractional) with E errors is expected to make
E + pessimistic_errors(N, E, CF) errors on unseen cases. Bottom-up, after its branches have been
pruned, each node is compared as
  - a leaf:                       the estimate for its own class distribution;
  - its subtree:                  the sum of the estimates of its leaves;
  - its largest branch (raising): that branch's subtree with all the node's cases sent into it.
The node becomes a leaf if that is no worse than both others (within 0.1 case, as release 8 and
J48 do), else it is replaced by its largest branch if that is no worse than the subtree; the
raised subtree then takes all the node's cases and is pruned again.

Every node keeps, as J48 does, the rows that reach it with their weights there (``data``) and the
fractions r_v with which a row whose tested value is unknown goes down each branch
(``fractions``). When cases are moved (raising), the fractions are recomputed from the known values
of the rows that now reach the node (J48's ``C45Split.resetDistribution``). ``release8`` uses
J48's tolerances: a branch with r_v <= 1e-6 receives no unknown rows, comparisons allow 1e-6, and
of equally large branches the last one is raised.

Collapse (``collapse=True``, J48 always does it, before pruning): top-down, a subtree whose leaves
make at least as many training errors as its root would as a leaf (within 1e-3) becomes that leaf.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rootwise._config import LEAF, MISSING_FRACTIONAL
from rootwise.engine.arrays import copy_into, grown
from rootwise.engine.arrays import total as ordered_sum
from rootwise.engine.criteria import impurity
from rootwise.engine.j48 import SMALL
from rootwise.engine.partition import branch_of_rows
from rootwise.engine.stats import class_counts, total_and_errors
from rootwise.reference.splitter import NodeData, Splitter, branch_fractions
from rootwise.tree import Tree
from rootwise.tree.records import NodeRecords

SLACK = 0.1  # release 8 prefers the simpler tree unless it is worse by more than 0.1 case
COLLAPSE_SLACK = 1e-3  # J48's collapse: subtree errors >= leaf errors - 1e-3


@njit(cache=True)
def split_own_then_missing(idx, w, branch, fractions, receives):
    """The former partition order the pruning still keeps (``prune.cases``): each branch's own
    rows in node order, then, where it receives them, the rows without a branch, weighted
    w * r_v."""
    n_branches = fractions.shape[0]
    n = idx.shape[0]
    size = np.zeros(n_branches, dtype=np.int64)
    n_lost = 0
    for t in range(n):
        if branch[t] >= 0:
            size[branch[t]] += 1
        else:
            n_lost += 1
    offsets = np.zeros(n_branches + 1, dtype=np.int64)
    for b in range(n_branches):
        offsets[b + 1] = offsets[b] + size[b] + (n_lost if receives[b] else 0)
    out_idx = np.empty(offsets[n_branches], dtype=idx.dtype)
    out_w = np.empty(offsets[n_branches])
    fill = offsets[:n_branches].copy()
    for t in range(n):
        b = branch[t]
        if b >= 0:
            out_idx[fill[b]] = idx[t]
            out_w[fill[b]] = w[t]
            fill[b] += 1
    if n_lost > 0:
        for b in range(n_branches):
            if not receives[b]:
                continue
            for t in range(n):
                if branch[t] < 0:
                    out_idx[fill[b]] = idx[t]
                    out_w[fill[b]] = w[t] * fractions[b]
                    fill[b] += 1
    return out_idx, out_w, offsets


@njit(cache=True)
def subtree_leaf_counts(X, y, idx, w, feature, kind, threshold, first_child, n_children, pool,
                        pool_offset, pool_size, tol, n_classes):
    """The rows (idx, w) sent through a subtree as C4.5's pruning sends them, and the class counts
    each leaf gets. The subtree is given breadth-first (node 0 its root, a node's children
    consecutive from first_child); a node's test is that of ``branch_of_rows`` (categories:
    pool[pool_offset:pool_offset + pool_size]). At every split node the fractions r_v come from
    the known weight of the rows reaching it, r_v = known_v / sum_v known_v as numpy sums (equal
    shares when nothing is known), and a row without a branch goes down every branch with
    r_v > tol, weighted w * r_v (``split_own_then_missing``). Row counts[i] is leaf i's ``class_counts``, the
    rows added in the order ``split_rows`` lays them out; rows of split nodes are left at 0."""
    n_nodes = feature.shape[0]
    counts = np.zeros((n_nodes, n_classes))
    start = np.zeros(n_nodes, dtype=np.int64)
    stop = np.zeros(n_nodes, dtype=np.int64)
    rows = np.empty(max(16, 2 * idx.shape[0]), dtype=idx.dtype)
    weights = np.empty(rows.shape[0])
    copy_into(rows, np.int64(0), idx)  # loops, not slice assignments: see ``arrays``
    copy_into(weights, np.int64(0), w)
    stop[0] = used = idx.shape[0]
    for i in range(n_nodes):  # breadth-first: a node's rows are known before its children's
        if n_children[i] == 0:
            for t in range(start[i], stop[i]):
                counts[i, y[rows[t]]] += weights[t]
            continue
        node_idx = rows[start[i]:stop[i]].copy()
        node_w = weights[start[i]:stop[i]].copy()
        n_b = n_children[i]
        categories = pool[pool_offset[i]:pool_offset[i] + pool_size[i]]
        branch, known_w = branch_of_rows(X, feature[i], kind[i], threshold[i], categories,
                                         node_idx, node_w, n_b)
        total = ordered_sum(known_w)
        if total > 0:
            fractions = known_w / total
        else:
            fractions = np.full(n_b, 1.0 / n_b)
        part_idx, part_w, offsets = split_own_then_missing(node_idx, node_w, branch, fractions,
                                                           fractions > tol)
        if used + part_idx.shape[0] > rows.shape[0]:  # grow the buffers
            size = max(2 * rows.shape[0], used + part_idx.shape[0])
            rows, weights = grown(rows, size), grown(weights, size)
        copy_into(rows, used, part_idx)
        copy_into(weights, used, part_w)
        for b in range(n_b):
            start[first_child[i] + b] = used + offsets[b]
            stop[first_child[i] + b] = used + offsets[b + 1]
        used += part_idx.shape[0]
    return counts


def pessimistic_errors(n: float, e: float, confidence: float) -> float:
    """Extra errors C4.5 adds to the e training errors of a leaf holding n (weighted) cases: the
    upper limit of the binomial confidence interval at level ``confidence`` (CF, default 0.25),
    minus e. Quinlan (1993) §4.2; for e < 1 it interpolates between the exact e = 0 bound
    n (1 - CF^(1/n)) and the e = 1 value, as release 8 does.

        f = (e + 0.5) / n,  z = Phi^-1(1 - CF)
        U = (f + z^2/2n + z sqrt(f/n - f^2/n + z^2/4n^2)) / (1 + z^2/n)   ->   n U - e
    """
    if n <= 0:
        return 0.0
    if e < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if e == 0:
            return base
        return base + e * (pessimistic_errors(n, 1.0, confidence) - base)
    if e + 0.5 >= n:
        return max(n - e, 0.0)
    z = _normal_quantile(1.0 - confidence)
    f = (e + 0.5) / n
    r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
    return r * n - e


def _normal_quantile(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


class _Node:
    """A mutable node used only while pruning (the fitted model keeps flat arrays)."""

    __slots__ = ("feature", "kind", "threshold", "branch_of_category", "children", "fractions",
                 "_data", "counts")

    def __init__(self, feature, kind, threshold, branch_of_category, children, fractions, data):
        self.feature = feature
        self.kind = kind
        self.threshold = threshold
        self.branch_of_category = branch_of_category
        self.children = children  # None for a leaf
        self.fractions = fractions  # r_v per branch (split nodes)
        self.data = data  # rows reaching the node and their weights here

    @property
    def data(self) -> NodeData:
        return self._data

    @data.setter
    def data(self, data: NodeData) -> None:
        self._data = data
        self.counts = None  # class counts of ``data``, filled in by C45Tree.node_counts

    @property
    def n_branches(self) -> int:
        return len(self.children)

    def make_leaf(self) -> None:
        self.children = None
        self.fractions = None
        self.kind, self.feature, self.threshold, self.branch_of_category = LEAF, -1, np.nan, None

    def take_test_of(self, other: _Node) -> None:
        self.feature, self.kind, self.threshold = other.feature, other.kind, other.threshold
        self.branch_of_category, self.children = other.branch_of_category, other.children
        self.fractions = other.fractions


class C45Tree:
    """The tree being pruned, with the training rows that were used to grow it."""

    def __init__(self, splitter: Splitter, confidence: float, subtree_raising: bool,
                 release8: bool):
        self.sp = splitter
        # J48 keeps CF as a Java float
        self.cf = float(np.float32(confidence)) if release8 else float(confidence)
        self.raising = subtree_raising
        self.release8 = release8
        self.tol = SMALL if release8 else 0.0
        self._estimates: dict[tuple[float, float], float] = {}  # see leaf_errors

    # ----------------------------------------------------------------- rows and weights
    def counts(self, data: NodeData) -> np.ndarray:
        return class_counts(self.sp.y, data.idx, data.w, self.sp.n_classes)

    def node_counts(self, node: _Node) -> np.ndarray:
        """``counts(node.data)``, kept on the node until its rows change."""
        if node.counts is None:
            node.counts = self.counts(node.data)
        return node.counts

    def send(self, node: _Node, data: NodeData) -> tuple[np.ndarray, list[NodeData]]:
        """``data`` sent through ``node``'s test: the fractions r_v, from the known values of
        ``data`` (equal shares when none is known; J48's ``C45Split.resetDistribution`` when
        cases move), and the rows of each branch: known values by the test, unknown ones down
        every branch whose fraction is positive (release8: above 1e-6) with weight w * r_v."""
        branch, known_w = self.sp.route(node, data.idx, data.w)
        fractions = branch_fractions(known_w)
        idx, w, offsets = split_own_then_missing(data.idx, np.ascontiguousarray(data.w), branch,
                                                 fractions, fractions > self.tol)
        bounds = offsets.tolist()
        return fractions, [NodeData(idx[a:b], w[a:b]) for a, b in zip(bounds[:-1], bounds[1:],
                                                                     strict=True)]

    # ----------------------------------------------------------------- the grown tree
    def load(self, tree: Tree, node: int, data: NodeData) -> _Node:
        """Node ``node`` of a grown tree with the rows that reach it, routed as when it was grown."""
        if tree.kind[node] == LEAF:
            return _Node(-1, LEAF, np.nan, None, None, None, data)
        boc = tree.branch_of_category(node).copy() if tree.pool_offset[node] >= 0 else None
        out = _Node(int(tree.feature[node]), int(tree.kind[node]), float(tree.threshold[node]), boc,
                    list(tree.children(node)), None, data)
        out.fractions, parts = self.send(out, data)
        out.children = [self.load(tree, c, p) for c, p in zip(out.children, parts, strict=True)]
        return out

    # ----------------------------------------------------------------- error estimates
    def leaf_errors(self, counts: np.ndarray) -> float:
        """E + pessimistic_errors(N, E, CF) of a leaf with these class counts (0 when empty)."""
        n, e = total_and_errors(counts)
        if n <= self.tol:
            return 0.0
        key = (n, e)  # many leaves share their (N, E): compute each estimate once
        if key not in self._estimates:
            self._estimates[key] = e + pessimistic_errors(n, e, self.cf)
        return self._estimates[key]

    def errors_for_branch(self, node: _Node, data: NodeData) -> float:
        """The estimate of ``node``'s subtree if ``data`` (a parent's rows) went into it; nothing
        is changed. The rows go through the subtree in one kernel call (``send`` at every node);
        the leaves' estimates are then added up subtree by subtree, as a recursion would."""
        if node.children is None:
            return self.leaf_errors(self.counts(data))
        nodes, first, arrays = _breadth_first(node)
        counts = subtree_leaf_counts(self.sp.X, self.sp.y, data.idx, data.w, *arrays, self.tol,
                                     self.sp.n_classes)

        def estimate(i: int) -> float:
            if first[i] < 0:
                return self.leaf_errors(counts[i])
            return sum(estimate(c) for c in range(first[i], first[i] + len(nodes[i].children)))

        return estimate(0)

    def largest_branch(self, node: _Node) -> int:
        """The branch with the most weight (unknown rows spread by the fractions, so the weights
        are r_v * W); on a tie the first, or with release8 the last (J48's ``maxBag``)."""
        bags = node.fractions * node.data.w.sum()
        if not self.release8:
            return int(np.argmax(bags))
        best, most = -1, 0.0
        for b, size in enumerate(bags):
            if most - size < SMALL:
                best, most = b, size
        return best

    def not_worse(self, a: float, b: float) -> bool:
        """a <= b + 0.1 case (release8: within J48's 1e-6 too)."""
        return a - (b + SLACK) < SMALL if self.release8 else a <= b + SLACK

    # ----------------------------------------------------------------- the passes
    def collapse(self, node: _Node, subtree_errors: dict[int, float] | None = None) -> None:
        """Top-down, so a node is judged before anything below it changes: the training errors
        of every subtree are taken once, before the pass (``subtree_errors``, by node id)."""
        if node.children is None:
            return
        if subtree_errors is None:
            subtree_errors = {}
            self._training_errors_of_subtrees(node, subtree_errors)
        counts = self.node_counts(node)
        as_leaf = float(total_and_errors(counts)[1])
        if subtree_errors[id(node)] >= as_leaf - COLLAPSE_SLACK:
            node.make_leaf()
            return
        for child in node.children:
            self.collapse(child, subtree_errors)

    def _training_errors_of_subtrees(self, node: _Node, out: dict[int, float]) -> float:
        """The training errors of ``node``'s subtree (the sum over its leaves of the weight not in
        their majority class) and, into ``out``, those of every split node below it."""
        if node.children is None:
            return float(total_and_errors(self.node_counts(node))[1])
        errors = sum(self._training_errors_of_subtrees(c, out) for c in node.children)
        out[id(node)] = errors
        return errors

    def prune(self, node: _Node) -> float:
        """Prune the subtree bottom-up; returns its estimate afterwards: the sum over its leaves
        of ``leaf_errors`` with the rows each holds. Pruning a branch changes nothing outside it,
        so a node's subtree estimate is the sum of its pruned branches' estimates."""
        if node.children is None:
            return self.leaf_errors(self.node_counts(node))
        estimates = [self.prune(child) for child in node.children]
        largest = node.children[self.largest_branch(node)]
        as_largest = self.errors_for_branch(largest, node.data) if self.raising else np.inf
        as_leaf = self.leaf_errors(self.node_counts(node))
        as_tree = sum(estimates)
        if self.not_worse(as_leaf, as_tree) and self.not_worse(as_leaf, as_largest):
            node.make_leaf()
            return as_leaf
        if self.not_worse(as_largest, as_tree):
            # subtree raising: the largest branch takes the node's place and all its rows
            node.take_test_of(largest)
            self.redistribute(node, node.data)
            return self.prune(node)
        return as_tree

    def redistribute(self, node: _Node, data: NodeData) -> None:
        """Send ``data`` through ``node``'s subtree, updating rows and fractions on the way."""
        node.data = data
        if node.children is None:
            return
        node.fractions, parts = self.send(node, data)
        for child, part in zip(node.children, parts, strict=True):
            self.redistribute(child, part)

    # ----------------------------------------------------------------- the flat tree
    def write(self, root: _Node, n_categories: np.ndarray) -> Tree:
        """Flat tree; each node's value is the class distribution of the rows it holds, an empty
        node takes its parent's (seed 000's empty branch)."""
        rec = NodeRecords(self.sp.n_classes)
        first = rec.new_node(parent=-1, depth=0, branch_fraction=1.0)
        stack = [(first, root, None)]
        crit = self.sp.criterion
        while stack:
            nid, node, parent_counts = stack.pop()
            counts = self.node_counts(node)
            total = float(counts.sum())
            value = counts if total > 0 or parent_counts is None else parent_counts
            rec.value[nid] = value.copy()
            rec.set(nid, impurity=impurity(value, crit),
                    n_node_samples=int(np.count_nonzero(node.data.w > 0)),
                    weighted_n_node_samples=total)
            if node.children is None:
                continue
            first = rec.new_nodes(nid, rec.fields["depth"][nid] + 1,
                                  [float(r) for r in node.fractions])
            kids = range(first, first + node.n_branches)
            pool_offset = rec.add_to_pool(node.branch_of_category) \
                if node.branch_of_category is not None else -1
            rec.set(nid, feature=node.feature, kind=node.kind, threshold=node.threshold,
                    first_child=kids[0], n_children=len(kids), pool_offset=pool_offset,
                    missing_branch=MISSING_FRACTIONAL)
            for b in range(node.n_branches - 1, -1, -1):
                stack.append((kids[b], node.children[b], value))
        return rec.tree(n_categories)


def _breadth_first(root: _Node) -> tuple[list[_Node], list[int], tuple[np.ndarray, ...]]:
    """The subtree below ``root`` in breadth-first order (a node's children consecutive), with
    each node's first child (-1 for a leaf) and its test as arrays for ``subtree_leaf_counts``:
    feature, kind, threshold, first child, number of children, the category pool, and each node's
    offset and length in it."""
    nodes, first = [root], []
    for node in nodes:  # grows while it is read
        if node.children is None:
            first.append(-1)
        else:
            first.append(len(nodes))
            nodes.extend(node.children)
    pools = [n.branch_of_category for n in nodes if n.branch_of_category is not None]
    sizes = [0 if n.branch_of_category is None else len(n.branch_of_category) for n in nodes]
    # int32 categories, as every other caller of branch_of_rows passes: one compiled copy
    pool = np.concatenate(pools).astype(np.int32) if pools else np.zeros(0, dtype=np.int32)
    arrays = (np.array([n.feature for n in nodes], dtype=np.int64),
              np.array([n.kind for n in nodes], dtype=np.int64),
              np.array([n.threshold for n in nodes], dtype=np.float64),
              np.array(first, dtype=np.int64),
              np.array([0 if n.children is None else len(n.children) for n in nodes],
                       dtype=np.int64),
              pool, np.cumsum([0] + sizes[:-1], dtype=np.int64), np.array(sizes, dtype=np.int64))
    return nodes, first, arrays


def _run(tree: Tree, splitter: Splitter, w: np.ndarray, *, confidence: float,
         subtree_raising: bool, collapse: bool, prune: bool, release8: bool) -> Tree:
    state = C45Tree(splitter, confidence, subtree_raising, release8)
    data = NodeData(np.arange(len(w), dtype=np.int64), np.asarray(w, dtype=np.float64))
    root = state.load(tree, 0, data)
    if collapse:
        state.collapse(root)
    if prune:
        state.prune(root)
    return state.write(root, tree.n_categories)


def error_based_prune(tree: Tree, splitter: Splitter, w: np.ndarray, *, confidence: float = 0.25,
                      subtree_raising: bool = True, collapse: bool = False,
                      release8: bool = False) -> Tree:
    """The pruned tree. ``splitter`` holds the training rows the tree was grown on, weighted ``w``
    (rows of weight 0 are carried along and count for nothing); ``collapse`` first collapses
    subtrees that do not lower the training error; ``release8`` follows J48 (module docstring)."""
    return _run(tree, splitter, w, confidence=confidence, subtree_raising=subtree_raising,
                collapse=collapse, prune=True, release8=release8)


def collapse_tree(tree: Tree, splitter: Splitter, w: np.ndarray, *, release8: bool = True) -> Tree:
    """Release 8's collapse alone (what J48 -U does after growing): every subtree whose leaves make
    at least as many training errors as its root would as a leaf (within 1e-3) becomes that leaf."""
    return _run(tree, splitter, w, confidence=0.25, subtree_raising=False, collapse=True,
                prune=False, release8=release8)
