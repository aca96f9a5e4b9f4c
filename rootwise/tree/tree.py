"""The fitted tree: flat node arrays, a value array and a tree-wide category->branch pool.

One format serves every algorithm. Node ``i`` is a leaf, a threshold test (x <= t: child 0, else
child 1), a multiway test (one child per category) or a subset test (category -> child 0 or 1).
Children of a node are stored consecutively from ``first_child[i]``; a categorical test looks
up its branch in ``pool[pool_offset[i] + code]``. ``value[i]`` holds weighted class counts (or the
regression value) and is what a row that stops at node ``i`` predicts.

The pool is int8 when every entry fits (every binary tree: its entries are -1, 0 and 1), else
int32 (a multiway test of more than 128 branches): a fully grown CART tree on wide categorical
columns holds an entry per category of every subset test and subset surrogate, 83 million at
10^6 rows of a table of 10 numeric and 10 categorical columns, and as int32 they were 59 % of
the fitted model.
"""

from __future__ import annotations

import numpy as np

from .._config import CODE_DTYPE, LEAF, THRESHOLD
from . import walk as kernels
from . import walk_columns as column_kernels
from .integrity import check_tree
from .plain import number_array, number_table

MAX_ROWS = np.iinfo(np.int64).max  # ``split_min`` of a tree whose rows never split together

# name -> dtype of every per-node array, in a fixed order (also the JSON field order)
NODE_FIELDS = {
    "feature": np.int32,
    "kind": np.int8,
    "threshold": np.float64,
    "first_child": np.int32,
    "n_children": np.int32,
    "pool_offset": np.int32,
    "missing_branch": np.int32,
    "parent": np.int32,
    "depth": np.int32,
    "impurity": np.float64,
    "n_node_samples": np.int64,
    "weighted_n_node_samples": np.float64,
    "branch_fraction": np.float64,
    "surrogate_offset": np.int32,
    "n_surrogates": np.int32,
    # the split's impurity decrease over the rows whose tested value is known, in weight units:
    # w(P) I(P) - sum_v w(P_v) I(P_v) (squared error: the drop of the sum of squares); rpart's
    # ``improve`` and the base of its variable importance. Meaningful for split nodes only.
    "improvement": np.float64,
}

# the tree-wide table of surrogate splits (CART); node i owns rows
# surrogate_offset[i] .. surrogate_offset[i] + n_surrogates[i] - 1, best first
SURROGATE_FIELDS = {
    "feature": np.int32,
    "kind": np.int8,  # THRESHOLD or SUBSET
    "threshold": np.float64,
    "left_branch": np.int8,  # THRESHOLD: the child taken when x <= threshold (0 or 1)
    "pool_offset": np.int32,  # SUBSET: category -> child in the shared pool
    "agreement": np.float64,
    "adjusted_agreement": np.float64,
}

# fields a plain-data tree may leave out (trees written before they existed)
_OPTIONAL_NODE_FIELDS = ("improvement",)


def narrowest_pool(pool) -> np.ndarray:
    """The category pool as int8 when every entry fits, else int32 (the module docstring); an
    int8 pool is kept as it is (the engine writes one)."""
    pool = np.asarray(pool)
    if pool.dtype == np.int8:
        return np.ascontiguousarray(pool)
    pool = np.ascontiguousarray(pool, dtype=np.int32)
    if pool.size == 0 or (int(pool.min()) >= -128 and int(pool.max()) <= 127):
        return pool.astype(np.int8)
    return pool


