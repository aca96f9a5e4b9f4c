"""A node's entries (``engine.entries``) against brute force: the split entries of the binned
columns, and the surrogate entries when weights are counts (``counted_surrogate_entries``: the
split entries less the rows counted on the primary's lighter side and without a primary branch),
equal to counts taken row by row with numpy."""

import numpy as np
import pytest
from binned_node import binned_node

from rootwise.engine.entries import binned_split_entries, counted_surrogate_entries


@pytest.mark.parametrize("regression", [False, True], ids=["classes", "regression"])
@pytest.mark.parametrize("seed", range(16))
def test_counted_surrogate_entries_split_each_code_by_the_primary(seed, regression):
    """Per code present (a row of positive weight holds it, the missing code left out): the weight
    and rows the primary sends each way, the rows it has no branch for, and per column the known
    weight per side; the primary's own column (``skip``) has none. The shared table is left
    cleared for the next node. A regression's split entries hold (w, wy, wy^2), of which only w
    counts rows."""
    seg, scr, codes, y, w, n_values, n_classes = binned_node(seed, regression=regression)
    rng = np.random.default_rng(100 + seed)
    n = len(y)
    start, end = int(rng.integers(0, 50)), n - int(rng.integers(0, 50))
    direction = rng.choice([-1, 0, 0, 1], size=end - start).astype(np.int64)
    if seed % 3 == 0:
        direction[direction == 1] = 0  # one side empty
    if seed % 4 == 1:
        direction[:] = np.where(direction < 0, 1, direction)  # every row has a branch
    skip = int(rng.integers(-1, len(n_values)))
    ent = scr.ent
    binned_split_entries(seg, start, end, ent.binned, n_values, regression, ent)
    counted_surrogate_entries(seg, start, end, direction, ent.binned, n_values, skip, regression,
                              ent, np.empty(n, dtype=np.int64))
    assert not ent.table.any()
    rows = np.arange(start, end)
    positive = w[rows] > 0
    for q, k in enumerate(n_values):
        if q == skip:
            assert ent.se_n_entries[q] == 0
            assert list(ent.se_side[q]) == [0.0, 0.0]
            continue
        col = codes[rows, q]
        present = [c for c in range(k) if np.any(positive & (col == c))]
        p = ent.se_n_entries[q]
        assert list(ent.se_code[q, :p]) == present
        for e, c in enumerate(present):
            at = positive & (col == c)
            for b in range(2):
                assert ent.se_w[q, e, b] == w[rows][at & (direction == b)].sum()
                assert ent.se_n[q, e, b] == np.sum(at & (direction == b))
            assert ent.se_pm[q, e] == np.sum(at & (direction < 0))
        known = positive & (col < k)
        for b in range(2):
            assert ent.se_side[q, b] == w[rows][known & (direction == b)].sum()


@pytest.mark.parametrize("regression", [False, True], ids=["classes", "regression"])
@pytest.mark.parametrize("seed", range(4))
def test_split_entries_of_small_nodes_are_the_row_order_sums(seed, regression):
    """Nodes of 1 to 12 rows (up to 8 by insertion, more through the table): per column the
    codes present ascending (rows of positive weight, the missing code left out), and per code
    its sums added from 0 in row order, equal bit for bit; the shared table is left cleared."""
    seg, scr, codes, y, w, n_values, n_classes = binned_node(seed, n=60, regression=regression)
    ent = scr.ent
    for m in range(1, 13):
        start = (7 * m) % (60 - m)
        binned_split_entries(seg, start, start + m, ent.binned, n_values, regression, ent)
        assert not ent.table.any()
        for q, k in enumerate(n_values):
            rows = [t for t in range(start, start + m) if w[t] > 0 and codes[t, q] < k]
            present = sorted({int(codes[t, q]) for t in rows})
            p = ent.ent_n[q]
            assert list(ent.ent_code[q, :p]) == present
            for e, c in enumerate(present):
                sums = [0.0] * (3 if regression else n_classes)
                for t in rows:
                    if codes[t, q] != c:
                        continue
                    if regression:
                        wy = w[t] * y[t]
                        sums[0] += w[t]
                        sums[1] += wy
                        sums[2] += wy * y[t]
                    else:
                        sums[y[t]] += w[t]
                assert list(ent.ent_stats[q, e, :len(sums)]) == sums
