"""CART's subset splits of a categorical attribute (rootwise.engine.subsets) against a brute force
over every partition of the categories present (naive.all_subset_splits).

- two classes and regression: ordering the categories (by p(class 1), by mean y) finds the best
  partition (Breiman); with min_samples_leaf the search stays on the admissible prefixes of that
  order, as rpart does, which can miss a non-prefix admissible partition;
- more classes: exhaustive up to ``max_exhaustive`` categories, a heuristic above it that is never
  worse than the best prefix of any class-proportion order.
"""

import naive
import numpy as np
import pytest

from rootwise import CARTClassifier
from rootwise._config import ENTROPY, GINI, SQUARED_ERROR, TIE_TOLERANCE
from rootwise.engine.criteria import impurity
from rootwise.engine.subsets import (
    best_subset_class,
    best_subset_regression,
    class_order,
    new_subset_scratch,
    stable_order,
)

CODES = {"gini": GINI, "entropy": ENTROPY}
ANY = 1e-9  # a min_samples_leaf that never binds (every present category weighs more)


def _table(rng, n_categories, n_classes):
    """Weighted class counts per category; some categories absent, some fractional weights."""
    table = rng.integers(0, 6, size=(n_categories, n_classes)).astype(float)
    table *= np.where(rng.random((n_categories, 1)) < 0.4, rng.random((n_categories, 1)) * 2, 1.0)
    table[rng.random(n_categories) < 0.2] = 0.0
    return table


def _best(candidates):
    admissible = [d for _, d, ok in candidates if ok]
    return max(admissible) if admissible else -np.inf


def _check_side(side, dec, table, criterion, min_leaf):
    """The returned partition is well formed and scores the decrease returned."""
    if dec == -np.inf:
        return  # no split: no side either
    present = table.sum(axis=1) > 0
    assert np.all((side == -1) == ~present)
    assert side[np.flatnonzero(present)[0]] == 0  # canonical: the lowest present code goes left
    assert set(side[present].tolist()) == {0, 1}
    left = {int(v) for v in np.flatnonzero(side == 0)}
    rows = naive.subset_split_table(table, left)
    assert min(sum(r) for r in rows) >= min_leaf
    np.testing.assert_allclose(naive.gini_decrease(rows) if criterion == "gini"
                               else naive.information_gain(rows), dec, rtol=1e-10, atol=1e-12)


def test_reference_enumerates_each_partition_once():
    assert len(naive.all_partitions([3, 5, 8, 9])) == 2 ** 3 - 1
    parts = naive.all_partitions(range(6))
    assert len(parts) == len(set(parts)) == 31 and all(0 in p for p in parts)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(60))
def test_two_classes_ordering_finds_the_best_partition(seed, criterion):
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(2, 11)), 2)
    side, dec = best_subset_class(table, CODES[criterion], ANY, 12)
    best = _best(naive.all_subset_splits(table, criterion, ANY))
    assert dec == pytest.approx(best, rel=1e-10, abs=1e-12) if best > -np.inf else dec == -np.inf
    _check_side(side, dec, table, criterion, ANY)


@pytest.mark.parametrize("seed", range(60))
def test_two_classes_with_min_leaf_take_the_best_admissible_prefix(seed):
    """min_samples_leaf: the best admissible prefix of the p(class 1) order (rpart's rule), never
    better than the best admissible partition."""
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(2, 9)), 2)
    min_leaf = float(rng.choice([1.0, 3.0, 6.0]))
    side, dec = best_subset_class(table, GINI, min_leaf, 12)
    present = np.flatnonzero(table.sum(axis=1) > 0)
    p = table[present, 1] / table[present].sum(axis=1)
    order = present[np.argsort(p, kind="stable")]
    prefixes = []
    for cut in range(1, len(order)):
        rows = naive.subset_split_table(table, set(order[:cut].tolist()))
        if min(sum(r) for r in rows) >= min_leaf:
            prefixes.append(naive.gini_decrease(rows))
    expected = max(prefixes) if prefixes else -np.inf
    assert dec == pytest.approx(expected, abs=1e-12) if prefixes else dec == -np.inf
    assert dec <= _best(naive.all_subset_splits(table, "gini", min_leaf)) + 1e-12
    _check_side(side, dec, table, "gini", min_leaf)


