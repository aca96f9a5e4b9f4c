"""The integrity of a tree's flat arrays (``Tree.validate``).

The routing kernels are compiled without bounds checks, so every index they follow is checked:
children, tested features, the category pool, missing-value routing, surrogate splits; and the
links must make a tree (each node but the root the child of exactly its parent, depths counted
from the root), which bounds every walk. The numbers a prediction multiplies or divides by are
checked too: values are finite, counts and weights finite and non-negative, branch fractions r_v
(C4.5 sends a row whose tested value is missing down each branch with weight r_v) in [0, 1].
``check_fitted`` adds what only a fitted tree satisfies: the r_v of a split's children sum to 1
within ``FRACTION_TOLERANCE``.

Fields a node does not use (a leaf's feature, a threshold node's pool offset, ...) are not read
by any code and not checked.

Each message starts with the field it is about (``tree.<field>``) and names the first node (or
surrogate row) at fault. The work is linear in the length of the arrays, and the checks go
through the nodes (and surrogate rows) in blocks of ``BLOCK``, in order, so their temporaries
stay a few MB however large the tree: over whole arrays they were the fully grown regressor's
memory peak at 10^6 rows (73 MB, 2 million nodes), once its growth gave its rows back. A count
read from an array is compared with an array length before anything is allocated by it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._config import LEAF, MISSING_FRACTIONAL, MISSING_STOP, MULTIWAY, SUBSET, THRESHOLD

# |sum of r_v - 1| allowed at a split. A fit computes r_v = w_v / w, whose sum is 1 within a few
# units of 2**-52 per branch (measured: 2.2e-16 at most); 1e-9 leaves room for 10^6 branches
# and still keeps the probabilities of a row that goes down every branch of a path 10^3 splits
# deep within 1e-6 of summing to 1.
FRACTION_TOLERANCE = 1e-9

# splits with at most this many children have their child links checked one child slot at a time
NARROW = 16

# nodes (or surrogate rows) per block of the checks
BLOCK = 1 << 17


def _blocks(n: int):
    """(a, b): the blocks [a, b) of range(n), in order."""
    for a in range(0, n, BLOCK):
        yield a, min(a + BLOCK, n)


def _split_ids(tree, a: int, b: int) -> np.ndarray:
    """The ids of the split nodes among nodes [a, b)."""
    return a + np.flatnonzero(tree.kind[a:b] != LEAF)


def _splits_in(tree, a: int, b: int):
    """(ids, first child, child count) of the split nodes among nodes [a, b), as int64."""
    ids = _split_ids(tree, a, b)
    return ids, tree.first_child[ids].astype(np.int64), tree.n_children[ids].astype(np.int64)


def check_tree(tree, node_fields) -> None:
    """Raise ValueError naming the field if ``tree`` (a ``Tree``; ``node_fields``: the names of
    its per-node arrays) is not a tree the kernels can walk safely."""
    n = _check_shapes(tree, node_fields)
    _check_splits(tree, n)
    _check_links(tree, n)
    _check_surrogates(tree)
    _check_pool(tree, n)
    _check_numbers(tree)


def check_fitted(tree) -> None:
    """What every fitted tree satisfies on top of ``check_tree`` (which ``tree`` must pass first):
    the children of each split carry branch fractions r_v that sum to 1 within
    ``FRACTION_TOLERANCE``. (Trees made by hand for a pruning pass or a test may leave r_v to be
    computed.) A model file must pass it: C4.5's ``predict_proba`` combines the branches of a
    missing value with these weights, so they must sum to 1 for probabilities that do."""
    n = tree.node_count
    if n == 1:
        return
    ids = np.flatnonzero(tree.kind != LEAF)
    sums = np.bincount(tree.parent[1:], weights=tree.branch_fraction[1:], minlength=n)[ids]
    bad = np.abs(sums - 1.0) > FRACTION_TOLERANCE
    if bad.any():
        i = _first(bad)
        raise ValueError(f"tree.branch_fraction: the branch fractions of the children of node "
                         f"{ids[i]} sum to {float(sums[i])!r}, not 1 (within {FRACTION_TOLERANCE})")


def _first(mask: np.ndarray, ids: np.ndarray | None = None) -> int:
    """The first position where ``mask`` holds (mapped through ``ids`` when given)."""
    i = int(np.flatnonzero(mask)[0])
    return i if ids is None else int(ids[i])


def _check_shapes(tree, node_fields) -> int:
    n = len(tree.feature)
    if n == 0:
        raise ValueError("tree.feature: the tree has no nodes")
    for name in node_fields:
        shape = getattr(tree, name).shape
        if shape != (n,):
            raise ValueError(f"tree.{name} has shape {shape}, expected ({n},): one entry per node")
    value = tree.value
    if value.ndim != 2 or value.shape[0] != n or value.shape[1] == 0:
        raise ValueError(f"tree.value: the value array has shape {value.shape}, expected "
                         f"({n}, k), k >= 1")
    finite = np.isfinite(value).all(axis=1)
    if not finite.all():
        raise ValueError(f"tree.value: node {_first(~finite)} holds NaN or an infinite value")
    if tree.pool.ndim != 1 or tree.n_categories.ndim != 1:
        raise ValueError("tree.pool and tree.n_categories must be 1-D arrays")
    if np.any(tree.n_categories < 0):
        raise ValueError(f"tree.n_categories: feature {_first(tree.n_categories < 0)} has a "
                         "negative number of categories")
    sur = tree.surrogates
    m = len(sur["feature"])
    for name, arr in sur.items():
        if arr.shape != (m,):
            raise ValueError(f"tree.surrogates.{name} has shape {arr.shape}, expected ({m},): "
                             "the surrogate arrays have different lengths")
    return n


def _check_splits(tree, n: int) -> None:
    """Kinds, tested features, children ranges, thresholds and missing-value routing of the split
    nodes: each rule over every block of nodes, then the next rule."""
    kind = tree.kind
    for a, b in _blocks(n):
        unknown = ~np.isin(kind[a:b], (LEAF, THRESHOLD, MULTIWAY, SUBSET))
        if unknown.any():
            i = a + _first(unknown)
            raise ValueError(f"tree.kind: node {i} has an unknown node kind {int(kind[i])} "
                             f"(expected {LEAF} leaf, {THRESHOLD} threshold, {MULTIWAY} multiway, "
                             f"{SUBSET} subset)")
    for a, b in _blocks(n):
        leaf_parent = (kind[a:b] == LEAF) & (tree.n_children[a:b] != 0)
        if leaf_parent.any():
            raise ValueError(f"tree.n_children: a leaf of the tree has children (node "
                             f"{a + _first(leaf_parent)})")
    n_features = len(tree.n_categories)
    for a, b in _blocks(n):
        ids = _split_ids(tree, a, b)
        f = tree.feature[ids]
        bad = (f < 0) | (f >= n_features)
        if bad.any():
            i = _first(bad)
            raise ValueError(f"tree.feature: a split node tests a feature out of range (node "
                             f"{ids[i]} tests {int(f[i])}; the tree has {n_features} features)")
    for a, b in _blocks(n):
        # int64: in int32, first_child + n_children can wrap around to a small number and pass
        ids, first, count = _splits_in(tree, a, b)
        bad = (count < 2) | (first <= ids) | (first + count > n)
        if bad.any():
            i = _first(bad)
            raise ValueError(f"tree.first_child / tree.n_children: a split node has children out "
                             f"of range (node {ids[i]}: {count[i]} children from node {first[i]}; "
                             f"a split has at least two, after itself, among the {n} nodes)")
    for a, b in _blocks(n):
        ids, _, count = _splits_in(tree, a, b)
        kinds = kind[ids]
        bad = ((kinds == THRESHOLD) | (kinds == SUBSET)) & (count != 2)
        if bad.any():
            i = _first(bad)
            raise ValueError(f"tree.n_children: a binary split node does not have two children "
                             f"(node {ids[i]} has {count[i]})")
    for a, b in _blocks(n):
        ids = _split_ids(tree, a, b)
        bad = (kind[ids] == THRESHOLD) & ~np.isfinite(tree.threshold[ids])
        if bad.any():
            i = _first(bad, ids)
            raise ValueError(f"tree.threshold: a threshold node has no threshold (node {i}: "
                             f"{tree.threshold[i]}; a finite number is expected)")
    for a, b in _blocks(n):
        ids, _, count = _splits_in(tree, a, b)
        mb = tree.missing_branch[ids]
        bad = (mb >= count) | ((mb < 0) & (mb != MISSING_STOP) & (mb != MISSING_FRACTIONAL))
        if bad.any():
            i = _first(bad)
            raise ValueError(f"tree.missing_branch: a split node routes missing values to a child "
                             f"it does not have (node {ids[i]}: {int(mb[i])}; expected a child "
                             f"slot below {count[i]}, {MISSING_STOP} to stop or "
                             f"{MISSING_FRACTIONAL} for every branch)")


def _check_links(tree, n: int) -> None:
    """Each node but the root is the child of exactly one split, its ``parent``; depths count
    the links from the root. Children come after their parent (``_check_splits``), so walks end."""
    # leaves have no children (``_check_splits``): the child slots of all splits
    slots = int(tree.n_children.sum(dtype=np.int64))
    # a tree of n nodes has n - 1 child slots, one per node but the root; checked before any
    # temporary of that size is made
    if slots < n - 1:
        raise ValueError(f"tree.first_child / tree.n_children: the tree has nodes that no split "
                         f"reaches ({slots} child slots for {n - 1} nodes below the root)")
    if slots > n - 1:
        raise ValueError(f"tree.first_child / tree.n_children: tree nodes are shared between "
                         f"parents ({slots} child slots for {n - 1} nodes below the root)")
    expected_parent = np.full(n, -1, dtype=np.int32)  # node ids are int32 in every tree
    widest = int(tree.n_children.max())
    if widest > NARROW:
        # wide multiway splits: every slot of a block at once (a loop over slots would run once
        # per category)
        for a, b in _blocks(n):
            ids, first, count = _splits_in(tree, a, b)
            offsets = np.cumsum(count) - count
            kids = np.repeat(first - offsets, count) + np.arange(int(count.sum()))
            # children twice in this block, or already of an earlier block's split: the smallest
            # is named (a count over all n nodes per block would make the check quadratic)
            unique, times = np.unique(kids, return_counts=True)
            shared = np.concatenate([unique[times > 1], kids[expected_parent[kids] != -1]])
            if len(shared):
                raise ValueError(f"tree.first_child: tree nodes are shared between parents (node "
                                 f"{int(shared.min())})")
            expected_parent[kids] = np.repeat(ids, count)
    else:
        # binary and narrow splits: one child slot at a time, so that no temporary is larger
        # than a block of split nodes (a fully grown tree has about 2 nodes per training row)
        for slot in range(widest):
            for a, b in _blocks(n):
                ids, first, count = _splits_in(tree, a, b)
                has = count > slot
                kids, parents = first[has] + slot, ids[has]
                taken = expected_parent[kids] != -1
                if taken.any():
                    raise ValueError(f"tree.first_child: tree nodes are shared between parents "
                                     f"(node {int(kids[_first(taken)])})")
                expected_parent[kids] = parents
                twice = expected_parent[kids] != parents  # a node twice in this slot
                if twice.any():
                    raise ValueError(f"tree.first_child: tree nodes are shared between parents "
                                     f"(node {int(kids[_first(twice)])})")
    # n - 1 distinct slots, all in 1..n-1: every node below the root has a parent now
    for a, b in _blocks(n):
        wrong = tree.parent[a:b] != expected_parent[a:b]
        if wrong.any():
            i = a + _first(wrong)
            raise ValueError(f"tree.parent: tree parent links disagree with its child links (node "
                             f"{i} has parent {int(tree.parent[i])}, but is a child of "
                             f"{int(expected_parent[i])})")
    # children come after their parent, so this local rule fixes every depth
    depth = tree.depth
    for a, b in _blocks(n):
        if a == 0:
            wrong = np.empty(b, dtype=bool)
            wrong[0] = depth[0] != 0
            wrong[1:] = depth[1:b] != depth[expected_parent[1:b]] + 1
        else:
            wrong = depth[a:b] != depth[expected_parent[a:b]] + 1
        if wrong.any():
            i = a + _first(wrong)
            raise ValueError(f"tree.depth: tree depths disagree with its structure (node {i} has "
                             f"depth {int(depth[i])})")


def _check_surrogates(tree) -> None:
    """Each node's surrogate rows exist, only split nodes have them, and each row tests a feature
    of the tree with a known kind, a finite threshold and a direction. (Subset rows' pool slices:
    ``_check_pool``.)"""
    sur = tree.surrogates
    m = len(sur["feature"])
    ns = tree.n_surrogates
    if np.any(ns < 0):
        raise ValueError(f"tree.n_surrogates: node {_first(ns < 0)} has a negative number of "
                         "surrogate splits")
    has = np.flatnonzero(ns > 0)  # only these: a fully grown tree has few, and is large
    off = tree.surrogate_offset[has].astype(np.int64)
    bad = (off < 0) | (off + ns[has] > m)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"tree.surrogate_offset: a node's surrogate splits are out of range "
                         f"(node {has[i]}: rows {off[i]} to {off[i] + ns[has[i]] - 1} of {m})")
    leaf = tree.kind[has] == LEAF
    if leaf.any():
        raise ValueError(f"tree.n_surrogates: a leaf of the tree has surrogate splits (node "
                         f"{_first(leaf, has)})")
    if m == 0:
        return
    f = sur["feature"]
    n_features = len(tree.n_categories)
    bad = (f < 0) | (f >= n_features)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"tree.surrogates.feature: a surrogate split tests a feature out of "
                         f"range (row {i} tests {int(f[i])}; the tree has {n_features} features)")
    kind = sur["kind"]
    bad = (kind != THRESHOLD) & (kind != SUBSET)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"tree.surrogates.kind: a surrogate split has an unknown kind (row {i}: "
                         f"{int(kind[i])}; expected {THRESHOLD} threshold or {SUBSET} subset)")
    thr = kind == THRESHOLD
    bad = thr & ~np.isfinite(sur["threshold"])
    if bad.any():
        raise ValueError(f"tree.surrogates.threshold: a threshold surrogate has no threshold (row "
                         f"{_first(bad)}; a finite number is expected)")
    left = sur["left_branch"]
    bad = thr & (left != 0) & (left != 1)
    if bad.any():
        raise ValueError(f"tree.surrogates.left_branch: a threshold surrogate has no direction "
                         f"(row {_first(bad)}; expected 0 or 1)")
    for name in ("agreement", "adjusted_agreement"):
        a = sur[name]
        bad = ~np.isfinite(a) | (a < 0) | (a > 1 + FRACTION_TOLERANCE)
        if bad.any():
            i = _first(bad)
            raise ValueError(f"tree.surrogates.{name}: row {i} holds {a[i]}, expected a share "
                             "in [0, 1]")


def _check_pool(tree, n: int) -> None:
    """Every categorical test (multiway and subset nodes, subset surrogates) looks up its branch
    in pool[offset + code], code < the feature's category count: the slice must lie in the pool
    and map each category to a child slot of the test, or to -1 (no branch). The tests are taken
    in order, the split nodes first and then the surrogate rows, a block at a time."""
    sur = tree.surrogates
    size = len(tree.pool)
    pool = np.ascontiguousarray(tree.pool)

    def tests():
        """(owner of each test, its field, offset, k, limit) per block, int64."""
        for a, b in _blocks(n):
            ids = a + np.flatnonzero((tree.kind[a:b] == MULTIWAY) | (tree.kind[a:b] == SUBSET))
            yield (("node", ids), "tree.pool_offset", tree.pool_offset[ids].astype(np.int64),
                   tree.n_categories[tree.feature[ids]].astype(np.int64),
                   tree.n_children[ids].astype(np.int64))
        for a, b in _blocks(len(sur["feature"])):
            rows = a + np.flatnonzero(sur["kind"][a:b] == SUBSET)
            yield (("surrogate row", rows), "tree.surrogates.pool_offset",
                   sur["pool_offset"][rows].astype(np.int64),
                   tree.n_categories[sur["feature"][rows]].astype(np.int64),
                   np.full(len(rows), 2, dtype=np.int64))

    total = 0
    for (what, owners), field, offset, k, _ in tests():
        bad = (k <= 0) | (offset < 0) | (offset + k > size)
        if bad.any():
            i = _first(bad)
            where = "its feature has no categories" if k[i] <= 0 else \
                f"entries {offset[i]} to {offset[i] + k[i] - 1} of a pool of {size}"
            raise ValueError(f"{field}: category pool entry out of range ({what} {owners[i]}: "
                             f"{where})")
        total += int(k.sum())
    if total > size:  # slices own their part of the pool in every fitted tree: never overlap much
        raise ValueError(f"tree.pool_offset: the categorical tests read {total} pool entries in "
                         f"all, more than the pool holds ({size}); each test has a slice of its own")
    for (what, owners), _, offset, k, limit in tests():
        i, c = _first_bad_entry(pool, offset, k, limit)
        if i >= 0:
            raise ValueError(f"tree.pool: a category maps to a child it does not have ({what} "
                             f"{owners[i]}: category {c} -> slot {int(pool[offset[i] + c])}; the "
                             f"test has {limit[i]} children, -1 for no branch)")


@njit(cache=True, no_cfunc_wrapper=True)
def _first_bad_entry(pool, offset, k, limit):
    """(test i, category c) of the first entry pool[offset_i + c], c < k_i, outside [-1,
    limit_i), or (-1, -1). The slices lie in the pool (checked before). A loop, not numpy: a
    fully grown regression tree's tests read 8.5 million entries, and the repeat / arange / take
    temporaries over them cost 8 % of its fit. A slice's least and largest entries are found
    first, without the exit that kept the loop from being vectorised; the first bad entry is
    looked for in a bad slice only. A 10^6-row tree's pool of 68 MB (1,000-category columns):
    0.1 s entry by entry, 3x less now."""
    for i in range(offset.shape[0]):
        o, lim = offset[i], limit[i]
        if k[i] <= 0:
            continue
        entries = pool[o:o + k[i]]
        if entries.min() < -1 or entries.max() >= lim:
            for c in range(k[i]):
                v = pool[o + c]
                if v < -1 or v >= lim:
                    return i, c
    return -1, -1


def _check_numbers(tree) -> None:
    """Counts and weights finite and non-negative, impurities finite, branch fractions in [0, 1]
    (their sums: ``check_fitted``)."""
    bad = tree.n_node_samples < 0
    if bad.any():
        raise ValueError(f"tree.n_node_samples: node {_first(bad)} has a negative count")
    for name in ("weighted_n_node_samples", "impurity", "improvement"):
        a = getattr(tree, name)
        bad = ~np.isfinite(a)
        if name == "weighted_n_node_samples":
            bad |= a < 0
        if bad.any():
            i = _first(bad)
            expected = "a finite weight >= 0" if name == "weighted_n_node_samples" else \
                "a finite number"
            raise ValueError(f"tree.{name}: node {i} holds {a[i]}, expected {expected}")
    r = tree.branch_fraction
    bad = ~np.isfinite(r) | (r < 0) | (r > 1 + FRACTION_TOLERANCE)
    if bad.any():
        i = _first(bad)
        raise ValueError(f"tree.branch_fraction: node {i} holds {r[i]}, expected a fraction in "
                         "[0, 1]")
