"""``engine.sorted_scan``: pass 1 of a threshold scan may skip the proxies that cannot change
its top or second; pass 2, when it runs, must see every proxy again."""

import numpy as np
from test_engine_entropy_runs import make_words, scratch

from rootwise._config import GINI
from rootwise.engine.proxies import window_floor
from rootwise.engine.sorted_scan import scan_class


def gini_proxies(classes_sorted, k, min_leaf):
    """Every admissible boundary's proxy sum_k l_k^2 / W_l + sum_k r_k^2 / W_r (unit weights,
    no ties in value), by position."""
    n = len(classes_sorted)
    total = np.bincount(classes_sorted, minlength=k).astype(float)
    left = np.zeros(k)
    out = {}
    for i in range(n - 1):
        left[classes_sorted[i]] += 1
        wl, wr = i + 1.0, n - i - 1.0
        if wl < min_leaf or wr < min_leaf:
            continue
        out[i] = float((left ** 2).sum() / wl + ((total - left) ** 2).sum() / wr)
    return out


def test_pass_two_sees_every_proxy_after_a_skipping_pass_one():
    ran = 0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n, k = int(rng.integers(4, 40)), int(rng.integers(3, 5))
        classes = rng.integers(0, k, n)
        if seed % 2:  # mirror images: boundaries of equal proxies, so that pass 2 runs
            half = classes[: n // 2]
            classes = np.concatenate([half, (k - 1 - half)[::-1]])
            n = len(classes)
        values = np.arange(n, dtype=float)
        words = make_words(values, classes)
        s = scratch(n, k)
        top_i = scan_class(words, 0, 0, n, np.ones(n), True, k, GINI, 1.0, s)
        every = gini_proxies(classes, k, 1.0)
        if not every:
            assert top_i == -1
            continue
        ranked = sorted(every.values(), reverse=True)
        if len(ranked) > 1 and ranked[1] >= window_floor(ranked[0], float(n)):
            ran += 1  # pass 2 ran: it read every boundary's proxy
            for i, v in every.items():
                assert s.proxy[i] == v
    assert ran > 20


def test_three_classes_choose_the_first_best_cut_and_its_counts():
    """Three classes (their own pass 1, counts in registers): against every boundary's proxy by
    brute force, with tied values and min_leaf, the cut is the first of the largest proxy when
    it is alone in the window, and the branch counts are those of that cut; the exact rule's
    choice otherwise (checked on the decrease below)."""
    def gini(c):
        return 1.0 - sum((x / sum(c)) ** 2 for x in c)

    checked = 0
    for seed in range(400):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 60))
        classes = rng.integers(0, 3, n)
        values = rng.integers(0, max(2, n // int(rng.integers(1, 4))), n).astype(float)
        min_leaf = float(rng.choice([1.0, 2.0, 5.0]))
        words = make_words(values, classes)
        order = np.argsort(values, kind="stable")
        s = scratch(n, 3)
        top_i = scan_class(words, 0, 0, n, np.ones(n), True, 3, GINI, min_leaf, s)
        cls = classes[order]
        total = np.bincount(cls, minlength=3).astype(float)
        best, expect = -np.inf, -1
        for i in range(n - 1):
            if values[order[i + 1]] == values[order[i]]:
                continue  # not a boundary: the next row ties
            left = np.bincount(cls[:i + 1], minlength=3).astype(float)
            wl, wr = i + 1.0, n - i - 1.0
            if wl < min_leaf or wr < min_leaf:
                continue
            dec = gini(total) - wl / n * gini(left) - wr / n * gini(total - left)
            if dec > best + 1e-12:  # the reference's rule: the first to beat the best
                best, expect = dec, i
        assert top_i == expect, seed
        if expect >= 0:
            checked += 1
            left = np.bincount(cls[:expect + 1], minlength=3).astype(float)
            np.testing.assert_array_equal(s.branches[0, :3], left)
            np.testing.assert_array_equal(s.branches[1, :3], total - left)
    assert checked > 300
