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
