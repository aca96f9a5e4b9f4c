"""``fit`` of a CART estimator on a Dask collection: the set-up around ``grow.LevelGrower``.

Two passes over the raw partitions: a scan (categories, classes, bin-edge summaries) and the
preparation of each partition (encoded, binned: ``worker.prepare``), which stays on its worker.
Both check the partition as the local fit checks its table and name it (``checks``); empty
partitions are skipped; object cells Dask made strings are refused first (``strings``).
Then the tree is grown level by level (``grow``) and, with a numeric ``ccp_alpha``, pruned on the
client (the tree alone holds what cost-complexity pruning reads).
"""

from __future__ import annotations

import dataclasses
import numbers
import uuid

import numpy as np

from .._config import CATEGORICAL, CONTINUOUS
from ..engine.dispatch import params_of
from ..input import tables, target
from ..input.schema import Schema, learn_column, resolve_categorical
from ..prune.cost_complexity import (
    CPTable,
    chosen_row,
    cv_error_and_se,
    cv_probes,
    prune_to_alpha,
)
from . import checks, edges, strings, worker
from .collections import partitions
from .grow import LevelGrower, features_of
from .reduce import tree_reduce

DEFAULT_MEMORY_MB = 256  # histogram memory per round (Spark's maxMemoryInMB plays this part)


def _check_criterion(estimator) -> None:
    """Refuse a regression criterion other than the squared error, before anything else names
    the splitter: the workers' node statistics are sums of w, wy and wy^2."""
    criterion = getattr(estimator, "criterion", None)
    if criterion in ("poisson", "absolute_error"):
        raise ValueError(f"{type(estimator).__name__}: criterion={criterion!r} is not available "
                         f"on a Dask collection (the distributed fit's node statistics are sums "
                         f"of w, wy and wy^2); use criterion='squared_error', or fit in memory.")


def check_estimator(estimator, policy, has_folds=False) -> None:
    """What a distributed fit does not do, refused by name."""
    name = type(estimator).__name__
    if policy.splitter != "hist":
        raise ValueError(f"{name}: a fit on a Dask collection needs splitter='hist', got "
                         f"splitter={policy.splitter!r}.")
    if not hasattr(estimator, "ccp_alpha") or policy.categorical_split != "subset":
        raise ValueError(f"{name}: only CARTClassifier and CARTRegressor fit on Dask collections.")
    if policy.max_leaf_nodes is not None:
        raise ValueError(f"{name}: max_leaf_nodes (best-first growth) is not available on a Dask "
                         "collection; the fit grows level by level.")
    if policy.leaf_value == "median":
        raise ValueError(f"{name}: leaf_value='median' needs every row of a leaf in one place; "
                         "use leaf_value='mean' on a Dask collection.")
    if estimator.pruning not in (None, "cost-complexity"):
        raise ValueError(f"{name}: pruning={estimator.pruning!r} is not available on a Dask "
                         "collection (None or 'cost-complexity').")
    if (estimator.pruning == "cost-complexity" and isinstance(estimator.ccp_alpha, str)
            and not has_folds):
        raise ValueError(f"{name}: ccp_alpha={estimator.ccp_alpha!r} (alpha by cross-validation) "
                         "on a Dask collection needs folds=, a dask Series or array of CV fold "
                         "numbers partitioned as X (rows do not move between folds); or give "
                         "a number, or pruning=None.")
    if getattr(estimator, "monotonic_cst", None) is not None:
        raise ValueError(f"{name}: monotonic_cst is not available on a Dask collection: the "
                         "level-by-level fit has no bounds on its nodes' values; fit locally.")
    if getattr(estimator, "loss", None) is not None:
        raise ValueError(f"{name}: loss (a loss matrix) is not available on a Dask collection: "
                         "its altered priors, node classes and pruning cost are not in the "
                         "distributed fit; fit a local table, or give class_weight instead.")
    if getattr(estimator, "class_weight", None) == "balanced":
        raise ValueError(f"{name}: class_weight='balanced' is not available on a Dask collection:"
                         " give a dict of class weights.")


