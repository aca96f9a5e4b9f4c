"""C4.5's fractional routing in ONNX: the weight with which a row reaches each node, level by
level, from the directions d_i of ``onnx_routing`` (stage 1), and the class distribution as their
weighted sum (Quinlan 1993, ch. 3).

A row reaches the root with weight 1, and child c (slot v) of node i with

    W_c = W_i * ([d_i = v] + [d_i = FRACTIONAL] * r_c)

(d_i = FRACTIONAL: the tested value is missing and the row goes down every branch, with r_c the
share of the branch). It stops at a leaf, or at a split node whose d_i is STOP, so

    P = sum over nodes j of W_j * [j is a leaf or d_j = STOP] * dist_j

a product of an (N x nodes) matrix with the (nodes x classes) distributions. Every level is a
few standard operators (Gather, Equal, Mul, MatMul), so the model grows linearly with the tree,
where one tree ensemble would need a tree per combination of branches.
"""

from __future__ import annotations

import numpy as np

from .._config import LEAF
from .onnx_routing import FRACTIONAL, STOP


def levels(tree) -> list[list[int]]:
    """The nodes reachable from the root, by depth (root first), each level in node order."""
    out, level = [], [0]
    while level:
        out.append(level)
        level = [c for i in level if tree.kind[i] != LEAF
                 for c in range(int(tree.first_child[i]), int(tree.first_child[i]) + int(tree.n_children[i]))]
    return out


def probability_nodes(tree, directions, source: str, out: str, names) -> list:
    """ONNX nodes computing ``out`` ([N, k] float64, C4.5's class distribution) from ``source``,
    the directions d_i ([N, S] float64, column ``directions.target[i]``). ``names`` is
    ``(helper, numpy_helper, TensorProto, initializers)``; constants are added to the list."""
    helper, numpy_helper, TensorProto, initializers = names
    nodes = []

    def const(name: str, value) -> str:
        initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    dist = tree.distribution()
    first = const("rootwise_w_first", np.array([0], dtype=np.int64))
    one = const("rootwise_w_one", np.array([1], dtype=np.int64))
    axis = const("rootwise_w_axis", np.array([1], dtype=np.int64))
    column = node("Slice", [source, first, one, axis], "rootwise_w_column")
    zero = node("Mul", [column, const("rootwise_w_zero", np.array(0.0))], "rootwise_w_zeros")
    root = node("Add", [zero, const("rootwise_w_unit", np.array(1.0))], "rootwise_w_0")  # [N, 1] of 1
    stop_col = node("Sub", [zero, const("rootwise_w_unit_", np.array(1.0))], "rootwise_stop_col")
    # a column of STOP after the directions: a leaf reads it, and so always "stops"
    padded = node("Concat", [source, stop_col], "rootwise_d_padded", axis=1)
    stop_index = len(directions.target)

    terms = []
    weight = root
    by_level = levels(tree)
    for n, level in enumerate(by_level):
        # the rows that stop at this level's nodes, and what they add
        cols = [directions.target[i] if tree.kind[i] != LEAF else stop_index for i in level]
        d = node("Gather", [padded, const(f"rootwise_l{n}_cols", np.array(cols, dtype=np.int64))],
                 f"rootwise_l{n}_d", axis=1)
        stops = node("Equal", [d, const(f"rootwise_l{n}_stop", np.array(float(STOP)))],
                     f"rootwise_l{n}_stops")
        stops = node("Cast", [stops], f"rootwise_l{n}_stopsd", to=TensorProto.DOUBLE)
        ends = node("Mul", [weight, stops], f"rootwise_l{n}_ends")
        terms.append(node("MatMul", [ends, const(f"rootwise_l{n}_dist", dist[level])],
                          f"rootwise_l{n}_p"))
        if n + 1 == len(by_level):
            break
        # the weights of the next level: each child from its parent's column of this level
        parent, slot, share = [], [], []
        for p, i in enumerate(level):
            if tree.kind[i] == LEAF:
                continue
            first_child = int(tree.first_child[i])
            for c in range(first_child, first_child + int(tree.n_children[i])):
                parent.append(p)
                slot.append(float(c - first_child))
                share.append(float(tree.branch_fraction[c]))
        parent_d = node("Gather", [d, const(f"rootwise_l{n}_parent", np.array(parent, dtype=np.int64))],
                        f"rootwise_l{n}_pd", axis=1)
        parent_w = node("Gather", [weight, f"rootwise_l{n}_parent"], f"rootwise_l{n}_pw", axis=1)
        taken = node("Cast", [node("Equal", [parent_d, const(f"rootwise_l{n}_slot", np.array(slot))],
                                   f"rootwise_l{n}_taken_b")], f"rootwise_l{n}_taken", to=TensorProto.DOUBLE)
        split = node("Cast", [node("Equal", [parent_d, const(f"rootwise_l{n}_frac",
                                                              np.array(float(FRACTIONAL)))],
                                   f"rootwise_l{n}_split_b")], f"rootwise_l{n}_split", to=TensorProto.DOUBLE)
        shared = node("Mul", [split, const(f"rootwise_l{n}_share", np.array(share))],
                      f"rootwise_l{n}_shared")
        factor = node("Add", [taken, shared], f"rootwise_l{n}_factor")
        weight = node("Mul", [parent_w, factor], f"rootwise_l{n + 1}_w")
    node("Sum", terms, out)
    return nodes
