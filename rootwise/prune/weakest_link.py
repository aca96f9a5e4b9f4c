"""Weakest-link (cost-complexity) pruning over the flat tree (Breiman et al. 1984, ch. 3).

R(t) is the training cost of node t as a leaf (``cost_complexity.node_costs``), R(T_t) the sum over
the leaves of its subtree. The weakest link is the internal node with the least
    g(t) = (R(t) - R(T_t)) / (|T_t| - 1);
pruning it (making t a leaf) gives the next tree of the sequence T_0 > T_1 > ... > {root}.
"""

import heapq

import numpy as np
from numba import njit


@njit(cache=True, no_cfunc_wrapper=True)
def weakest_link_sequence(first_child, n_children, parent, r_node, stop_alpha, scale):
    """Prune weakest links one at a time until the root is a leaf or the next alpha exceeds
    ``stop_alpha``. Returns (alphas, costs, leaves, pruned), one entry per tree T_s of the sequence:
    its alpha (0 for the full tree), R(T_s), |T_s|, and the node made a leaf to reach it (-1 for
    T_0). Equal g: the lowest node index goes first.

    ``r_node`` may be in any unit whose sums are exact (misclassified weight: whole numbers for
    whole weights, so a split that misclassifies as much as its node has g = 0 exactly);
    alphas and costs are reported divided by ``scale``, and ``stop_alpha`` is compared with
    g / scale, the very number reported, so pruning at a reported alpha cuts that link."""
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
    # A heap of (g, node), not a scan of every node per link (that was quadratic: 65 s for a tree
    # of one leaf per row at 10^5 rows). Each candidate keeps one live entry whose key is at most
    # its current g. Cutting the weakest link d below v takes a part of ratio g_d <= g_v out of
    # v's ratio (R(v) - R(T_v)) / (|T_v| - 1), so g_v can only grow: its entry stays, and when it
    # comes to the top with a key below the current g it goes back in with the current g. (Should
    # rounding make g_v smaller, it is pushed at once.) So the popped entry whose key is its
    # current g has the least g, equal g going to the lowest node index, as the scan had it.
    version = np.zeros(n, dtype=np.int64)
    key = np.full(n, np.inf)
    heap = [(0.0, np.int64(0), np.int64(0)) for _ in range(0)]
    for i in range(n):
        if candidate[i]:
            key[i] = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1) / scale
            heap.append((key[i], np.int64(i), np.int64(0)))
    heapq.heapify(heap)
    while candidate[0]:
        best, best_node, seen = heapq.heappop(heap)
        if not candidate[best_node] or seen != version[best_node]:
            continue
        g = (r_node[best_node] - r_branch[best_node]) / (n_leaves[best_node] - 1) / scale
        if g != best:  # grown since it was pushed: back in with its current g
            version[best_node] += 1
            key[best_node] = g
            heapq.heappush(heap, (g, best_node, version[best_node]))
            continue
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
            if candidate[v]:
                g = (r_node[v] - r_branch[v]) / (n_leaves[v] - 1) / scale
                if g < key[v]:
                    version[v] += 1
                    key[v] = g
                    heapq.heappush(heap, (g, v, version[v]))
            v = parent[v]
        alphas[count] = best
        costs[count] = r_branch[0] / scale
        leaves[count] = n_leaves[0]
        pruned[count] = best_node
        count += 1
    return alphas[:count], costs[:count], leaves[:count], pruned[:count]
