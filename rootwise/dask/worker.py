"""What runs on the workers: one function per task of a distributed fit, each over one partition.

A partition is turned once into a ``Part`` (encoded, binned) that stays in its worker's memory
for the whole fit; every later task reads it and a small array of node ids per row. Tasks are
pure functions of their inputs, so a task lost with a worker is recomputed from its inputs
(Dask's lineage), never guessed.
"""

from dataclasses import dataclass

import numpy as np

from .._config import CATEGORICAL
from ..engine.hist import make_bins
from ..input import encode, tables, target
from ..input.schema import learn_column
from . import checks, edges, kernels


@dataclass
class Part:
    X: np.ndarray  # (n, d) float64, encoded as the local fit encodes
    codes: np.ndarray  # (n, d) uint8: bin or category code; a column's value count = missing
    yc: np.ndarray  # int64 class codes (empty for regression)
    yr: np.ndarray  # float64 targets (empty for classification)
    w: np.ndarray  # float64 weights (class weights applied)
    bin_min: np.ndarray  # (d, 256) the partition's smallest value per bin
    bin_max: np.ndarray
    fold: np.ndarray  # int64 CV fold of each row (empty: no folds given)
    code_max: int = 0  # the largest code in ``codes`` (the histogram kernels' guard)


def _frame(part):
    return tables.as_table(part)


def scan(index, part, y, sample_weight, categorical, names, regression, max_bins):
    """One pass over raw partition ``index``: (rows, each categorical column's categories in
    order of first appearance here (a pandas categorical's declared ones), the sorted class
    labels here (None for a regressor), each continuous column's summary
    (``edges.summarise``), the sum of its sample weights (None: no weights)). An empty
    partition (left so by a filter) gives (0, None, None, None, None): the fit skips it."""
    n = checks.rows_of(part)
    checks.same_rows(index, n, {"y": y, "sample_weight": sample_weight})
    if n == 0:
        return 0, None, None, None, None
    with checks.in_partition(index):
        frame = _frame(part)
        categories, summaries = [], []
        for j in range(frame.shape[1]):
            if categorical[j]:
                categories.append(learn_column(tables.column(frame, j), names[j], True,
                                               False)[1])
                summaries.append(None)
            else:
                values = learn_column(tables.column(frame, j), names[j], False, False)[2]
                categories.append(None)
                summaries.append(edges.summarise(values, max_bins))
        classes = None if regression else target.encode_target(y, len(y))[0]
        total = None
        if sample_weight is not None:
            total = float(partition_weights(sample_weight, n).sum())
    return n, categories, classes, summaries, total


def partition_weights(sample_weight, n):
    """``target.check_sample_weight`` of one partition, which may weigh all its rows 0 (the
    local check that the weights do not sum to zero is made over all partitions)."""
    w = np.asarray(sample_weight.to_numpy() if hasattr(sample_weight, "to_numpy")
                   else sample_weight)
    if w.shape == (n,) and w.dtype.kind in "fiu" and not np.any(w):
        return np.zeros(n)
    return target.check_sample_weight(w, n)


def prepare(index, part, y, sample_weight, folds, schema, classes, class_weights, bin_edges,
            max_bins):
    """Partition ``index`` encoded (``input.encode``) and binned with the fit's edges;
    ``class_weights``: each class's weight (None: 1); ``folds``: its rows' CV fold numbers, or
    None. Every code is checked against its column's range here (``checks.codes_in_range``)."""
    n = checks.rows_of(part)
    checks.same_rows(index, n, {"y": y, "sample_weight": sample_weight, "folds": folds})
    with checks.in_partition(index):
        frame = _frame(part)
        Xe = encode.encode(frame, schema)
        if classes is None:
            _, yr = target.encode_fit_target(y, n, True)
            yc = np.zeros(0, dtype=np.int64)
        else:
            yc = np.asarray(target.encode_validation_target(y, classes, n), dtype=np.int64)
            yr = np.zeros(0)
        w = np.ones(n) if sample_weight is None else partition_weights(sample_weight, n)
    if class_weights is not None:
        w = w * class_weights[yc]
    kinds = schema.kinds_array
    n_categories = schema.n_categories
    bins = make_bins(Xe, kinds, n_categories, max_bins, bin_edges)
    codes = bins.codes
    for j in np.flatnonzero(kinds == CATEGORICAL):  # a category's code, missing = the count
        col = Xe[:, j]
        checks.unseen_category(tables.column(frame, j), col, schema.feature_names[j],
                               schema.categories[j], index)
        codes[:, j] = np.where(np.isnan(col), n_categories[j], np.nan_to_num(col)).astype(np.uint8)
    checks.codes_in_range(codes, bins.n_bins, schema.feature_names, index)
    fold = np.zeros(0, dtype=np.int64)
    if folds is not None:
        fold = np.asarray(folds.to_numpy() if hasattr(folds, "to_numpy") else folds).ravel()
        if fold.dtype.kind not in "iu":
            raise ValueError(f"partition {index}: folds must hold one integer fold number per "
                             f"row; got values of dtype {fold.dtype}.")
        fold = fold.astype(np.int64)
    return Part(Xe, codes, yc, yr, np.ascontiguousarray(w), bins.bin_min, bins.bin_max, fold,
                int(codes.max(initial=0)))


