"""C4.5's pessimistic error estimate of a leaf (Quinlan 1993, §4.2), as a kernel.

A leaf holding N training cases (weighted, fractional) with E errors is expected to make
E + pessimistic_errors(N, E, CF) errors on unseen cases: the upper limit U_CF(E, N) of the binomial
confidence interval at level CF, times N. C4.5's code and J48 use the normal approximation with a
continuity correction, and for E < 1 interpolate between the exact E = 0 bound and E = 1:

    E = 0:    N (1 - CF^(1/N))
    0 < E < 1: that + E (pessimistic_errors(N, 1) - that)
    E >= 1:   f = (E + 0.5) / N,  z = Phi^-1(1 - CF)
              U = (f + z^2/2N + z sqrt(f/N - f^2/N + z^2/4N^2)) / (1 + z^2/N)   ->   N U - E
              (N - E when E + 0.5 >= N)

The kernels take z from the caller (``normal_quantile``), computed once per pruning pass.
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
from numba import njit

from ..engine.stats import total_and_errors


def normal_quantile(p: float) -> float:
    """Phi^-1(p), the standard normal quantile."""
    return NormalDist().inv_cdf(p)


@njit(cache=True, no_cfunc_wrapper=True)
def added_errors(n, e, confidence, z):
    """pessimistic_errors(n, e, confidence) with z = Phi^-1(1 - confidence) given."""
    if n <= 0:
        return 0.0
    base = 0.0
    if e < 1:
        base = n * (1.0 - confidence ** (1.0 / n))
        if e == 0:
            return base
    k = max(e, 1.0)  # the normal approximation at e, or at 1 to interpolate below 1
    if k + 0.5 >= n:
        upper = max(n - k, 0.0)
    else:
        f = (k + 0.5) / n
        r = (f + z * z / (2 * n) + z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))) / (1 + z * z / n)
        upper = r * n - k
    if e < 1:
        return base + e * (upper - base)
    return upper


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def leaf_estimate(counts, confidence, z, empty):
    """E + pessimistic_errors(N, E, CF) of a leaf with these class counts; 0 when N <= ``empty``
    (a leaf that holds nothing predicts nothing wrong)."""
    n, e = total_and_errors(counts)
    if n <= empty:
        return 0.0
    return e + added_errors(n, e, confidence, z)


def pessimistic_errors(n: float, e: float, confidence: float) -> float:
    """Extra errors C4.5 adds to the e training errors of a leaf holding n (weighted) cases at
    confidence level CF (default 0.25); see the module docstring."""
    return float(added_errors(float(n), float(e), float(confidence),
                              normal_quantile(1.0 - confidence)))
