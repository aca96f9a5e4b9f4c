"""Comparing two trees' arrays: structure exactly, floating statistics up to rounding (sums taken
in another order may differ in the last bits)."""

import numpy as np


def close(a, b) -> bool:
    """Same shape; equal integers; floats within 1e-12 (NaN equal to NaN)."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)
    return np.array_equal(a, b)
