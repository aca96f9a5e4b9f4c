"""The engine's working memory, allocated once per fit: no kernel allocates per node on the hot path.

Arrays "by row" are indexed by row id; "per position" by a node's segment position - start; the
entry tables are described in ``entries``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .entries import CODES
from .histograms import Histograms, new_histograms
from .subsets import SubsetScratch, new_subset_scratch


class ScanScratch(NamedTuple):
    """Per class (or the 3 regression sums): threshold scans and scores."""

    total: np.ndarray
    left: np.ndarray
    right: np.ndarray
    counts: np.ndarray  # int64
    best_left: np.ndarray
    branches: np.ndarray  # (2, width)
    xl2: np.ndarray  # (2, classes): x log x of each left/right class weight, kept by the scans
    stale: np.ndarray  # per class, bool: the class moved since its xl2 entries were computed
    proxy: np.ndarray  # per position: a boundary's proxy
    xlogx: np.ndarray  # k log2 k for k = 0..n
    sizes: np.ndarray  # per entry
    parent: np.ndarray  # per class: a test's union of branches


class EntryScratch(NamedTuple):
    """The binned columns' entries (``entries``)."""

    binned: np.ndarray  # column of each code byte
    ent_code: np.ndarray
    ent_stats: np.ndarray
    ent_n: np.ndarray
    table: np.ndarray
    bits: np.ndarray
    se_code: np.ndarray
    se_w: np.ndarray
    se_n: np.ndarray
    se_pm: np.ndarray
    se_n_entries: np.ndarray
    se_side: np.ndarray


class WideScratch(NamedTuple):
    """A WIDE column's entries, one column at a time (``entries``), and the WIDE columns' codes
    (shared by every thread's scratch: read only)."""

    wide_table: np.ndarray
    wide_bits: np.ndarray  # uint64: a bit per code present at the node
    codes: np.ndarray  # (WIDE columns, rows) int32 by row id: the category code, -1 missing
    column: np.ndarray  # (d,) int64: column j's row of ``codes`` (-1: not WIDE)
    wide_code: np.ndarray
    wide_stats: np.ndarray
    wide_se_code: np.ndarray
    wide_se_w: np.ndarray
    wide_se_n: np.ndarray


class Scratch(NamedTuple):
    """All of it. A kernel called per column receives only the part it reads (``scan``,
    ``subset``, ``ent``, ``wide``), or is inlined into its caller (``bundles``, "Argument
    copies"): numba passes a bundle as its arrays' fields one by one, so handing the whole of
    it to a per-column call cost more than the column's scan at small nodes."""

    scan: ScanScratch
    subset: SubsetScratch  # the subset search's
    ent: EntryScratch
    wide: WideScratch
    hist: Histograms  # the large nodes' class histograms (``histograms``)
    side: np.ndarray  # per entry, int64
    sides: np.ndarray  # per category of the chosen test, int64
    # per node
    ys: np.ndarray  # per position: a regression node's targets (median leaves)
    ws: np.ndarray
    w_node: np.ndarray  # by row: C4.5's weights at the node
    unit_input: bool  # every input weight is 0 or 1
    available: np.ndarray  # (d,) bool: every column unless a multiway test used it up
    direction: np.ndarray  # per position: the chosen test's branch
    dir_row: np.ndarray  # by row, int8: the primary's branch (surrogate scans)
    goes_left: np.ndarray  # by row, int8: binary partition
    branch_of_row: np.ndarray  # by row: multiway partition
    buf_i: np.ndarray  # the binary partition's buffers, views of one block (``new_scratch``);
    # buf_i also lists the rows a surrogate search counts (per position)
    buf_f: np.ndarray
    buf_codes: np.ndarray


