"""``engine.near_log``: the screening log2 stays within 1e-13 of numpy's over the weights a fit
meets (J48's cut-off 1e-6 up to 10^9, whole numbers, powers of two and their neighbours)."""

import numpy as np
from numba import njit

from rootwise.engine.near_log import near_log2


@njit(cache=False)
def _all(xs):
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        out[i] = near_log2(xs[i])
    return out


def test_within_1e13_of_numpy():
    rng = np.random.default_rng(0)
    powers = 2.0 ** np.arange(-20, 30)
    xs = np.concatenate([10.0 ** rng.uniform(-6, 9, 200_000), np.arange(1.0, 20_001.0),
                         powers, np.nextafter(powers, 0), np.nextafter(powers, np.inf)])
    err = np.abs(_all(xs) - np.log2(xs))
    assert err.max() < 1e-13
