"""The engine's arguments, in named bundles: every kernel reads what it needs by name.

    Rows      the training rows: encoded matrix, targets, weights
    Features  how each column is searched: presorted (exact continuous), binned (category codes,
              or histogram bins of a continuous column), or read from X (a categorical column
              with more categories than a code byte holds); plus release 8's per-column facts
    Params    the ``Policy`` as numbers (criterion, selection rule, split shapes, stopping rules)
    Holdout   the validation rows of pre-pruning (empty arrays when there are none)

numba types a NamedTuple by its fields, so each bundle compiles once per combination of field
types; the fields are fixed dtypes (``_config``) so that there is one combination per task.

Reference counting. A numba function increments the reference count of every array it receives
on entry and decrements it on exit, atomically: a call that passes the working memory (about 60
arrays) cost some 120 locked instructions, and the per-node and per-column calls made 35 % of a
regression fit at 10^5 rows. The kernels on that path are compiled with ``_nrt=False`` (no
reference counting): they allocate nothing and return no array, so the counts they would have
kept balance out anyway; every array they see belongs to ``loop.fit``'s caller for the whole
fit. numba lets a function without the flag inherit it from the first caller that compiles it,
so a kernel that allocates and is called from one of them says ``_nrt=True`` explicitly.

Argument copies. A call passes each array of a bundle as its fields (7 words for a 1-D array, 9 for
a 2-D one), on the stack: the calls made per column at every node (``Features``, ``Params``, the
scan scratch and ``search.Candidates``: some 400 words each) and per node inside the search and the
surrogates copied several thousand words per node: two fifths of a fully grown regression fit of
10^5 rows (1.46 -> 0.85 s when they went). So ``search.search``, the stages ``chosen.route`` calls
(the surrogate search among them), and the stages they run per column are ``inline="always"``:
numba inlines them into their ``_nrt=False`` caller before typing, and a bundle's fields are then
read where they lie. Since the growth loop (``loop._grow_from``) allocates nothing and counts no
references either, the per-node stages are inlined into it too (``loop._find_split``, ``_visit``,
``chosen.route``, ``binary_rows``, ``record_split``, ``add_children``): a fully grown regression
fit of 10^5 rows 0.79 -> 0.72 s. The two large ones, ``_find_split`` and ``route``, are called
again (once per node each, not per column): inlined, they made the loop one unit of half a first
fit's compile (numba's inlining pass, and the typing and lowering of one huge function); called,
the fully grown regression fit of 10^5 rows measured the same (1.50 s of CPU, median of 6, on a
busy machine: +-10 %). Each call site of an inlined kernel compiles it once more, so the loop
calls the split search from one place only.

Entry wrappers. numba compiles a kernel with an entry for CPython unless told
``no_cpython_wrapper=True``, and one for C callbacks unless ``no_cfunc_wrapper=True``: the two were
three quarters of a first fit's code, for kernels that no Python code calls and no C code at all.
No kernel has a C callback entry; a kernel that only other kernels call has no CPython entry
either, and Python must never call it (it would jump to a null address:
``tests/test_kernel_wrappers.py`` reads the sources for such calls). Such a kernel is compiled
link-only (``rootwise/_link_only.py``): its IR is linked into the kernels that call it and
optimized there, once per entry kernel, instead of also on its own and in every library between.

Literals. numba types a variable set to a constant as that constant (``Literal[int](0)``) until
the variable's other assignments unify it, and it compiles a kernel called with it for every
argument type it tries on the way: a count starting at 0 and passed to a kernel compiled that
kernel and everything below it twice (``_rows_gini_two`` four times), 0.5-2 s of a cold first
fit each. Such values start as ``np.int64(0)`` / ``np.bool_(...)``.
"""

from typing import NamedTuple

import numpy as np

# Params.missing
MISSING_ERROR = 0  # ID3: a missing value is refused before fitting
MISSING_FRACTIONAL = 1  # C4.5: rows go down every branch with weight w * r_v
MISSING_SURROGATE = 2  # CART: surrogate splits, then the majority branch

# Features.search, per column
SORTED = 0  # continuous, exact: a presorted column of words (``segments``)
BINNED = 1  # a byte code per row: category code, or histogram bin of a continuous column
WIDE = 2  # categorical with more categories than a byte holds: codes read from X


class Rows(NamedTuple):
    X: np.ndarray  # (n, d) float64: values, category codes, NaN = missing
    yc: np.ndarray  # (n,) int64 class codes, or empty for regression
    yr: np.ndarray  # (n,) float64 targets, or empty for classification
    w: np.ndarray  # (n,) float64 sample weights (zero allowed)


class Features(NamedTuple):
    search: np.ndarray  # (d,) int64: SORTED, BINNED or WIDE
    categorical: np.ndarray  # (d,) bool
    n_values: np.ndarray  # (d,) int64: categories, or bins of a binned continuous column
    slot: np.ndarray  # (d,) int64: the column's row of the words (SORTED) or byte of the codes
    bin_min: np.ndarray  # (d, 256) float64: smallest training value per bin (binned continuous)
    bin_max: np.ndarray  # (d, 256) float64: largest training value per bin
    # release 8: the row where each distinct value of a continuous column first occurs, in
    # ascending order of the values, the columns concatenated (uint32)
    distinct_first: np.ndarray
    distinct_at: np.ndarray  # (d + 1,) int64: column j's are distinct_first[distinct_at[j]:...]
    values: np.ndarray  # release 8: (n_sorted, n) the presorted columns' values, by slot and row
    in_average: np.ndarray  # (d,) bool: release 8, the gain counts in the average gain
    log2_cuts: np.ndarray  # release 8: log2(c) for c = 0..n as numpy computes it


class Params(NamedTuple):
    n_classes: int  # 0 for regression
    criterion: int  # ENTROPY / GINI / SQUARED_ERROR
    regression: bool
    by_ratio: bool  # C4.5's selection: gain ratio among the above-average gains
    multiway: bool  # categorical tests: one branch per category (else a subset test)
    missing: int  # MISSING_ERROR / MISSING_FRACTIONAL / MISSING_SURROGATE
    release8: bool
    max_depth: int
    min_samples_split: float
    min_leaf: float
    two_branches: bool  # C4.5's leaf rule: two branches need min_leaf
    epsilon: float
    min_impurity_decrease: float
    impurity_threshold: float
    cost_floor: float  # a node whose cost c(t) is at most this is a leaf (``cp``; 0: off)
    floor_misclassified: bool  # c(t) = W - max_k w_k (else W * I(t), the impurity cost)
    max_leaf_nodes: int  # 0: depth-first growth
    median: bool  # regression leaves predict the weighted median
    max_surrogates: int
    max_exhaustive: int
    min_side: int
    min_adjusted: float
    prepruning: bool  # validation rows are given (``Holdout``)
    prune_on_tie: bool
    r8_min_objects: float
    r8_share: float
    r8_cap: float
    n_threads: int
    # (d,) int64 per column: -1, 0, 1, a monotonic constraint on the node value (``monotone``;
    # classification: the first class's proportion); empty when the fit has none
    monotonic: np.ndarray
    # rows, not weight (scikit-learn's and rpart's counts; 0: off): a node with fewer rows of
    # positive weight is a leaf, and each side of a presorted column's cut needs this many
    # (with equal weights the caller states the count as a weight, min_leaf, for every scan)
    min_split_rows: int
    min_leaf_rows: int


class Holdout(NamedTuple):
    X: np.ndarray  # (m, d) float64 encoded validation rows
    yc: np.ndarray
    yr: np.ndarray
    w: np.ndarray
