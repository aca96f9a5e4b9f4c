"""Deterministic synthetic data for the benchmarks.

Every generator takes its sizes and a seed and returns the same arrays on every machine
(numpy's PCG64 stream). Continuous values are rounded to float32 and handed out as float64:
scikit-learn's trees cast X to float32, so values that are exact in float32 make both libraries
see the same numbers and cut at the same midpoints.

The targets depend on a few informative columns through a non-linear rule, and a share of the
labels (or a noise term) is random, so fully grown trees are deep: they have to isolate noise.

    classification(n_rows, n_features)   -> X (float64), y (int64 class codes)
    regression(n_rows, n_features)       -> X (float64), y (float64)
    mixed(n_rows, n_continuous, n_categorical) -> pandas DataFrame with categorical columns and
                                            missing cells in both kinds, y (int64)
    real_table(n_rows)                   -> the engine benchmark's table: 10 numeric and 10
                                            categorical columns (3..200 categories), 5 % missing
    hard_table(n_rows)                   -> its hard variant: 8 heavy-tailed numeric columns,
                                            10 categorical ones of 2..1000 categories, 15 %
                                            missing cells, 4 classes (or a regression target)
"""

from __future__ import annotations

import numpy as np


def _continuous(rng: np.random.Generator, n_rows: int, n_features: int) -> np.ndarray:
    """Standard normal columns, exact in float32, as a C-contiguous float64 matrix."""
    X = np.empty((n_rows, n_features), dtype=np.float64)
    chunk = 65536  # bounded temporaries for large matrices
    for start in range(0, n_rows, chunk):
        stop = min(start + chunk, n_rows)
        X[start:stop] = rng.standard_normal((stop - start, n_features), dtype=np.float32)
    return X


def _signal(rng: np.random.Generator, Z: np.ndarray, n_outputs: int) -> np.ndarray:
    """A smooth non-linear score per output from the informative columns ``Z``: a random linear
    part, pairwise products and sines, so no single axis-aligned cut explains it."""
    k = Z.shape[1]
    W = rng.standard_normal((k, n_outputs))
    P = rng.standard_normal((k, n_outputs))
    S = Z @ W
    for a in range(k):
        b = (a + 1) % k
        S += np.outer(Z[:, a] * Z[:, b], P[a]) * 0.5
        S += np.outer(np.sin(2.0 * Z[:, a]), P[b])
    return S


def _target(rng: np.random.Generator, score: np.ndarray, n_classes: int, label_noise: float,
            regression: bool) -> np.ndarray:
    """The target of a score per output: with ``regression`` the one score plus Gaussian noise
    (half its standard deviation), else the class of the largest score, ``label_noise`` of the
    labels replaced by random classes."""
    n_rows = score.shape[0]
    if regression:
        s = score[:, 0]
        return s + 0.5 * s.std() * rng.standard_normal(n_rows)
    y = np.argmax(score, axis=1).astype(np.int64)
    flip = rng.random(n_rows) < label_noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return y


