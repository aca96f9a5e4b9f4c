"""The radix argsort equals numpy's stable argsort on every kind of float64 data, and the radix
sort of the values alone gives what that argsort gathers."""

import numpy as np
import pytest

from rootwise.engine.radix import radix_argsort, radix_sort


def _column(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    kind = seed % 8
    if kind == 0:
        x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300)
    elif kind == 1:
        x = rng.integers(-5, 5, size=n).astype(float)  # many ties, negative and positive
    elif kind == 2:
        x = rng.choice([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 5e-324, -5e-324], size=n)
    elif kind == 3:
        x = np.full(n, 3.25)  # one value: every pass is skipped
    elif kind == 4:
        x = rng.uniform(-1, 1, size=n).round(2)
    elif kind == 5:  # equal high 32 bits, low bits apart: one long run for the low halves
        x = 1.0 + rng.integers(0, 1000, size=n) * 2.0 ** -52
    elif kind == 6:  # short runs of equal high halves (about 8 values), low bits apart
        centers = rng.normal(size=n // 8 + 1)
        x = centers[rng.integers(0, len(centers), size=n)] * (1 + rng.integers(0, 8, size=n)
                                                                * 2.0 ** -50)
    else:  # short and long runs of equal high halves, both signs, among spread values
        x = rng.choice([-3.0, 1.0, 2.5], size=n) + rng.integers(0, 40, size=n) * 2.0 ** -50
        spread = rng.random(n) < 0.3
        x[spread] = rng.normal(size=int(spread.sum()))
    return x


@pytest.mark.parametrize("seed", range(32))
def test_radix_argsort_is_numpys_stable_argsort(seed):
    x = _column(seed)
    np.testing.assert_array_equal(radix_argsort(x), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("seed", range(25))
def test_radix_sort_is_the_stable_gather_up_to_the_sign_of_later_zeros(seed):
    """Bit for bit x[argsort(x)] but that every zero takes the sign of the first zero of x (the
    first of its run there): -0.0 first or 0.0 first, zeros of both signs, or none."""
    x = _column(seed)
    if seed >= 20:
        x = np.array([1.0, -0.0, 2.0, 0.0, -1.0, -0.0] if seed % 2 else [0.0, -0.0, -2.0])
    got = radix_sort(x)
    want = x[np.argsort(x, kind="stable")]
    zeros = want == 0.0
    if zeros.any():
        want[zeros] = x[x == 0.0][0]  # the first zero's sign, as the stable gather puts it first
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


def test_radix_argsort_of_a_strided_column():
    X = np.random.default_rng(0).normal(size=(500, 3))
    np.testing.assert_array_equal(radix_argsort(X[:, 1]), np.argsort(X[:, 1], kind="stable"))