@pytest.mark.parametrize("m", [0, 1, 2, 31, 32, 33, 64, 65, 100, 255])
def test_stable_order_is_numpys_stable_argsort(m):
    """Insertion-sorted runs, then merges: the order np.argsort(kind="stable") gives, with many
    tied keys, over any items."""
    rng = np.random.default_rng(m)
    key = (rng.integers(0, 8, 300) / rng.integers(1, 5, 300)).astype(float)
    items = rng.permutation(300)[:m].astype(np.int64)
    scr = new_subset_scratch(300, 2)
    stable_order(key, items, m, scr)
    np.testing.assert_array_equal(scr.order[:m], items[np.argsort(key[items], kind="stable")])


def _exact_decrease(parent, left, total, wl, w_all, criterion):
    """I(D) - W_l/W I(D_l) - W_r/W I(D_r), in the kernels' order of operations."""
    return parent - (wl / w_all) * impurity(left, criterion) \
        - ((w_all - wl) / w_all) * impurity(total - left, criterion)


def _first_to_beat(table, order, criterion, min_leaf):
    """The prefix length the plain rule picks (0: none): every admissible prefix's exact decrease
    in order, sums from 0 in the kernels' order, the first to beat the best by TIE_TOLERANCE."""
    total = np.zeros(table.shape[1])
    for c in order:
        total += table[c]
    w_all = sum(float(v) for v in total)
    parent = impurity(total, criterion)
    left = np.zeros(table.shape[1])
    best_cut, best = 0, -np.inf
    for cut in range(1, len(order)):
        left += table[order[cut - 1]]
        wl = sum(float(v) for v in left)
        if wl < min_leaf or w_all - wl < min_leaf:
            continue
        d = _exact_decrease(parent, left, total, wl, w_all, criterion)
        if d > best + TIE_TOLERANCE:
            best_cut, best = cut, d
    return best_cut


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(40))
def test_two_classes_prefix_is_the_first_to_beat_the_best(seed, criterion):
    """The prefix chosen (a proxy ranks them first, ``proxies``) is the plain rule's over the
    p(class 1) order: categories repeated on some seeds tie exactly, and the first must win."""
    rng = np.random.default_rng(500 + seed)
    table = _table(rng, int(rng.integers(2, 60)), 2)
    if seed % 2:
        table = np.concatenate([table, table[rng.integers(0, len(table), len(table))]])
    min_leaf = float(rng.choice([ANY, 1.0, 5.0]))
    side, dec = best_subset_class(table, CODES[criterion], min_leaf, 12)
    present = np.flatnonzero(table.sum(axis=1) > 0)
    order = present[np.argsort(table[present, 1] / table[present].sum(axis=1), kind="stable")]
    cut = _first_to_beat(table, order, CODES[criterion], min_leaf)
    if cut == 0:
        assert dec == -np.inf
        return
    want = np.full(len(table), -1)
    want[present] = 1
    want[order[:cut]] = 0
    if want[present[0]] == 1:  # canonical: the lowest present code on the left
        want[present] = 1 - want[present]
    np.testing.assert_array_equal(side, want)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(40))
def test_more_classes_search_every_partition_up_to_max_exhaustive(seed, criterion):
    rng = np.random.default_rng(seed)
    n_categories = int(rng.integers(2, 13))  # up to 12 present: the default max_exhaustive
    table = _table(rng, n_categories, int(rng.integers(3, 6)))
    min_leaf = float(rng.choice([ANY, 1.0, 4.0]))
    side, dec = best_subset_class(table, CODES[criterion], min_leaf, 12)
    best = _best(naive.all_subset_splits(table, criterion, min_leaf))
    assert dec == pytest.approx(best, rel=1e-10, abs=1e-12) if best > -np.inf else dec == -np.inf
    _check_side(side, dec, table, criterion, min_leaf)


@pytest.mark.parametrize("seed", range(60))
def test_heuristic_above_max_exhaustive_beats_every_ordered_prefix(seed):
    """Forced onto the heuristic (max_exhaustive=2): at least the best prefix of any class order,
    at most the true optimum; it reaches the optimum on most of these small tables."""
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(3, 10)), int(rng.integers(3, 6)))
    min_leaf = float(rng.choice([ANY, 2.0]))
    side, dec = best_subset_class(table, GINI, min_leaf, 2)
    best = _best(naive.all_subset_splits(table, "gini", min_leaf))
    floor = naive.best_ordered_prefix(table, "gini", min_leaf)
    assert floor - 1e-12 <= dec <= best + 1e-12
    _check_side(side, dec, table, "gini", min_leaf)


