"""Weakest-link pruning as it was first written: at each link, a scan of every node for the least
g (time O(nodes x links)). ``rootwise.prune.weakest_link`` keeps a heap instead; the two must
give the same sequence, alphas bit for bit."""

import numpy as np
from numba import njit


@njit
def scan_every_node(first_child, n_children, parent, r_node, stop_alpha, scale):
    """The former implementation, kept as the oracle: prune weakest links one at a time until
    the root is a leaf or the next alpha exceeds ``stop_alpha``; returns (alphas, costs, leaves,
    pruned) as ``weakest_link_sequence`` does."""
    n = first_child.shape[0]
    is_leaf = n_children == 0
    n_leaves = np.zeros(n, dtype=np.int64)
    r_branch = np.zeros(n, dtype=np.float64)
    # children have larger indices than their parents, so one backward sweep aggregates subtrees
    for i in range(n - 1, -1, -1):
        if is_leaf[i]:
            n_leaves[i] = 1
            r_branch[i] = r_node[i]
        if i > 0:
            p = parent[i]
            n_leaves[p] += n_leaves[i]
            r_branch[p] += r_branch[i]
    candidate = ~is_leaf
    alphas = np.zeros(n, dtype=np.float64)
    costs = np.zeros(n, dtype=np.float64)
    pruned = np.full(n, -1, dtype=np.int64)
    leaves = np.zeros(n, dtype=np.int64)
    costs[0] = r_branch[0] / scale
    leaves[0] = n_leaves[0]
    count = 1
    stack = np.empty(n, dtype=np.int64)
    while candidate[0]:
        best, best_node = np.inf, -1
        for i in range(n):
            if candidate[i]:
                g = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1) / scale
                if g < best:
                    best, best_node = g, i
        if best > stop_alpha:
            break
        # everything below the pruned node leaves the subtree
        top = 0
        for c in range(first_child[best_node], first_child[best_node] + n_children[best_node]):
            stack[top] = c
            top += 1
        while top > 0:
            top -= 1
            v = stack[top]
            candidate[v] = False
            if not is_leaf[v]:
                for c in range(first_child[v], first_child[v] + n_children[v]):
                    stack[top] = c
                    top += 1
        candidate[best_node] = False
        removed = n_leaves[best_node] - 1
        diff = r_node[best_node] - r_branch[best_node]
        n_leaves[best_node] = 1
        r_branch[best_node] = r_node[best_node]
        v = parent[best_node]
        while v >= 0:
            n_leaves[v] -= removed
            r_branch[v] += diff
            v = parent[v]
        alphas[count] = best
        costs[count] = r_branch[0] / scale
        leaves[count] = n_leaves[0]
        pruned[count] = best_node
        count += 1
    return alphas[:count], costs[:count], leaves[:count], pruned[:count]