def row_counts(estimator, policy, weighted: bool):
    """The policy with ``min_samples_split`` / ``min_samples_leaf`` as the weights the
    distributed growth compares (``grow``): it counts weight, not rows. Unweighted, a row weighs
    1 and the two agree; weighted, only the defaults agree (a node of one row is pure, and a
    side of positive weight holds a row), so they become 0 and anything else is refused by
    name, as are a fraction of the rows and ``min_weight_fraction_leaf``."""
    name = type(estimator).__name__
    split, leaf = estimator.min_samples_split, estimator.min_samples_leaf
    for param, value in (("min_samples_split", split), ("min_samples_leaf", leaf)):
        if not isinstance(value, numbers.Integral):
            raise ValueError(f"{name}: {param}={value!r} (a fraction of the rows) is not "
                             f"available on a Dask collection, whose rows are not counted "
                             f"before the fit: give a number of rows.")
    if estimator.min_weight_fraction_leaf != 0:
        raise ValueError(f"{name}: min_weight_fraction_leaf is not available on a Dask "
                         f"collection (the total weight is not known before the fit): leave "
                         f"it at 0.")
    if not weighted:
        return policy
    if split > 2 or leaf > 1:
        raise ValueError(f"{name}: min_samples_split={split!r} / min_samples_leaf={leaf!r} count "
                         f"rows, and a fit on a Dask collection counts weight: with "
                         f"sample_weight or class_weight only the defaults (2 and 1) are "
                         f"available there.")
    return dataclasses.replace(policy, min_samples_split=0.0, min_samples_leaf=0.0)