def test_heuristic_is_usually_optimal():
    hits = total = 0
    for seed in range(100):
        rng = np.random.default_rng(1000 + seed)
        table = _table(rng, 8, 4)
        _, dec = best_subset_class(table, GINI, ANY, 2)
        best = _best(naive.all_subset_splits(table, "gini", ANY))
        if best > -np.inf:
            total += 1
            hits += abs(dec - best) <= 1e-12
    assert hits >= 0.9 * total


def test_max_exhaustive_counts_present_categories():
    """Absent categories do not count: 20 codes, 6 present, still exhaustive at max_exhaustive=6."""
    rng = np.random.default_rng(5)
    table = np.zeros((20, 4))
    table[[1, 4, 7, 11, 15, 19]] = rng.integers(1, 6, size=(6, 4))
    side, dec = best_subset_class(table, GINI, ANY, 6)
    assert dec == pytest.approx(_best(naive.all_subset_splits(table, "gini", ANY)), abs=1e-12)
    assert np.count_nonzero(side >= 0) == 6


@pytest.mark.parametrize("n_classes", [2, 5])
def test_hundreds_of_categories(n_classes):
    """300 categories: linear for two classes, the heuristic for five; no 2^299 enumeration."""
    rng = np.random.default_rng(n_classes)
    table = rng.integers(0, 4, size=(300, n_classes)).astype(float)
    side, dec = best_subset_class(table, GINI, 1.0, 12)
    assert dec > 0 and dec >= naive.best_ordered_prefix(table, "gini", 1.0) - 1e-12
    _check_side(side, dec, table, "gini", 1.0)


def test_hundreds_of_categories_through_the_estimator():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 400, size=3000)
    X = np.array([f"c{c}" for c in codes], dtype=object).reshape(-1, 1)
    y = (codes % 7 + rng.integers(0, 2, size=3000)) % 4
    model = CARTClassifier(pruning=None, max_depth=4).fit(X, y)
    assert model.get_n_leaves() > 1
    assert (model.predict(X) == y).mean() > 0.5


def _regression_rows(rng):
    n = int(rng.integers(2, 40))
    codes = rng.integers(0, int(rng.integers(2, 10)), size=n)
    y = np.round(rng.normal(size=n) + codes * rng.normal(), 2)
    u = rng.random(n)
    w = np.where(u < 0.1, 0.0, np.where(u < 0.4, rng.random(n) * 2, 1.0))
    return codes, y, w


def _regression_stats(codes, y, w):
    k = int(codes.max()) + 1
    stats = np.zeros((k, 3))
    np.add.at(stats, codes, np.column_stack([w, w * y, w * y * y]))
    return stats


@pytest.mark.parametrize("seed", range(60))
def test_regression_ordering_by_mean_finds_the_best_partition(seed):
    rng = np.random.default_rng(seed)
    codes, y, w = _regression_rows(rng)
    side, dec = best_subset_regression(_regression_stats(codes, y, w), ANY)
    best = _best(naive.all_subset_splits_regression(codes, y, w, ANY))
    if best == -np.inf:
        assert dec == -np.inf
        return
    assert dec == pytest.approx(best, rel=1e-9, abs=1e-12)
    left = {int(v) for v in np.flatnonzero(side == 0)}
    scored = {p: d for p, d, _ in naive.all_subset_splits_regression(codes, y, w, ANY)}
    assert scored[frozenset(left)] == pytest.approx(dec, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_regression_with_min_leaf_never_beats_the_brute_force(seed):
    rng = np.random.default_rng(seed)
    codes, y, w = _regression_rows(rng)
    min_leaf = float(rng.choice([1.0, 3.0]))
    side, dec = best_subset_regression(_regression_stats(codes, y, w), min_leaf)
    candidates = naive.all_subset_splits_regression(codes, y, w, min_leaf)
    assert dec <= _best(candidates) + 1e-12
    if dec > -np.inf:
        left = frozenset(int(v) for v in np.flatnonzero(side == 0))
        (ok,) = [a for p, _, a in candidates if p == left]
        assert ok


def test_min_leaf_can_rule_out_every_prefix():
    """The limit of the ordering shortcut, kept as rpart has it: categories A = (0, 1),
    B = (1, 0), C = (1, 2) ordered by p(class 1) are B, C, A; with min_samples_leaf = 2 neither
    prefix split {B} | {C, A} nor {B, C} | {A} is admissible, so no split is made, although
    {A, B} | {C} is admissible (2 and 3 rows) with a Gini decrease of 1/75."""
    table = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 2.0]])
    side, dec = best_subset_class(table, GINI, 2.0, 12)
    assert dec == -np.inf
    scored = {tuple(sorted(p)): (d, ok) for p, d, ok in naive.all_subset_splits(table, "gini", 2.0)}
    assert scored[(0, 1)][1] and scored[(0, 1)][0] == pytest.approx(1 / 75)
    # without the limit the ordering is exact: {B} | {C, A} and {B, C} | {A} are the candidates
    assert best_subset_class(table, GINI, 1.0, 12)[1] == pytest.approx(scored[(0, 2)][0])