@njit(cache=True, nogil=True, no_cfunc_wrapper=True)
def new_scratch(n, d, n_classes, width, binned, n_values, max_categories, max_wide, n_code_words,
                unit_input, histograms, n_ids=0, entropy=True, medians=True, many=True,
                wide=None):
    """Working memory for a fit on n rows and d columns: ``width`` = classes or 3 (regression),
    ``binned`` the column of each code byte, ``n_values`` each column's categories or bins,
    ``max_categories`` the most categories of any column (at least 2), ``max_wide`` the most
    categories of a WIDE column (0: none); ``histograms``: large nodes keep class histograms
    (``histograms``; the caller checks that the fit allows them); ``wide``: the WIDE columns'
    (codes, column) (``wide_codes``; None: the fit has none).

    ``n_ids``: the rows' ids are below it (the rows of the table they are read from; 0: n).
    A fit that scans no entropy of counts (``entropy``), has no median leaves (``medians``) or
    splits no node into many branches or fractions of rows (``many``: C4.5)
    gets one entry in the arrays by row that only those read: at 10^6 rows each would be 8 MB,
    and cross-validation grows two folds at once."""
    n_ids = max(n_ids, n)
    C = max(n_classes, 1)
    nb = binned.shape[0]
    cells = max(width, 5)
    per_entry = max(CODES, max_wide + 1, max_categories)
    # k log2 k for the entropy's integer counts (``sorted_scan``)
    xlogx = np.zeros(n + 2 if entropy else 1)
    for k in range(1, xlogx.shape[0]):
        xlogx[k] = k * np.log2(k)
    # a regression node's targets and weights, for its median (``node_stats``)
    n_targets = max(n, 1) if medians else 1
    # weights scattered by row (C4.5) and the multiway partition's branch by row
    n_many = max(n_ids, 1) if many else 1
    # the binary partition moves one array at a time (rows, weights, targets, codes, each
    # column's words), so its buffers take turns in one block: 8 bytes per row and code word
    block = np.empty((max(n, 1), max(n_code_words, 1)), dtype=np.int64)
    buf_i = block.reshape(-1)
    wide_rows = max_wide + 1 if max_wide > 0 else 1
    scan = ScanScratch(
        np.zeros(width), np.zeros(width), np.zeros(width), np.zeros(width, dtype=np.int64),
        np.zeros(width), np.zeros((2, width)), np.zeros((2, max(width, C))),
        np.zeros(max(width, C), dtype=np.bool_), np.empty(max(n, 1)), xlogx,
        np.zeros(per_entry), np.zeros(width))
    ent = EntryScratch(
        binned, np.zeros((nb, CODES), dtype=np.int64), np.zeros((nb, CODES, width)),
        np.zeros(nb, dtype=np.int64), np.zeros(nb * CODES * cells),
        np.zeros(nb * 4, dtype=np.uint64),
        np.zeros((nb, CODES), dtype=np.int64), np.zeros((nb, CODES, 2)),
        np.zeros((nb, CODES, 2), dtype=np.int64), np.zeros((nb, CODES), dtype=np.int64),
        np.zeros(nb, dtype=np.int64), np.zeros((nb, 2)))
    if wide is None:
        if max_wide > 0:
            raise ValueError("a fit with WIDE columns needs their codes (wide_codes)")
        wide = (np.zeros((0, 0), dtype=np.int32), np.full(d, -1, dtype=np.int64))
    wide = WideScratch(
        np.zeros(wide_rows * cells), np.zeros((wide_rows + 63) // 64, dtype=np.uint64),
        wide[0], wide[1], np.zeros(wide_rows, dtype=np.int64),
        np.zeros((wide_rows, width)), np.zeros(wide_rows, dtype=np.int64),
        np.zeros((wide_rows, 2)), np.zeros((wide_rows, 2), dtype=np.int64))
    return Scratch(
        scan, new_subset_scratch(per_entry, width), ent, wide,
        new_histograms(n, binned, n_values, C, histograms),
        np.zeros(per_entry, dtype=np.int64), np.full(max(max_categories, 2), -1, dtype=np.int64),
        np.empty(n_targets), np.empty(n_targets), np.zeros(n_many), unit_input,
        np.ones(d, dtype=np.bool_), np.zeros(max(n, 1), dtype=np.int64),
        # read by row id in the order of a sorted column, i.e. at random: one byte per row
        # keeps them in cache (an int64 array of 10^5 rows is 800 kB)
        np.zeros(max(n_ids, 1), dtype=np.int8), np.zeros(max(n_ids, 1), dtype=np.int8),
        np.zeros(n_many, dtype=np.int64), buf_i, buf_i.view(np.float64), block)


def wide_codes(X, search, wide_kind):
    """The category codes of the columns searched as WIDE (``search[j] == wide_kind``), one
    int32 row per column by row id (-1: missing), and each column's row (-1: not WIDE). The
    entries of a node read a code per row: from X, a row-major table, each was a cache miss on
    a large table; here a column of 10^5 rows is 400 kB."""
    cols = np.flatnonzero(search == wide_kind)
    column = np.full(search.shape[0], -1, dtype=np.int64)
    column[cols] = np.arange(cols.size)
    codes = np.empty((cols.size, X.shape[0]), dtype=np.int32)
    for i, j in enumerate(cols):
        x = X[:, j]
        codes[i] = np.where(np.isnan(x), -1.0, x).astype(np.int32)
    return codes, column
