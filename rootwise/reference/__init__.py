"""The reference builder: TreeGenerate written plainly in Python over the kernels, one call per node
and feature. It is the test oracle: the engine (``rootwise.engine``) must grow exactly its trees,
and the tests compare the two node by node. ``fit`` does not run it.

    builder    the growth loop, stopping rules and pre-pruning
    splitter   per node: every candidate attribute scored, one selected, the rows partitioned
    release8   C4.5 release 8 (J48's split search)
    missing    CART's surrogate splits
    hist       the histogram splitter's reference: this builder on binned columns
"""

from __future__ import annotations


def build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy, validation=None):
    """(tree, pre-pruning steps) of the reference for any policy: the exact builder, or for
    ``splitter="hist"`` the exact builder on the bins."""
    if policy.splitter == "hist":
        from .hist import build_reference

        return build_reference(X, y, w, kinds, n_categories, n_classes, policy, validation)
    from .builder import build_tree_with_report as exact

    return exact(X, y, w, kinds, n_categories, n_classes, policy, validation)


def build_tree(X, y, w, kinds, n_categories, n_classes, policy, validation=None):
    """The reference tree alone (``build_tree_with_report``)."""
    return build_tree_with_report(X, y, w, kinds, n_categories, n_classes, policy, validation)[0]