@pytest.mark.parametrize("seed", range(40))
def test_entries_give_the_tables_result_bit_for_bit(seed):
    """The engine's subset search over the categories present (entries) equals the reference's
    over the full table: the same sides, for classification and regression."""
    from rootwise.engine.subsets import (
        best_subset_class_entries,
        best_subset_regression_entries,
        new_subset_scratch,
    )

    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 16))
    n_classes = int(rng.integers(2, 5))
    table = rng.integers(0, 4, size=(k, n_classes)).astype(float) * rng.choice([1.0, 0.5, 0.3])
    table[rng.random(k) < 0.3] = 0.0  # absent categories
    present = np.flatnonzero(table.sum(axis=1) > 0)
    min_leaf = float(rng.choice([1.0, 2.0, 4.0]))
    max_exhaustive = int(rng.integers(1, 13))  # small ones take the heuristic above 2 classes
    criterion = (GINI, ENTROPY)[seed % 2]
    side, dec = best_subset_class(table, criterion, min_leaf, max_exhaustive)
    entry_side = np.zeros(k, dtype=np.int64)
    ok = best_subset_class_entries(np.ascontiguousarray(table[present]), len(present), criterion,
                                   min_leaf, max_exhaustive, entry_side,
                                   new_subset_scratch(k, n_classes))
    assert ok == (dec > -np.inf)
    if ok:
        assert np.array_equal(side[present], entry_side[:len(present)])
    stats = np.column_stack([table[:, 0], table[:, 0] * rng.normal(size=k), table[:, 0] * 2.0])
    side, dec = best_subset_regression(stats, min_leaf)
    present = np.flatnonzero(stats[:, 0] > 0)
    ok = best_subset_regression_entries(np.ascontiguousarray(stats[present]), len(present),
                                        min_leaf, SQUARED_ERROR, 12, entry_side,
                                        new_subset_scratch(k, 3))
    assert ok == (dec > -np.inf)
    if ok:
        assert np.array_equal(side[present], entry_side[:len(present)])


def _old_rule_sides(table, criterion, min_leaf):
    """The exact rule over every partition, as a plain loop: partitions counted in binary (the
    first present category always left), the left sums updated as categories come and go, each
    partition's exact decrease, and the first that beats the best so far by TIE_TOLERANCE."""
    code = CODES[criterion]
    present = [e for e in range(table.shape[0]) if sum(table[e]) > 0.0]
    m = len(present)
    total = np.zeros(table.shape[1])
    for e in present:
        total += table[e]
    w_all = float(sum(total))
    parent = impurity(total, code)
    left = table[present[0]].copy()
    in_left = [c == 0 for c in range(m)]
    best, chosen = -np.inf, None
    for mask in range(2 ** (m - 1) - 1):
        if mask > 0:
            b = 0
            while in_left[b + 1]:
                in_left[b + 1] = False
                left -= table[present[b + 1]]
                b += 1
            in_left[b + 1] = True
            left += table[present[b + 1]]
        wl = float(sum(left))
        if wl < min_leaf or w_all - wl < min_leaf:
            continue
        d = _exact_decrease(parent, left, total, wl, w_all, code)
        if d > best + TIE_TOLERANCE:
            best, chosen = d, list(in_left)
    if chosen is None:
        return None
    side = np.full(table.shape[0], -1)
    flip = not chosen[0]
    for c, e in enumerate(present):
        side[e] = 0 if chosen[c] != flip else 1
    return side