def fit(estimator, X, y, sample_weight=None, *, folds=None, client=None,
        memory_limit_mb=DEFAULT_MEMORY_MB, log=None):
    """Grow ``estimator``'s tree on the Dask collection ``X`` (rows never leave their workers).

    ``folds``: each row's CV fold number (a dask collection partitioned as X), for alpha by
    cross-validation (``ccp_alpha="cv-min"`` / ``"cv-1se"``): fold k's tree grows on the rows of
    the other folds and is scored on fold k's rows, where they are. The same as the local fit
    with ``folds=`` (``cv`` pairs made from the column)."""
    from distributed import get_client

    estimator._check_params()
    _check_criterion(estimator)
    policy = estimator._policy()
    check_estimator(estimator, policy, folds is not None)
    policy = row_counts(estimator, policy, sample_weight is not None
                        or getattr(estimator, "class_weight", None) is not None)
    client = client or get_client()
    regression = estimator._regression
    Xp, yp, wp, fp, meta = partitions(X, y, sample_weight, folds)
    strings.refuse_converted_numbers(X, client)
    strings.refuse_converted_numbers(y, client, "y")
    frame = tables.as_table(meta) if meta.shape[0] else meta
    names = tables.feature_names_of(frame)
    mask = resolve_categorical(frame, estimator.categorical_features)
    key = f"rootwise-{uuid.uuid4().hex[:12]}"

    # pass 1: categories, classes, edge summaries, weight sums (empty partitions are skipped)
    from dask import delayed

    scans = client.compute([delayed(worker.scan)(i, xp, ypp, wpp, mask, names, regression,
                                                 policy.max_bins)
                            for i, (xp, ypp, wpp) in enumerate(zip(Xp, yp, wp, strict=True))])
    checks.first_error(scans)
    scans = client.gather(scans)
    kept = [i for i, s in enumerate(scans) if s[0] > 0]
    if not kept:
        raise ValueError(f"Found array with 0 sample(s): every one of the {len(scans)} "
                         "partition(s) of X is empty.")
    scans = [scans[i] for i in kept]
    Xp, yp, wp, fp = ([p[i] for i in kept] for p in (Xp, yp, wp, fp))
    if sample_weight is not None and sum(s[4] for s in scans) <= 0:
        raise ValueError("sample_weight sums to zero; at least one row needs a positive weight.")
    kinds = [CATEGORICAL if mask[j] else CONTINUOUS for j in range(len(names))]
    categories = [_merged_categories(meta, j, names[j], [s[1][j] for s in scans])
                  if mask[j] else None for j in range(len(names))]
    schema = Schema(tuple(names), tuple(kinds), tuple(categories),
                    tables.input_feature_names(meta) is not None)
    too_many = [names[j] for j in range(len(names)) if mask[j] and len(categories[j]) > 255]
    if too_many:
        raise ValueError(f"column(s) {too_many} hold more than 255 categories; a fit on a Dask "
                         "collection bins categories in one byte.")
    classes = None
    if not regression:
        classes = target.encode_target(np.concatenate([np.asarray(s[2], dtype=object)
                                                       for s in scans]), sum(len(s[2])
                                                                             for s in scans))[0]
    n_rows = sum(s[0] for s in scans)
    bin_edges = [None if mask[j] else edges.column_edges([s[3][j] for s in scans],
                                                         policy.max_bins)
                 for j in range(len(names))]
    class_weights = None
    if classes is not None and getattr(estimator, "class_weight", None) is not None:
        # the local fit's check and weights: each class's weight, 1 for a class not named
        class_weights = target.class_weighted(np.ones(len(classes)), np.arange(len(classes)),
                                              estimator.class_weight, classes,
                                              f"{type(estimator).__name__}: class_weight")

    # pass 2: each partition encoded and binned, kept on its worker
    parts = client.compute([delayed(worker.prepare)(i, xp, ypp, wpp, fpp, schema, classes,
                                                    class_weights, bin_edges, policy.max_bins)
                            for i, xp, ypp, wpp, fpp in zip(kept, Xp, yp, wp, fp, strict=True)])
    checks.first_error(parts)
    extremes = [client.submit(worker.bin_extremes, p, key=f"{key}-extremes-{i}", pure=False)
                for i, p in enumerate(parts)]
    bin_min, bin_max = tree_reduce(client, extremes, ("min", "max"), f"{key}-extremes").result()
    # which columns had missing cells: the text, pictures and rules mention missing values there
    missing = np.logical_or.reduce(client.gather([
        client.submit(worker.missing_columns, p, key=f"{key}-missing-{i}", pure=False)
        for i, p in enumerate(parts)]))
    schema = dataclasses.replace(schema, missing=tuple(bool(v) for v in missing))
    n_values = schema.n_categories.copy()
    for j in range(len(names)):
        if not mask[j]:
            n_values[j] = len(bin_edges[j])
    feat = features_of(mask, n_values, bin_min, bin_max)
    n_classes = 0 if classes is None else len(classes)
    params = params_of(policy, n_classes, False)
    width = 3 if regression else n_classes
    per_node = len(names) * (int(n_values.max(initial=1)) + 1) * width * 8
    nodes_per_round = max(1, int(memory_limit_mb * 2**20 // per_node))
    misclassified = estimator._floor_cost() == "misclassification" and not regression
    grower = LevelGrower(client, parts, feat, params, n_classes, schema.n_categories,
                         nodes_per_round, key, log, cp=estimator._cp(n_rows),
                         misclassified=misclassified)
    tree = grower.grow()
    floor = grower.alpha_floor  # cp: the tree stands for alpha >= floor only
    priority = None if classes is None else estimator._class_priority(classes, meta_y(y))
    cptable = None
    if estimator.pruning == "cost-complexity":
        cost = estimator._ccp_cost()
        alpha = estimator.ccp_alpha
        if isinstance(alpha, str):
            cptable = _alpha_by_cv(client, parts, tree, feat, params, n_classes, schema, priority,
                                   nodes_per_round, key, cost, alpha, log, floor, misclassified)
            alpha = cptable.alpha[cptable.chosen]
        tree = prune_to_alpha(tree, max(float(alpha), floor), cost)
    client.cancel(parts)

    estimator._set_fitted(tree, schema, classes, priority, None, cptable,
                          tables.input_feature_names(meta))
    estimator.bin_edges_ = bin_edges
    estimator.n_rows_ = n_rows
    return estimator


def _alpha_by_cv(client, parts, tree, feat, params, n_classes, schema, priority,
                 nodes_per_round, key, cost, rule, log, floor, misclassified):
    """``prune.cost_complexity.choose_alpha_by_cv`` with one fold per fold number: each fold
    tree grows on the other folds' rows (bins holding only their values), its held-out rows are
    scored where they are, and the per-probe sums come back added up."""
    labels = client.gather([client.submit(worker.fold_labels, p, key=f"{key}-labels-{i}",
                                          pure=False) for i, p in enumerate(parts)])
    labels = np.unique(np.concatenate(labels))
    if len(labels) < 2:
        raise ValueError(f"folds holds {len(labels)} fold number(s); alpha by cross-validation "
                         "needs at least 2.")
    path, probe = cv_probes(tree, cost, floor)
    sums = []
    for k in labels:
        fkey = f"{key}-fold{k}"
        extremes = [client.submit(worker.fold_extremes, p, k, key=f"{fkey}-extremes-{i}",
                                  pure=False) for i, p in enumerate(parts)]
        bin_min, bin_max = tree_reduce(client, extremes, ("min", "max"),
                                       f"{fkey}-extremes").result()
        fold_feat = feat._replace(bin_min=bin_min, bin_max=bin_max)
        fold_tree = LevelGrower(client, parts, fold_feat, params, n_classes, schema.n_categories,
                                nodes_per_round, fkey, log, alpha_floor=floor,
                                misclassified=misclassified).grow(hold_out=k)
        partial = [client.submit(worker.cv_sums, p, fold_tree, k, cost, probe, priority,
                                 n_classes == 0, key=f"{fkey}-cv-{i}", pure=False)
                   for i, p in enumerate(parts)]
        sums.append(tree_reduce(client, partial, ("sum", "sum", "sum"), f"{fkey}-cv"))
    first, second, total = tree_reduce(client, sums, ("sum", "sum", "sum"), f"{key}-cv").result()
    cv_error, se = cv_error_and_se(first, second, float(total[0]))
    return CPTable(path.alphas, path.n_leaves, path.impurities, cv_error, se,
                   chosen_row(cv_error, se, rule), rule)


def meta_y(y):
    """A zero-row stand-in of y with its dtype (a categorical y's declared order)."""
    return getattr(y, "_meta", None)


def _merged_categories(meta, j, name, per_partition) -> tuple:
    """Categories in order of first appearance over the partitions in order (the order of the
    concatenated table), with the types the local encoder gives them.

    A pandas categorical whose categories the collection does not know (``cat.as_unknown()``,
    ``astype("category")`` on a collection, ``read_csv``/``read_parquet``) gets them from the
    scan: the categories every partition declares, in their order, when they all declare the
    same (``as_unknown()`` of a known column); otherwise (``astype("category")`` of each
    partition) their union sorted, as ``astype("category")`` of the whole column declares them
    (first appearance when the values do not sort)."""
    seen, merged = set(), []
    for cats in per_partition:
        for c in cats:
            if c not in seen:
                seen.add(c)
                merged.append(c)
    import pandas as pd

    column = meta.iloc[:, j] if hasattr(meta, "columns") else None
    dtype = column.dtype if column is not None else object
    if isinstance(dtype, pd.CategoricalDtype) and _known(dtype):
        merged = []  # the declared categories are the column's, whatever the partitions hold
    elif isinstance(dtype, pd.CategoricalDtype):
        dtype = object
        if any(tuple(c) != tuple(per_partition[0]) for c in per_partition):
            try:
                merged = sorted(merged)
            except TypeError:  # values of types that do not compare
                pass
    series = pd.Series(merged, dtype=dtype)
    return learn_column(series, name, True, False)[1]


def _known(dtype) -> bool:
    """Whether a categorical dtype of a Dask meta lists real categories (Dask marks unknown
    ones with a single placeholder category)."""
    from dask.dataframe.utils import UNKNOWN_CATEGORIES

    return not (len(dtype.categories) == 1 and dtype.categories[0] == UNKNOWN_CATEGORIES)
