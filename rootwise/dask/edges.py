"""Bin edges in one pass over the partitions: each partition summarises its continuous columns,
the client merges the summaries and cuts edges.

A partition's summary of a column is (values, counts):

* exact, when the partition holds at most ``max_bins`` distinct known values: each distinct value
  with its number of rows. Merged exact summaries are exact; when the union still has at most
  max_bins values the edges are those values, one bin per value, as the local ``bins`` gives them.
* otherwise a quantile sample: K = SUMMARY_SIZE order statistics of its known values, at ranks
  (i + 1/2) n_p / K, each standing for n_p / K rows. Merging is concatenation; the merged
  summary places every value within n / K rows of its true rank (n: all known values), so the
  edges are equal-count bins up to a share 1/K of the rows.

Edges are always training values (a summary holds only values that occur), as ``engine.bins``
expects: the split between two bins is then a midpoint of two real values.
"""

import numpy as np

SUMMARY_SIZE = 16_384  # order statistics per partition and column (rank error 1/K of the rows)


def summarise(column: np.ndarray, max_bins: int):
    """("exact" | "sample", values ascending, counts) of one partition's column (NaN skipped)."""
    known = np.sort(column[~np.isnan(column)])
    values, counts = np.unique(known, return_counts=True)
    if len(values) <= max_bins:
        return "exact", values, counts.astype(np.float64)
    n = len(known)
    if n <= SUMMARY_SIZE:
        return "sample", values, counts.astype(np.float64)
    ranks = ((np.arange(SUMMARY_SIZE) + 0.5) * n / SUMMARY_SIZE).astype(np.int64)
    return "sample", known[ranks], np.full(SUMMARY_SIZE, n / SUMMARY_SIZE)


def merge(summaries) -> tuple[np.ndarray, np.ndarray, bool]:
    """(distinct values, their counts, exact) of several partitions' summaries of one column."""
    values = np.concatenate([s[1] for s in summaries]) if summaries else np.zeros(0)
    counts = np.concatenate([s[2] for s in summaries]) if summaries else np.zeros(0)
    exact = all(s[0] == "exact" for s in summaries)
    order = np.argsort(values, kind="stable")
    values, counts = values[order], counts[order]
    distinct, start = np.unique(values, return_index=True)
    return distinct, np.add.reduceat(counts, start) if len(start) else counts, exact


def equal_count_edges(values: np.ndarray, counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Upper edges of about equal-count bins (``engine.bins.equal_count_upper``'s rule with
    fractional counts): bin b closes after the first value at which the rows seen reach
    (b + 1) n / max_bins; with at most max_bins values every value is its own bin."""
    if len(values) <= max_bins:
        return values.copy()
    n = counts.sum()
    edges = []
    seen = 0.0
    for i, v in enumerate(values):
        seen += counts[i]
        if i == len(values) - 1 or (len(edges) < max_bins - 1
                                    and seen * max_bins >= (len(edges) + 1) * n):
            edges.append(v)
    return np.asarray(edges, dtype=np.float64)


def column_edges(summaries, max_bins: int) -> np.ndarray:
    """The edges of one column from its partitions' summaries (at least one edge: a column with
    no known value gets the single edge 0, one empty bin)."""
    values, counts, exact = merge(summaries)
    if len(values) == 0:
        return np.zeros(1)
    if exact and len(values) <= max_bins:
        return values
    return equal_count_edges(values, counts, max_bins)