def _check_exact_rule(table, criterion, min_leaf):
    side, dec = best_subset_class(table, CODES[criterion], min_leaf, 12)
    expected = _old_rule_sides(table, criterion, min_leaf)
    if expected is None:
        assert dec == -np.inf
    else:
        np.testing.assert_array_equal(side, expected)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(60))
def test_exhaustive_search_chooses_the_exact_rules_partition(seed, criterion):
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(2, 11)), int(rng.integers(3, 5)))
    _check_exact_rule(table, criterion, float(rng.choice([ANY, 1.0, 4.0])))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_exhaustive_search_keeps_the_first_of_near_equal_partitions(criterion):
    """Tables of a few distinct rows, repeated, in tenths: partitions of equal decrease whose
    sums differ in the last bits (0.1 + 0.2 - 0.2 != 0.1). The first in counting order must win,
    as the exact rule has it, not the one whose proxy happens to round highest (about 1 table
    in 100 here tells the two apart)."""
    for seed in range(1000):
        rng = np.random.default_rng(seed)
        n_categories, n_classes = int(rng.integers(3, 9)), int(rng.integers(3, 5))
        rows = rng.integers(1, 30, size=(3, n_classes)) / 10.0
        _check_exact_rule(rows[rng.integers(0, 3, n_categories)], criterion, ANY)


def _heuristic_rule(table, criterion, min_leaf):
    """The heuristic above max_exhaustive as plain Python, every decrease taken exactly: for each
    class, the categories ordered by that class's proportion (a stable sort: ties by code), the
    first prefix whose decrease beats the best so far by TIE_TOLERANCE; the best of the class
    orders; then single-category moves in code order while one beats the current decrease by
    TIE_TOLERANCE. Sums as the kernels take them: the class weights of each prefix scan summed
    in that scan's order, the moves on the last scan's sums. Returns the side per category."""
    def add(a, b, sign=1.0):
        return [x + sign * y for x, y in zip(a, b, strict=True)]

    def total_of(vector):
        s = 0.0
        for v in vector:
            s += v
        return s

    def decrease(parent, left, total):
        w, wl = total_of(total), total_of(left)
        right = [t - x for t, x in zip(total, left, strict=True)]
        return parent - (wl / w) * impurity(np.array(left), criterion) \
            - ((w - wl) / w) * impurity(np.array(right), criterion)

    n_classes = table.shape[1]
    rows = [list(map(float, r)) for r in table]
    sizes = [total_of(r) for r in rows]
    present = [e for e in range(len(rows)) if sizes[e] > 0.0]
    total = [0.0] * n_classes
    for e in present:
        total = add(total, rows[e])
    parent = impurity(np.array(total), criterion)
    best, best_left, scan_total = -np.inf, set(), total
    for k in range(n_classes):
        order = sorted(present, key=lambda e: rows[e][k] / sizes[e])
        scan_total = [0.0] * n_classes
        for e in order:
            scan_total = add(scan_total, rows[e])
        w_all = total_of(scan_total)
        left, cut, d_scan = [0.0] * n_classes, 0, -np.inf
        for c in range(len(order) - 1):
            left = add(left, rows[order[c]])
            wl = total_of(left)
            if wl < min_leaf or w_all - wl < min_leaf:
                continue
            d = decrease(parent, left, scan_total)
            if d > d_scan + TIE_TOLERANCE:
                cut, d_scan = c + 1, d
        if cut > 0 and d_scan > best + TIE_TOLERANCE:
            best, best_left = d_scan, set(order[:cut])
    side = np.full(len(rows), -1)
    if best == -np.inf:
        return side
    w_all = total_of(scan_total)
    left = [0.0] * n_classes
    for e in present:
        if e in best_left:
            left = add(left, rows[e])
    improved = True
    while improved:
        improved = False
        for e in present:
            going = -1.0 if e in best_left else 1.0
            trial = add(left, rows[e], going)
            n_trial = len(best_left) - 1 if e in best_left else len(best_left) + 1
            wl = total_of(trial)
            if not (0 < n_trial < len(present) and wl >= min_leaf and w_all - wl >= min_leaf):
                continue
            d = decrease(parent, trial, scan_total)
            if d > best + TIE_TOLERANCE:
                best, improved, left = d, True, trial
                best_left ^= {e}
    for e in present:
        side[e] = 0 if (e in best_left) == (present[0] in best_left) else 1
    return side


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(60))
def test_heuristic_is_its_rule_partition_for_partition(seed, criterion):
    """13-60 categories, 3-5 classes: the kernel's heuristic (proxies, skipped decreases, the
    three-class loops) chooses the partition its rule chooses. Whole counts with repeated
    categories make ties; fractional weights make sums that depend on their order."""
    rng = np.random.default_rng(seed)
    n_categories, n_classes = int(rng.integers(13, 61)), int(rng.choice([3, 3, 4, 5]))
    if seed % 2:
        table = rng.integers(0, 4, size=(n_categories, n_classes)).astype(float)
        table[rng.random(n_categories) < 0.3] = table[0]  # repeated rows: equal partitions
    else:
        table = _table(rng, n_categories, n_classes)
    min_leaf = float(rng.choice([ANY, 1.0, 5.0]))
    side, _ = best_subset_class(table, CODES[criterion], min_leaf, 12)
    np.testing.assert_array_equal(side, _heuristic_rule(table, CODES[criterion], min_leaf))