def classification(n_rows: int, n_features: int, *, n_informative: int = 5, n_classes: int = 3,
                   label_noise: float = 0.1, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """X: ``n_features`` float32-exact normal columns, the first ``n_informative`` of which carry
    the signal; y: the argmax of a non-linear score per class, with ``label_noise`` of the labels
    replaced by random classes."""
    if n_features < 1 or n_rows < 1:
        raise ValueError("need at least one row and one feature")
    rng = np.random.default_rng(seed)
    X = _continuous(rng, n_rows, n_features)
    k = min(n_informative, n_features)
    y = np.argmax(_signal(rng, X[:, :k], n_classes), axis=1).astype(np.int64)
    flip = rng.random(n_rows) < label_noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    return X, y


def regression(n_rows: int, n_features: int, *, n_informative: int = 5, noise: float = 0.5,
               seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """X as in ``classification``; y = non-linear signal + Gaussian noise (``noise`` standard
    deviations of the signal)."""
    if n_features < 1 or n_rows < 1:
        raise ValueError("need at least one row and one feature")
    rng = np.random.default_rng(seed)
    X = _continuous(rng, n_rows, n_features)
    k = min(n_informative, n_features)
    s = _signal(rng, X[:, :k], 1)[:, 0]
    y = s + noise * s.std() * rng.standard_normal(n_rows)
    return X, y.astype(np.float64)


def mixed(n_rows: int, n_continuous: int, n_categorical: int, *, n_levels: int = 8,
          missing_rate: float = 0.05, n_classes: int = 3, label_noise: float = 0.1,
          seed: int = 0):
    """A pandas DataFrame with ``n_continuous`` float columns (``x0``, ``x1``, ...) and
    ``n_categorical`` pandas categorical columns (``c0``, ...; levels ``"L0"``..), each cell
    missing with probability ``missing_rate``; y (int64 class codes) depends on two continuous
    and two categorical columns (when there are that many)."""
    import pandas as pd

    if n_rows < 1 or n_continuous + n_categorical < 1:
        raise ValueError("need at least one row and one feature")
    rng = np.random.default_rng(seed)
    Xc = _continuous(rng, n_rows, n_continuous) if n_continuous else np.empty((n_rows, 0))
    codes = rng.integers(0, n_levels, size=(n_rows, n_categorical))
    # each level of each categorical column gets a random effect per class
    effects = rng.standard_normal((n_categorical, n_levels, n_classes))
    score = np.zeros((n_rows, n_classes))
    if n_continuous:
        score += _signal(rng, Xc[:, :min(2, n_continuous)], n_classes)
    for j in range(min(2, n_categorical)):
        score += 1.5 * effects[j][codes[:, j]]
    y = np.argmax(score, axis=1).astype(np.int64)
    flip = rng.random(n_rows) < label_noise
    y[flip] = rng.integers(0, n_classes, size=int(flip.sum()))

    levels = [f"L{v}" for v in range(n_levels)]
    columns = {}
    for j in range(n_continuous):
        col = Xc[:, j].copy()
        col[rng.random(n_rows) < missing_rate] = np.nan
        columns[f"x{j}"] = col
    for j in range(n_categorical):
        c = codes[:, j].copy()
        c[rng.random(n_rows) < missing_rate] = -1  # -1 is pandas' code for a missing category
        columns[f"c{j}"] = pd.Categorical.from_codes(c, categories=levels)
    return pd.DataFrame(columns), y



# The engine benchmark's table ("a table of the shape users bring"): its categorical columns' sizes.
REAL_TABLE_LEVELS = (3, 5, 8, 12, 20, 30, 50, 80, 120, 200)


def real_table(n_rows: int, *, n_classes: int = 3, missing_rate: float = 0.05,
               label_noise: float = 0.1, regression: bool = False, seed: int = 0):
    """A table of the shape users bring: 10 standard-normal numeric columns ``x0``..``x9``
    (float32-exact) and 10 pandas categorical columns ``c0``..``c9`` with 3, 5, 8, 12, 20, 30,
    50, 80, 120 and 200 categories (levels ``"c3_0"``.., drawn with Zipf-like frequencies, as
    real categories are), every cell missing with probability ``missing_rate``. The target
    depends non-linearly on three numeric and three categorical columns: class codes
    (``n_classes``), or with ``regression`` a float with Gaussian noise. Returns (DataFrame, y)."""
    import pandas as pd

    if n_rows < 1:
        raise ValueError("need at least one row")
    rng = np.random.default_rng(seed)
    Xc = _continuous(rng, n_rows, 10)
    outputs = 1 if regression else n_classes
    score = _signal(rng, Xc[:, :3], outputs)
    columns = {f"x{j}": Xc[:, j] for j in range(10)}
    for j, k in enumerate(REAL_TABLE_LEVELS):
        p = 1.0 / np.arange(1, k + 1) ** 0.8
        codes = rng.choice(k, size=n_rows, p=p / p.sum())
        if j in (0, 3, 6):  # informative: a random effect per category and output
            score += 1.2 * rng.standard_normal((k, outputs))[codes]
        columns[f"c{j}"] = codes
    y = _target(rng, score, n_classes, label_noise, regression)
    out = {}
    for name, col in columns.items():
        hole = rng.random(n_rows) < missing_rate
        if name.startswith("x"):
            col = col.copy()
            col[hole] = np.nan
            out[name] = col
        else:
            k = REAL_TABLE_LEVELS[int(name[1:])]
            codes = np.where(hole, -1, col)  # -1 is pandas' code for a missing category
            out[name] = pd.Categorical.from_codes(codes, categories=[f"{name}_{v}" for v in range(k)])
    return pd.DataFrame(out), y


def _student_t(rng: np.random.Generator, n_rows: int, n_features: int, df: float) -> np.ndarray:
    """Student's t columns with ``df`` degrees of freedom (heavy tails: a few far outliers),
    exact in float32, as a C-contiguous float64 matrix."""
    X = np.empty((n_rows, n_features), dtype=np.float64)
    chunk = 65536
    for start in range(0, n_rows, chunk):
        stop = min(start + chunk, n_rows)
        X[start:stop] = rng.standard_t(df, size=(stop - start, n_features)).astype(np.float32)
    return X


def hard_levels(max_levels: int = 1000, n_columns: int = 10) -> tuple[int, ...]:
    """The category counts of ``hard_table``'s columns: geometrically spaced from 2 up to
    ``max_levels``, rounded: 2, 4, 8, 16, 32, 63, 126, 251, 501, 1000 for the default."""
    if max_levels < 2:
        raise ValueError(f"max_levels must be at least 2, got {max_levels}")
    spaced = np.geomspace(2, max_levels, n_columns)
    return tuple(int(k) for k in np.clip(np.round(spaced), 2, max_levels))


HARD_INFORMATIVE = (1, 5, 9)  # hard_table's categorical columns that drive the target


def hard_table(n_rows: int, *, n_classes: int = 4, missing_rate: float = 0.15,
               max_levels: int = 1000, regression: bool = False, label_noise: float = 0.1,
               seed: int = 0):
    """The hard variant of ``real_table``: 8 numeric columns ``x0``..``x7`` drawn from Student's
    t with 3 degrees of freedom (float32-exact), 10 pandas categorical columns ``c0``..``c9``
    with ``hard_levels(max_levels)`` categories (levels ``"c0_0"``.., Zipf-like frequencies,
    p_k proportional to k^-0.8), every cell missing with probability ``missing_rate``. The
    target depends on three numeric columns (through arcsinh, so the t tails do not swamp the
    score) and on three categorical columns (``HARD_INFORMATIVE``: a random effect per category
    and output, one of them the widest column): class codes 0..``n_classes``-1 (2 to 10), with
    ``label_noise`` of them random, or with ``regression`` a float with Gaussian noise.
    Returns (DataFrame, y)."""
    import pandas as pd

    if n_rows < 1:
        raise ValueError(f"n_rows must be at least 1, got {n_rows}")
    if not regression and not 2 <= n_classes <= 10:
        raise ValueError(f"n_classes must be between 2 and 10, got {n_classes}")
    if not 0.0 <= missing_rate < 1.0:
        raise ValueError(f"missing_rate must be in [0, 1), got {missing_rate}")
    levels = hard_levels(max_levels)
    rng = np.random.default_rng(seed)
    Xc = _student_t(rng, n_rows, 8, 3.0)
    outputs = 1 if regression else n_classes
    score = _signal(rng, np.arcsinh(Xc[:, :3]), outputs)
    out = {}
    for j in range(8):
        col = Xc[:, j]
        col[rng.random(n_rows) < missing_rate] = np.nan
        out[f"x{j}"] = col
    for j, k in enumerate(levels):
        p = 1.0 / np.arange(1, k + 1) ** 0.8
        codes = rng.choice(k, size=n_rows, p=p / p.sum())
        if j in HARD_INFORMATIVE:
            score += 1.2 * rng.standard_normal((k, outputs))[codes]
        codes[rng.random(n_rows) < missing_rate] = -1  # pandas' code for a missing category
        out[f"c{j}"] = pd.Categorical.from_codes(codes, categories=[f"c{j}_{v}" for v in range(k)])
    y = _target(rng, score, n_classes, label_noise, regression)
    return pd.DataFrame(out), y


def startup_case(algorithm: str, kind: str, seed: int = 5) -> tuple:
    """The small first fit timed by ``startup.py`` and ``startup_kernels.py``: 300 rows of numeric
    numpy data (``kind="numpy"``) or a DataFrame with categorical columns and 5 % missing cells
    (``kind="frame"``), shaped for ``algorithm`` (ID3 gets categories only, regression a number)."""
    if kind == "frame":
        if algorithm == "id3":
            X, y = mixed(300, 0, 4, missing_rate=0.0, seed=seed)
        else:
            X, y = mixed(300, 3, 2, missing_rate=0.05, seed=seed)
        if algorithm == "cart-regressor":
            y = y.astype(float) + np.random.default_rng(7).standard_normal(len(y))
        return X, y
    if algorithm == "cart-regressor":
        return regression(300, 5, seed=seed)
    X, y = classification(300, 5 if algorithm != "id3" else 4, seed=seed)
    if algorithm == "id3":
        X = np.clip(np.round(X), -2, 2)  # 5 levels per column, numbers as categories
    return X, y