class Tree:
    """Flat arrays of a fitted tree; see the module docstring for the layout."""

    def __init__(self, nodes: dict, value: np.ndarray, pool: np.ndarray, n_categories: np.ndarray,
                 surrogates: dict | None = None):
        n = len(nodes["feature"])
        # made only for a field left out: three int64 / float64 arrays by node, 48 MB for the
        # fully grown regressor of 10^6 rows, were made for every tree while it was assembled
        defaults = {"surrogate_offset": lambda: np.full(n, -1), "n_surrogates": lambda: np.zeros(n),
                    "improvement": lambda: np.zeros(n)}
        for name, dtype in NODE_FIELDS.items():
            given = nodes[name] if name in nodes else defaults[name]()
            setattr(self, name, np.ascontiguousarray(given, dtype=dtype))
        surrogates = surrogates or {}
        self.surrogates = {name: np.ascontiguousarray(surrogates.get(name, []), dtype=dtype)
                           for name, dtype in SURROGATE_FIELDS.items()}
        self.value = np.ascontiguousarray(value, dtype=np.float64)
        self.pool = narrowest_pool(pool)
        self.n_categories = np.ascontiguousarray(n_categories, dtype=np.int64)
        self.validate()

    # ----------------------------------------------------------------- shape facts
    @property
    def node_count(self) -> int:
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.kind == LEAF))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def children(self, node: int) -> range:
        start = int(self.first_child[node])
        return range(start, start + int(self.n_children[node]))

    def branch_of_category(self, node: int) -> np.ndarray:
        """For a categorical test: the child slot of each category code (-1 = no branch)."""
        f = int(self.feature[node])
        off = int(self.pool_offset[node])
        return self.pool[off: off + int(self.n_categories[f])]

    # ----------------------------------------------------------------- routing
    def _walk_args(self):
        """The arrays of the general walk (``walk._walk_row``), in its order."""
        sur = self.surrogates
        return (self.feature, self.kind, self.threshold, self.first_child, self.pool_offset,
                self.pool, self.n_categories, self.missing_branch, self.surrogate_offset,
                self.n_surrogates, sur["feature"], sur["kind"], sur["threshold"],
                sur["left_branch"], sur["pool_offset"])

    def _args(self):
        return (*self._walk_args(), self.max_depth)

    def _check_X(self, X) -> np.ndarray:
        """The kernels read X[i, feature] without bounds checks: refuse a matrix whose columns are
        not the tree's features (and give them the one dtype they are compiled for)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.n_categories):
            raise ValueError(f"encoded X has shape {X.shape}, expected (n, {len(self.n_categories)})")
        return X

    def compact(self) -> tuple:
        """(records, origin): the compact layout of the routing kernels (``walk``), one
        16-byte record per node reachable from the root, and the node id of each record."""
        return self._layout()[:2]

    def _layout(self) -> tuple:
        """(records, origin, bits, detours, surrogate records): everything the compact walk
        reads besides X, the pool and n_categories (``walk``). Derived from the node arrays on
        first use and kept (never persisted: ``to_dict`` and pickles leave it out)."""
        layout = self.__dict__.get("_compact")
        if layout is None:
            records = np.empty(self.node_count, dtype=kernels.COMPACT_NODE)
            origin = np.empty(self.node_count, dtype=np.int32)
            used = kernels.compact_layout(self.kind, self.feature, self.threshold,
                                          self.first_child, self.n_children, self.pool_offset,
                                          records, origin)
            records, origin = records[:used].copy(), origin[:used].copy()
            sur = self.surrogates
            s_records = np.zeros(len(sur["feature"]), dtype=kernels.COMPACT_SURROGATE)
            for name in ("threshold", "feature", "kind"):
                s_records[name] = sur[name]
            s_records["left"] = sur["left_branch"]
            bits = kernels.category_bits(records, origin, self.feature, self.pool,
                                         self.n_categories, sur["feature"], sur["kind"],
                                         sur["pool_offset"], s_records)
            detours = np.empty(used, dtype=kernels.DETOUR)
            detours["node"] = origin
            detours["missing_branch"] = self.missing_branch[origin]
            detours["first_surrogate"] = self.surrogate_offset[origin]
            detours["n_surrogates"] = self.n_surrogates[origin]
            layout = self._compact = (records, origin, bits, detours, s_records)
        return layout

    def distribution(self) -> np.ndarray:
        """Each node's class distribution (value rows normalised to sum 1), kept after first use."""
        dist = self.__dict__.get("_distribution")
        if dist is None:
            dist = self._distribution = self.value / self.value.sum(axis=1, keepdims=True)
        return dist

    def majority(self) -> np.ndarray:
        """Each node's most probable class (the first on a tie) as an (n_nodes, 1) table, kept
        after first use."""
        label = self.__dict__.get("_majority")
        if label is None:
            label = self._majority = np.argmax(self.value, axis=1).astype(np.int64).reshape(-1, 1)
        return label

    def __getstate__(self):
        state = dict(self.__dict__)
        for derived in ("_compact", "_columns", "_distribution", "_majority", "_split_min"):
            state.pop(derived, None)
        return state

    def route(self, X: np.ndarray, table: np.ndarray, parallel: bool = False,
              check_finite: bool = True):
        """(ends, out, first_inf) for the encoded matrix ``X`` (float64 or float32, C or Fortran
        order: no copy): the node each row ends in (as ``apply``), ``table[end]`` per row, and the
        first row holding an infinite value (-1 when none; the caller refuses such a matrix).
        ``parallel``: blocks of rows on numba's threads (same result). ``check_finite=False``
        skips the search for infinite values, for a matrix whose encoder refused them."""
        if not (isinstance(X, np.ndarray) and X.dtype in (np.float64, np.float32)
                and (X.flags.c_contiguous or X.flags.f_contiguous)):
            X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.n_categories):
            raise ValueError(f"encoded X has shape {X.shape}, expected (n, {len(self.n_categories)})")
        if table.ndim != 2 or table.shape[0] != self.node_count:
            raise ValueError(f"table has shape {table.shape}, expected ({self.node_count}, k)")
        kernel = kernels.route_rows_parallel if parallel else kernels.route_rows
        records, _, bits, detours, s_records = self._layout()
        return kernel(X, table, check_finite, self.split_min(), records, bits, detours, s_records,
                      self.pool, self.n_categories)

    def split_min(self) -> int:
        """Fewest rows of a block that the walks split together at a node (``walk.SPLIT_MIN``)
        when the tree has subset tests; more than any block otherwise: rows through threshold
        tests alone walk one by one faster (measured: a fully grown tree of 24,868 leaves on 20
        numeric columns, 10^6 rows, 94-96 ms walked against 99-121 ms split), and a multiway
        test is walked one by one anyway. Kept with the layout."""
        kept = self.__dict__.get("_split_min")
        if kept is None:
            v = -2 - self._layout()[0]["feature"].astype(np.int64)
            subset = np.any((v >= 0) & (v % 2 == 0))  # feature <= -2, even v: a subset test
            kept = self._split_min = kernels.SPLIT_MIN if subset else MAX_ROWS
        return kept

    def column_layout(self, categorical: np.ndarray):
        """What the column-wise walk reads besides the rows, detours and pool (records, surrogate
        records, categories per code row, continuous columns, category bits with the fixed
        detours folded in, and the side tables of the subset tests nearest the root with their
        offsets: ``walk_columns``), for features whose kinds are ``categorical`` (a boolean
        mask): each continuous feature is a row of ``num`` and each categorical one a row
        of ``codes``, in feature order (as ``input.columns.slots``). None when a test of the tree
        does not fit its feature's kind (a threshold on a categorical feature, or the reverse):
        the column-wise walk cannot read it. Kept for the last mask."""
        categorical = np.asarray(categorical, dtype=bool)
        key = categorical.tobytes()
        kept = self.__dict__.get("_columns")
        if kept is not None and kept[0] == key:
            return kept[1]
        split = self.kind != LEAF
        sur = self.surrogates
        fits = (len(categorical) == len(self.n_categories)
                and np.array_equal(categorical[self.feature[split]],
                                   self.kind[split] != THRESHOLD)
                and np.array_equal(categorical[sur["feature"]], sur["kind"] != THRESHOLD))
        layout = None
        if fits:
            slot = np.empty(len(categorical), dtype=np.int64)
            slot[~categorical] = np.arange(int(np.sum(~categorical)))
            slot[categorical] = np.arange(int(np.sum(categorical)))
            records, origin, bits, _, s_records = self._layout()
            records, s_records = column_kernels.column_records(records, s_records, slot)
            n_categories = np.ascontiguousarray(self.n_categories[np.flatnonzero(categorical)])
            bits = column_kernels.fold_fixed_detours(records, origin, bits, self.missing_branch,
                                                     self.n_surrogates, n_categories)
            sides, sides_at = column_kernels.category_side_tables(records, self.depth[origin], bits,
                                                                  n_categories)
            layout = (records, s_records, n_categories, int(np.sum(~categorical)), bits, sides,
                      sides_at)
        self._columns = (key, layout)
        return layout

    def route_columns(self, num: np.ndarray, codes: np.ndarray, layout, table: np.ndarray,
                      parallel: bool = False):
        """(ends, out, first_inf) as ``route``, for rows given column-wise (``input/columns``):
        ``num`` the continuous features (float64, one row each, each row contiguous), ``codes``
        the categorical ones (int16 or int32 codes, one row each: ``input.columns.code_dtype``),
        ``layout`` from ``column_layout``. Infinite values in ``num`` are always looked for."""
        records, s_records, n_categories, n_continuous, bits, sides, sides_at = layout
        n = codes.shape[1] if codes.ndim == 2 else -1
        # the kernels read num[slot, i] and codes[slot, i] without bounds checks
        if not (num.dtype == np.float64 and num.ndim == 2 and num.shape == (n_continuous, n)
                and (num.flags.c_contiguous or num.strides[1] == num.itemsize)
                and codes.dtype in (np.int16, CODE_DTYPE) and codes.ndim == 2
                and codes.flags.c_contiguous and codes.shape[0] == len(n_categories)):
            raise ValueError(f"column-wise input has shapes {num.shape} and {codes.shape}, "
                             f"expected ({n_continuous}, n) float64 and "
                             f"({len(n_categories)}, n) int16 or int32")
        if table.ndim != 2 or table.shape[0] != self.node_count:
            raise ValueError(f"table has shape {table.shape}, expected ({self.node_count}, k)")
        table = np.ascontiguousarray(table)  # the kernels read it flat
        rows_of, first = _rows_of(num)
        # numba compiles once per writeable / read-only array type: pandas hands out its columns
        # read-only, so every input is passed read-only (the walk only reads it)
        rows_of, codes = rows_of.view(), codes.view()
        rows_of.flags.writeable = codes.flags.writeable = False
        kernel = column_kernels.route_columns_parallel if parallel else column_kernels.route_columns
        detours = self._layout()[3]
        return kernel(rows_of, first, codes, n, table, self.split_min(), records, bits, sides,
                      sides_at, detours, s_records, self.pool, n_categories,
                      column_kernels.block_rows(len(records)))

    def apply(self, X: np.ndarray, parallel: bool = False) -> np.ndarray:
        """Node each row of the encoded matrix ends in (a leaf, or the split node where it stops).
        ``parallel``: blocks of rows on numba's threads (same result)."""
        no_table = np.empty((self.node_count, 0), dtype=np.int64)  # only the end nodes
        ends, _, first_inf = self.route(X, no_table, parallel)
        if first_inf >= 0:
            raise ValueError(f"encoded X holds an infinite value in row {first_inf}")
        return ends

    def decision_path(self, X: np.ndarray):
        """Indicator matrix (rows x nodes, scipy.sparse CSR): entry (i, j) is 1 when row i passes
        node j."""
        import scipy.sparse as sp  # 0.2 s to import: only for the callers that want the matrix

        indptr, indices = self.decision_path_parts(X)
        data = np.ones(len(indices), dtype=np.int64)
        return sp.csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def fractional_distribution(self, X: np.ndarray, value: np.ndarray | None = None,
                                kind: np.ndarray | None = None) -> np.ndarray:
        """Per row of the encoded matrix, the ``value`` rows (default: class distributions) of
        where it ends, C4.5's way: a row missing the value tested at a fractional split goes down
        every branch and combines their outputs weighted by r_v (``branch_fraction``). ``kind``
        replaces the node kinds (a pruning pass asking about the tree with some nodes as leaves)."""
        return kernels.fractional_distribution(
            self._check_X(X), self.feature, self.kind if kind is None else kind, self.threshold,
            self.first_child, self.n_children, self.pool_offset, self.pool, self.n_categories,
            self.missing_branch, self.branch_fraction,
            self.distribution() if value is None else value)

    def decision_path_parts(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The decision paths as CSR parts: row i passes nodes indices[indptr[i]:indptr[i+1]],
        root first."""
        return kernels.path_rows(self._check_X(X), *self._args())

    # ----------------------------------------------------------------- integrity
    def validate(self) -> None:
        """Check every index the kernels follow and every number a prediction uses, so that no
        file or bug can make them read out of bounds (numba does not check bounds) or return
        probabilities that do not sum to 1 (``integrity``). ValueError names the field."""
        check_tree(self, NODE_FIELDS)

    # ----------------------------------------------------------------- plain data
    def to_dict(self) -> dict:
        """Plain lists (JSON-ready); NaN thresholds become None."""
        out = {}
        for name in NODE_FIELDS:
            arr = getattr(self, name)
            if arr.dtype.kind == "f":
                out[name] = [None if np.isnan(v) else float(v) for v in arr]
            else:
                out[name] = arr.tolist()
        out["value"] = self.value.tolist()
        out["pool"] = self.pool.tolist()
        out["n_categories"] = self.n_categories.tolist()
        out["surrogates"] = {name: [None if isinstance(v, float) and np.isnan(v) else v
                                    for v in arr.tolist()]
                             for name, arr in self.surrogates.items()}
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Tree":
        """The tree of ``to_dict``'s plain data. Every value must keep its meaning on the way: a
        number of the field's type (an integer within its dtype for integer fields; null is NaN
        in float fields), lists as long as the tree. ValueError names the field."""
        if not isinstance(data, dict):
            raise ValueError("tree is not a mapping of field names to lists")
        nodes = {}
        for name, dtype in NODE_FIELDS.items():
            if name not in data and name in _OPTIONAL_NODE_FIELDS:
                continue  # informational, not used for routing: the constructor's default
            if name not in data:
                raise ValueError(f"tree.{name}: the field is missing")
            nodes[name] = number_array(data[name], dtype, f"tree.{name}", nullable=True)
        for name in ("value", "pool", "n_categories"):
            if name not in data:
                raise ValueError(f"tree.{name}: the field is missing")
        value = number_table(data["value"], "tree.value")
        sur_in = data.get("surrogates") or {}
        if not isinstance(sur_in, dict):
            raise ValueError("tree.surrogates is not a mapping of field names to lists")
        surrogates = {name: number_array(sur_in.get(name, []), dtype, f"tree.surrogates.{name}",
                                         nullable=True)
                      for name, dtype in SURROGATE_FIELDS.items()}
        return cls(nodes, value, number_array(data["pool"], np.int32, "tree.pool"),
                   number_array(data["n_categories"], np.int64, "tree.n_categories"), surrogates)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        names = list(NODE_FIELDS) + ["value", "pool", "n_categories"]
        same_sur = all(np.array_equal(self.surrogates[k], other.surrogates[k], equal_nan=True)
                       for k in SURROGATE_FIELDS)
        return same_sur and all(np.array_equal(getattr(self, a), getattr(other, a), equal_nan=True)
                   if getattr(self, a).dtype.kind == "f"
                   else np.array_equal(getattr(self, a), getattr(other, a)) for a in names)

    __hash__ = None


def _rows_of(num: np.ndarray) -> tuple[np.ndarray, int]:
    """(base, first): a C-order float64 array with num == base[:, first:first + n], so that the
    column walk (compiled for C-order input) reads ``num`` without a copy. A row slice of a
    DataFrame leaves its float columns as rows of a longer block: the block is found among the
    arrays ``num`` is a view of, and checked by address. Otherwise (or when num is C-order
    already) a C-order copy, or num itself, with first = 0."""
    if num.flags.c_contiguous:
        return num, 0
    d, n = num.shape
    start = num.__array_interface__["data"][0]
    base = num.base
    while isinstance(base, np.ndarray):
        if (base.ndim == 2 and base.dtype == np.float64 and base.flags.c_contiguous
                and base.shape[0] == d and base.strides[0] == num.strides[0]):
            offset = start - base.__array_interface__["data"][0]
            first = offset // num.itemsize
            if offset % num.itemsize == 0 and 0 <= first and first + n <= base.shape[1]:
                return base, first
        base = base.base
    return np.ascontiguousarray(num), 0
