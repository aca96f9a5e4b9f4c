"""A node of binned columns for the entry and histogram kernels' tests: its segment, scratch, and
the same rows as numpy arrays for brute-force counts."""

import numpy as np

from rootwise.engine.scratch import new_scratch
from rootwise.engine.segments import root_segments


def binned_node(seed, n=400, regression=False):
    """A segment of n rows: a few categorical columns (codes, missing cells), 2 or 3 classes (or a
    regression target, y then float), weights 0 or 1; and the scratch with its histograms."""
    rng = np.random.default_rng(seed)
    n_values = rng.integers(2, 12, size=int(rng.integers(1, 11))).astype(np.int64)
    d = n_values.shape[0]
    X = np.stack([rng.integers(0, k, n) for k in n_values], axis=1).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    n_classes = int(rng.integers(2, 4))
    y = rng.integers(0, n_classes, n).astype(np.int64)
    w = (rng.random(n) < 0.9).astype(float)
    binned = np.arange(d, dtype=np.int64)
    if regression:
        y = rng.normal(size=n)
    yc, yr = (np.zeros(0, dtype=np.int64), y) if regression else (y, np.zeros(0))
    seg = root_segments(X, yc, yr, w, np.zeros(0, dtype=np.int64), binned,
                        np.zeros(d, dtype=np.bool_), np.zeros((n, d), dtype=np.uint8), n_values,
                        n, False)
    width = 3 if regression else n_classes
    scr = new_scratch(n, d, n_classes, width, binned, n_values, int(n_values.max()), 0,
                      seg.codes.shape[1], True, not regression, medians=regression)
    codes = np.where(np.isnan(X), n_values, np.nan_to_num(X)).astype(np.int64)
    return seg, scr, codes, y, w, n_values, n_classes
