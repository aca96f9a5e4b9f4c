"""``engine.sorted_scan``: pass 1 of a threshold scan may skip the proxies that cannot change
its top or second; pass 2, when it runs, must see every proxy again."""

import numpy as np
import pytest
from test_engine_entropy_runs import make_words, scratch

from rootwise._config import GINI
from rootwise.engine.proxies import window_floor
from rootwise.engine.sorted_scan import _proxies_gini_three, _proxies_gini_two, scan_class


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
        top_i = scan_class(words, 0, 0, n, np.ones(n), True, k, GINI, 1.0, 0, s)
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
        top_i = scan_class(words, 0, 0, n, np.ones(n), True, 3, GINI, min_leaf, 0, s)
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


def _first_best_cut(values, classes, k, min_leaf):
    """The reference's rule by brute force: the first boundary whose Gini decrease beats the best
    so far by 1e-12 (every decrease from the cumulative class counts)."""
    order = np.argsort(values, kind="stable")
    n = len(values)
    cls = classes[order]
    left = np.cumsum(np.eye(k)[cls], axis=0)[:-1]  # left counts after each row
    total = left[-1] + np.eye(k)[cls[-1]]
    wl = np.arange(1, n, dtype=float)
    wr = n - wl
    gini_l = 1.0 - ((left / wl[:, None]) ** 2).sum(axis=1)
    gini_r = 1.0 - (((total - left) / wr[:, None]) ** 2).sum(axis=1)
    dec = (1.0 - ((total / n) ** 2).sum()) - wl / n * gini_l - wr / n * gini_r
    boundary = values[order[1:]] != values[order[:-1]]
    ok = boundary & (wl >= min_leaf) & (wr >= min_leaf)
    best, expect = -np.inf, -1
    for i in np.flatnonzero(ok):
        if dec[i] > best + 1e-12:
            best, expect = dec[i], int(i)
    return expect


def test_long_columns_choose_the_first_best_cut():
    """Columns of thousands of rows, where the two-class pass 1 passes over blocks of cuts that
    are surely below the second largest proxy of a sample of cuts or of those seen (their
    corners' proxies, the proxy being convex in the left counts): the cut is still the first
    best, with two and three classes, class boundaries that are sharp or noisy, tied values
    and min_leaf."""
    for seed in range(120):
        rng = np.random.default_rng(seed)
        n, k = int(rng.integers(1500, 6000)), 2 + seed % 2
        values = rng.normal(size=n)
        if seed % 3 == 0:
            values = values.round(1)  # ties
        noise = rng.choice([0.05, 0.3, 0.45])
        cut = rng.normal()
        classes = np.where(rng.random(n) < noise, rng.integers(0, k, n),
                           (values > cut).astype(int) + (k == 3) * (values > cut + 1))
        classes = np.minimum(classes, k - 1)
        min_leaf = float(rng.choice([1.0, 1.0, 7.0, 200.0]))
        words = make_words(values, classes)
        s = scratch(n, k)
        top_i = scan_class(words, 0, 0, n, np.ones(n), True, k, GINI, min_leaf, 0, s)
        assert top_i == _first_best_cut(values, classes, k, min_leaf), seed


@pytest.mark.parametrize("k", [2, 3])
def test_pass_one_keeps_the_largest_proxy_and_the_second(k):
    """Pass 1 of two and three classes on long columns (blocks passed over, a sampled floor): the
    largest proxy, its first position and the largest of the others, equal to every boundary's
    proxy computed by brute force (integer sums of squares: the same numbers bit for bit)."""
    pass_one = _proxies_gini_two if k == 2 else _proxies_gini_three
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1500, 6000))
        values = rng.normal(size=n).round(int(rng.integers(1, 4)))
        p = 1.0 / (1.0 + np.exp(-values * rng.choice([0.5, 3.0])))
        classes = (rng.random(n) < p).astype(int) + (k == 3) * (rng.random(n) < p)
        if seed % 3 == 0:  # the best cut ends a block: the sample holds the top itself
            values = rng.permutation(n).astype(float)
            classes = (values >= 64 * int(rng.integers(5, n // 64 - 5))).astype(int) * (k - 1)
            noise = rng.random(n) < 0.05
            classes[noise] = rng.integers(0, k, int(noise.sum()))
        classes = rng.permutation(k)[classes]  # any class at either end
        min_leaf = float(rng.choice([1.0, 30.0]))
        order = np.argsort(values, kind="stable")
        counts = np.cumsum(np.eye(k, dtype=np.int64)[classes[order]], axis=0)
        left, total = counts[:-1], counts[-1]
        right = total - left
        wl = np.arange(1, n, dtype=float)
        wr = n - wl
        # sums of squares in class order, as the kernels add them
        sq_l, sq_r = left[:, 0] * left[:, 0], right[:, 0] * right[:, 0]
        for c in range(1, k):
            sq_l, sq_r = sq_l + left[:, c] * left[:, c], sq_r + right[:, c] * right[:, c]
        proxy = sq_l / wl + sq_r / wr
        ok = (values[order[1:]] != values[order[:-1]]) & (wl >= min_leaf) & (wr >= min_leaf)
        every = np.where(ok, proxy, -np.inf)
        top_i = int(np.argmax(every))
        second = np.delete(every, top_i).max()
        words = make_words(values, classes)
        got = pass_one(words, 0, 0, n, min_leaf, scratch(n, k))
        assert got == (top_i, every[top_i], second), seed