def bin_extremes(part):
    return part.bin_min, part.bin_max


def missing_columns(part):
    """Which columns of the partition hold a missing cell (NaN in the encoded matrix)."""
    return np.isnan(part.X).any(axis=0)


def root_nodes(part, hold_out=None):
    """Every row starts at the root (node 0), but those of fold ``hold_out`` (-1: not in the
    fit)."""
    node = np.zeros(part.X.shape[0], dtype=np.int64)
    if hold_out is not None:
        node[part.fold == hold_out] = -1
    return node


def fold_labels(part):
    return np.unique(part.fold)


def fold_extremes(part, hold_out):
    """``bin_extremes`` of the rows outside fold ``hold_out`` (a fold tree's bins hold only its
    training rows' values, as the local fold fit bins them)."""
    keep = part.fold != hold_out
    bin_min = np.full_like(part.bin_min, np.inf)
    bin_max = np.full_like(part.bin_max, -np.inf)
    for j in range(part.X.shape[1]):
        x, c = part.X[keep, j], part.codes[keep, j].astype(np.int64)
        known = ~np.isnan(x)
        np.minimum.at(bin_min[j], c[known], x[known])
        np.maximum.at(bin_max[j], c[known], x[known])
    return bin_min, bin_max


def cv_sums(part, fold_tree, hold_out, cost, probe, priority, regression):
    """``prune.cost_complexity.probe_sums`` of this partition's rows of fold ``hold_out``
    predicted by the fold tree (the local fit's ``row_losses``: squared error, or the 0/1 error
    of the node's majority class)."""
    from ..estimators import majority_class
    from ..prune.cost_complexity import fold_pieces, probe_sums

    test = np.flatnonzero(part.fold == hold_out)

    def row_losses(tree, rows, nodes):
        w = part.w[rows]
        if regression:
            return w * (part.yr[rows] - tree.value[nodes, 0]) ** 2, w
        return w * (majority_class(tree.value[nodes], priority) != part.yc[rows]), w

    copies = np.zeros(part.X.shape[0], dtype=np.int64)
    copies[test] = 1
    pieces = [] if len(test) == 0 else [fold_pieces(fold_tree, cost, part.X[test], test,
                                                    row_losses, probe)]
    first, second, total = probe_sums(pieces, copies, len(probe))
    return first, second, np.array([total])


def node_stats(part, node, slot_of, n_slots, n_classes):
    if n_classes > 0:
        return kernels.class_node_stats(node, slot_of, n_slots, part.yc, part.w, n_classes)
    return kernels.regression_node_stats(node, slot_of, n_slots, part.yr, part.w)


def squared_deviations(part, node, slot_of, n_slots, means):
    return kernels.squared_deviations(node, slot_of, n_slots, part.yr, part.w, means)


def _guard(part, n_codes):
    """The kernels index their (.., n_codes, ..) histograms with the partition's codes."""
    if part.code_max >= n_codes:
        raise ValueError(f"a partition holds code {part.code_max}, outside the {n_codes} codes "
                         "of the fit's histograms.")


def histograms(part, node, slot_of, n_slots, n_codes, n_classes):
    _guard(part, n_codes)
    regression = n_classes == 0
    return kernels.histograms(part.codes, node, slot_of, n_slots, n_codes, part.yc, part.yr,
                              part.w, regression, 3 if regression else n_classes)


def surrogate_histograms(part, node, slot_of, n_slots, n_codes, splits):
    _guard(part, n_codes)
    return kernels.surrogate_histograms(part.codes, part.X, node, slot_of, n_slots, n_codes,
                                        part.w, *splits[:4])


def routed_weights(part, node, slot_of, n_slots, splits):
    return kernels.routed_weights(part.X, node, slot_of, n_slots, part.w, *splits[:10])


def route(part, node, slot_of, splits):
    return kernels.route(part.X, node, slot_of, *splits)


def combine(ops, *parts):
    """Partial results combined in the order given: ``ops`` is "sum", "min" or "max" for an
    array, or a tuple of them for a tuple of arrays."""
    if isinstance(ops, tuple):
        return tuple(combine(op, *(p[i] for p in parts)) for i, op in enumerate(ops))
    total = parts[0].copy()
    for p in parts[1:]:
        if ops == "sum":
            total += p
        elif ops == "min":
            np.minimum(total, p, out=total)
        else:
            np.maximum(total, p, out=total)
    return total
