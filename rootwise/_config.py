"""One place for the engine's fixed choices: dtypes, node kinds, sentinels, criterion codes.

Kernels compile once per dtype signature, so every array that reaches ``_core`` uses these dtypes.
"""

import numpy as np

# Encoded feature matrix: continuous values as float64, categorical codes stored as float64 too
# (exact up to 2**53), NaN = missing in both kinds. One dtype means each kernel compiles once.
X_DTYPE = np.float64
WEIGHT_DTYPE = np.float64
INDEX_DTYPE = np.int64

# Feature kinds (schema.kinds).
CONTINUOUS = 0
CATEGORICAL = 1

# Node kinds (Tree.kind).
LEAF = 0
THRESHOLD = 1  # binary: x <= threshold -> child 0, else child 1
MULTIWAY = 2  # one child per category (ID3 / C4.5)
SUBSET = 3  # binary on a category subset (CART): pool maps category -> 0 (left) or 1 (right)

# Category -> branch pool entry for a category that has no branch at a node. Prediction stops at
# that node and uses its class distribution: TreeGenerate's rule for an empty branch (Zhou 2016,
# §4.1, stopping case 3).
NO_BRANCH = -1

# Missing-value routing of a split node (Tree.missing_branch), when the tested value is missing.
MISSING_STOP = -1  # stop at this node and use its distribution
MISSING_FRACTIONAL = -2  # C4.5: go down every branch with weight r_v
# values >= 0: go to that child (CART's fallback after the surrogates: the larger child)

# Code written into the encoded matrix for a category never seen in training.
UNSEEN_CODE = -1.0

# Integer category codes of the column-wise prediction input (``input/columns``): int32, the
# codes 0..k-1 of the fitted categories, and these two for the other cells.
CODE_DTYPE = np.int32
CODE_MISSING = -1  # a missing cell (pandas' own code for one)
CODE_UNSEEN = -2  # a category never seen in training

# Criterion codes shared by kernels.
ENTROPY = 0
GINI = 1
SQUARED_ERROR = 2
POISSON = 3  # half Poisson deviance (regression)
ABSOLUTE_ERROR = 4  # least absolute deviation (regression)

# Two scores within this distance are a tie; the lower column index (then lower threshold) wins.
# Mathematically equal gains can differ in the last bits depending on summation order.
TIE_TOLERANCE = 1e-12

# Surrogate splits (CART, rpart's rules; ``reference.missing``): a surrogate must send at least
# this many rows (primary known, positive weight) each way, ...
MIN_SURROGATE_SIDE = 2
# ... and is kept only if its adjusted agreement exceeds this (rpart's cut-off for round-off)
MIN_ADJUSTED_AGREEMENT = 1e-10