def _few_rows_table(rng, n_categories, n_classes, rows_per_category):
    """Class counts of categories holding ``rows_per_category`` rows on average (geometric), one
    class rare: most categories of a few rows are pure or lack a class (proportions 0 and 1),
    the rare class's proportions crowd near 0."""
    sizes = rng.geometric(1.0 / rows_per_category, n_categories)
    p = rng.dirichlet(np.ones(n_classes))
    p[0] = 0.02
    p /= p.sum()
    table = np.zeros((n_categories, n_classes))
    for c, size in enumerate(sizes):
        table[c] = rng.multinomial(size, p)
    table[rng.random(n_categories) < 0.1] = 0.0  # absent
    return table


@pytest.mark.parametrize("m", [1, 2, 30, 33, 100, 700])
@pytest.mark.parametrize("rows_per_category", [1.5, 40.0])
def test_class_order_is_numpys_stable_argsort(m, rows_per_category):
    """The order of the entries by one class's proportion (0s, then the others bucket-sorted,
    then 1s) is np.argsort(kind="stable") of those proportions, for every class."""
    rng = np.random.default_rng(m)
    table = _few_rows_table(rng, 800, 5, rows_per_category)
    present = rng.permutation(np.flatnonzero(table.sum(axis=1) > 0))[:m]
    present = np.sort(present).astype(np.int64)
    m = len(present)
    scr = new_subset_scratch(800, 5)
    scr.sizes[:] = table.sum(axis=1)
    for k in range(5):
        class_order(table, k, present, m, scr)
        key = table[present, k] / table[present].sum(axis=1)
        np.testing.assert_array_equal(scr.order[:m], present[np.argsort(key, kind="stable")])


@pytest.mark.parametrize("seed", range(16))
def test_exhaustive_on_counts_of_many_classes_is_the_exact_rule(seed):
    """3-10 classes, whole counts (the Gray-code loops by dot products), up to 11 categories,
    repeated rows making equal partitions: the exact rule's partition."""
    rng = np.random.default_rng(seed)
    n_categories, n_classes = int(rng.integers(2, 12)), int(rng.integers(3, 11))
    table = rng.integers(0, 4, size=(n_categories, n_classes)).astype(float)
    table[rng.random(n_categories) < 0.3] = table[0]
    _check_exact_rule(table, "gini", float(rng.choice([ANY, 1.0, 5.0])))


@pytest.mark.parametrize("seed", range(16))
def test_heuristic_on_counts_of_many_classes_is_its_rule(seed):
    """4-10 classes, 40-300 categories of a few rows (or of tens of rows: proportions spread,
    a rare class's crowded near 0): the heuristic chooses the partition its rule chooses."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(4, 11))
    table = _few_rows_table(rng, int(rng.integers(40, 301)), n_classes,
                            1.5 if seed % 2 else 30.0)
    min_leaf = float(rng.choice([ANY, 1.0, 5.0]))
    side, _ = best_subset_class(table, GINI, min_leaf, 12)
    np.testing.assert_array_equal(side, _heuristic_rule(table, GINI, min_leaf))
