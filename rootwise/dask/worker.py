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
from . import edges, kernels


@dataclass
class Part:
    X: np.ndarray  # (n, d) float64, encoded as the local fit encodes
    codes: np.ndarray  # (n, d) uint8: bin or category code; a column's value count = missing
    yc: np.ndarray  # int64 class codes (empty for regression)
    yr: np.ndarray  # float64 targets (empty for classification)
    w: np.ndarray  # float64 weights (class weights applied)
    bin_min: np.ndarray  # (d, 256) the partition's smallest value per bin
    bin_max: np.ndarray


def _frame(part):
    return tables.as_table(part)


def scan(part, y, categorical, names, regression, max_bins):
    """One pass over a raw partition: (rows, each categorical column's categories in order of
    first appearance here (a pandas categorical's declared ones), the sorted class labels here
    (None for a regressor), each continuous column's summary (``edges.summarise``))."""
    frame = _frame(part)
    n = frame.shape[0]
    categories, summaries = [], []
    for j in range(frame.shape[1]):
        if categorical[j]:
            categories.append(learn_column(tables.column(frame, j), names[j], True, False)[1])
            summaries.append(None)
        else:
            values = learn_column(tables.column(frame, j), names[j], False, False)[2]
            categories.append(None)
            summaries.append(edges.summarise(values, max_bins))
    classes = None if regression else target.encode_target(y, len(y))[0]
    return n, categories, classes, summaries


def prepare(part, y, sample_weight, schema, classes, class_weight, bin_edges, max_bins):
    """The partition encoded (``input.encode``) and binned with the fit's edges."""
    Xe = encode.encode(_frame(part), schema)
    n = Xe.shape[0]
    if classes is None:
        _, yr = target.encode_fit_target(y, n, True)
        yc = np.zeros(0, dtype=np.int64)
    else:
        yc = np.asarray(target.encode_validation_target(y, classes, n), dtype=np.int64)
        yr = np.zeros(0)
    w = target.check_sample_weight(sample_weight, n)
    if classes is not None and class_weight is not None:
        w = w * np.asarray([class_weight.get(c, 1.0) for c in classes])[yc]
    kinds = schema.kinds_array
    n_categories = schema.n_categories
    bins = make_bins(Xe, kinds, n_categories, max_bins, bin_edges)
    codes = bins.codes
    for j in np.flatnonzero(kinds == CATEGORICAL):  # a category's code, missing = the count
        col = Xe[:, j]
        codes[:, j] = np.where(np.isnan(col), n_categories[j], np.nan_to_num(col)).astype(np.uint8)
    return Part(Xe, codes, yc, yr, np.ascontiguousarray(w), bins.bin_min, bins.bin_max)


def bin_extremes(part):
    return part.bin_min, part.bin_max


def root_nodes(part):
    """Every row starts at the root (node 0)."""
    return np.zeros(part.X.shape[0], dtype=np.int64)


def node_stats(part, node, slot_of, n_slots, n_classes):
    if n_classes > 0:
        return kernels.class_node_stats(node, slot_of, n_slots, part.yc, part.w, n_classes)
    return kernels.regression_node_stats(node, slot_of, n_slots, part.yr, part.w)


def squared_deviations(part, node, slot_of, n_slots, means):
    return kernels.squared_deviations(node, slot_of, n_slots, part.yr, part.w, means)


def histograms(part, node, slot_of, n_slots, n_codes, n_classes):
    regression = n_classes == 0
    return kernels.histograms(part.codes, node, slot_of, n_slots, n_codes, part.yc, part.yr,
                              part.w, regression, 3 if regression else n_classes)


def surrogate_histograms(part, node, slot_of, n_slots, n_codes, splits):
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
