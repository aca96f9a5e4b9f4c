"""engine/node_table.py: the growing tree is kept in the ``Tree``'s own dtypes, so ``to_tree``
hands its arrays over without a converted copy (a fully grown tree of 10^6 rows has 2 x 10^6
nodes: a copy of each int field beside the table was part of the fit's peak memory)."""

import numpy as np

from rootwise.engine.node_table import (
    NodeTable,
    SurrogateTable,
    init_leaf,
    new_nodes,
    new_surrogates,
    to_tree,
)
from rootwise.tree.tree import NODE_FIELDS, SURROGATE_FIELDS

# the table's field -> the Tree's, where the names differ
NODE_NAMES = {"n_samples": "n_node_samples", "weight": "weighted_n_node_samples",
              "fraction": "branch_fraction", "s_offset": "surrogate_offset",
              "s_count": "n_surrogates"}
SURROGATE_NAMES = {"adjusted": "adjusted_agreement"}


def test_a_full_node_table_becomes_the_trees_arrays_without_a_copy():
    nodes = new_nodes(1, 2)
    init_leaf(nodes, np.int64(0), np.int64(-1), np.int64(0), 1.0)
    tree = to_tree(nodes, 1, np.zeros(1, dtype=np.int32), 0, new_surrogates(1), 0,
                   np.zeros(2, dtype=np.int64))
    for field in NodeTable._fields:
        if field == "value":
            assert np.shares_memory(tree.value, nodes.value)
            continue
        name = NODE_NAMES.get(field, field)
        assert name in NODE_FIELDS
        assert np.shares_memory(getattr(tree, name), getattr(nodes, field)), field


def test_the_surrogate_table_has_the_trees_dtypes():
    table = new_surrogates(4)
    for field in SurrogateTable._fields:
        name = SURROGATE_NAMES.get(field, field)
        assert getattr(table, field).dtype == SURROGATE_FIELDS[name], field
