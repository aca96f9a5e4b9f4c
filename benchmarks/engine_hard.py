"""The hard-table sections of ``engine.py``: many classes, many missing cells, wide categorical
columns, small nodes, two threads for one tree, and DataFrame prediction.

The table is ``data.hard_table``: 8 numeric columns of Student's t with 3 degrees of freedom and
10 categorical columns of 2 up to ``--max-levels`` categories, every cell missing with
probability ``--missing``, ``--classes`` classes (or a regression target).

    hard      exact CART, with and without surrogates, against scikit-learn and rpart (cut off
              after ``--rpart-limit`` seconds); ``splitter="hist"`` against one LightGBM tree
    small     the fully grown regressor, whose time is mostly in nodes of a few rows
    threads   one unpruned fit with ``n_jobs=2`` against ``n_jobs=1`` (wall clock)
    predict   rootwise's predict on the DataFrame against scikit-learn's on ready codes
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import peers  # noqa: E402
from engine_cells import (  # noqa: E402
    Context,
    Row,
    alone,
    fitter,
    fmt_cell_time,
    fmt_score,
    hist,
    ratio_of,
    rootwise,
    shapes,
    sklearn_tree,
    versus_lightgbm,
    versus_rpart,
    versus_sklearn,
)

SECTIONS = ("hard", "small", "threads", "predict")
MULTI_THREADED = ("threads",)  # sections run without the one-thread limit on OpenMP / BLAS


def describe(args) -> str:
    """The hard table's options, as the section rows name them."""
    return f"{args.classes} classes, {args.missing:.0%} missing, up to {args.max_levels} categories"


def section_hard(ctx: Context, rows: int) -> None:
    """Exact CART (default 5 surrogates, and none) against scikit-learn and rpart; hist against
    one LightGBM tree (on the regression target when there are more than two classes: LightGBM
    grows a tree per class)."""
    what = describe(ctx.args)
    name = f"CART clf exact, hard: {what}"
    cell, models = versus_sklearn(
        ctx, name, "CART clf exact (hard)", "hard", rows,
        lambda: rootwise("cart", pruning=None, n_jobs=1),
        others=((f"{name}, no surrogates", "CART clf exact, no surrogates (hard)",
                 lambda: rootwise("cart", pruning=None, max_surrogates=0, n_jobs=1)),))
    versus_rpart(ctx, name, "hard", rows, "exact", cell, models.get("rootwise"),
                 limit=ctx.args.rpart_limit)
    if ctx.args.classes == 2:
        versus_lightgbm(ctx, f"hist clf, hard: {what}", "hard", rows)
    else:
        alone(ctx, f"hist clf, hard: {what}", rows, ctx.table("hard", rows), hist("cart"),
              peer="LightGBM", why=f"- (one tree per class: {ctx.args.classes} trees)")
    versus_lightgbm(ctx, "hist reg, hard", "hard-reg", rows)


def section_small(ctx: Context, rows: int) -> None:
    """The fully grown regressor (surrogates on) on the hard table's regression target: most of
    its nodes hold a few rows."""
    versus_sklearn(ctx, "CART reg exact, hard (fully grown)", "CART reg exact (hard)", "hard-reg",
                   rows, lambda: rootwise("cart-regressor", pruning=None, n_jobs=1))


def section_threads(ctx: Context, rows: int) -> None:
    """One unpruned fit with ``n_jobs=2`` against ``n_jobs=1``, alternating, on the wall clock;
    the ratio is the speed-up. The two trees must be the same: their leaves, depths and
    held-out scores are printed side by side."""
    import numba

    split = ctx.table("hard", rows)
    name = f"CART clf exact n_jobs=2, hard: {ctx.args.classes} classes"
    if numba.config.NUMBA_NUM_THREADS < 2:
        ctx.report.add(Row(name, rows, "skipped", "n_jobs=1", "-", None, "-", "-", "-"))
        print(f"  (NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS}: one thread only)")
        return
    fits = {"rootwise": fitter(lambda: rootwise("cart", pruning=None, n_jobs=2), split.X, split.y),
            "n_jobs=1": fitter(lambda: rootwise("cart", pruning=None, n_jobs=1), split.X, split.y)}
    cell, models = ctx.alternate(fits, rows, "threads", clock="wall")
    two, one = models.get("rootwise"), models.get("n_jobs=1")
    scores = " / ".join(fmt_score(peers.score(split.y_test, m.predict(split.X_test), False)
                                  if m else None, False) for m in (two, one))
    leaves, depth = shapes(two, one)
    ctx.report.add(Row(name, rows, fmt_cell_time(cell, "rootwise", single_threaded=False), "n_jobs=1",
                       fmt_cell_time(cell, "n_jobs=1"), ratio_of(cell, "n_jobs=1"), scores, leaves,
                       depth))
    ctx.report.rootwise_time("CART clf exact n_jobs=2 (hard)", rows, cell)


def section_predict(ctx: Context, rows: int) -> None:
    """``predict`` of ``rows`` held-out rows of the hard table (drawn with as many training
    rows, so the table differs from the other sections'): rootwise on the pandas DataFrame (its
    encoding timed), scikit-learn on a float32 matrix of ordinal codes made beforehand; each
    with its own tree, fitted (untimed) on the same training rows, of depth 8 and fully grown.
    The scores are the accuracies on the predicted rows."""
    a = ctx.args
    split = peers.hard_split(rows, n_classes=a.classes, missing_rate=a.missing,
                             max_levels=a.max_levels, seed=a.seed, n_test=rows)
    X_new, y_new = split.X_test, split.y_test
    codes_new = peers.ordinal_codes(X_new).astype(np.float32)
    codes = peers.ordinal_codes(split.X)
    for depth in (8, None):
        label = "depth 8" if depth else "fully grown"
        rw = rootwise("cart", pruning=None, max_depth=depth, n_jobs=1).fit(split.X, split.y)
        sk = sklearn_tree(False, max_depth=depth).fit(codes, split.y)
        fits = {"rootwise": lambda m=rw: m.predict(X_new),
                "scikit-learn predict": lambda m=sk: m.predict(codes_new)}
        cell, out = ctx.alternate(fits, rows, f"predict {label}")
        scores = " / ".join(fmt_score(float(np.mean(p == y_new)) if p is not None else None, False)
                            for p in (out.get("rootwise"), out.get("scikit-learn predict")))
        leaves, depths = shapes(rw, sk)
        ctx.report.add(Row(f"predict DataFrame, {label}, hard", rows, fmt_cell_time(cell, "rootwise"),
                           "scikit-learn predict", fmt_cell_time(cell, "scikit-learn predict"),
                           ratio_of(cell, "scikit-learn predict"), scores, leaves, depths))
        ctx.report.rootwise_time(f"predict {label} (hard)", rows, cell)


RUNNERS = {"hard": section_hard, "small": section_small, "threads": section_threads,
           "predict": section_predict}


def warm_up(sections, args) -> None:
    """Compile or load the kernels of these sections' fits and predicts, on 2,000 rows."""
    wanted = set(sections) & set(SECTIONS)
    if not wanted:
        return
    common = dict(n_classes=args.classes, missing_rate=args.missing, max_levels=args.max_levels,
                  seed=1)
    X, y = data.hard_table(2000, **common)
    Xr, yr = data.hard_table(2000, regression=True, **common)
    fits = []
    if wanted & {"hard", "threads", "predict"}:
        fits += [("cart", X, y, {"pruning": None}), ("cart", X, y, {"pruning": None, "max_depth": 8})]
    if "hard" in wanted:
        fits += [("cart", X, y, {"pruning": None, "max_surrogates": 0}),
                 ("cart", X, y, {"pruning": None, "splitter": "hist"}),
                 ("cart-regressor", Xr, yr, {"pruning": None, "splitter": "hist"})]
    if "small" in wanted:
        fits += [("cart-regressor", Xr, yr, {"pruning": None})]
    if "threads" in wanted:
        fits += [("cart", X, y, {"pruning": None, "n_jobs": 2})]
    from rootwise.engine import subtrees

    least = subtrees.MIN_ROWS
    subtrees.MIN_ROWS = 0  # n_jobs=2 on these 2,000 rows takes the timed fit's path (subtrees)
    try:
        for algorithm, Xw, yw, params in fits:
            rootwise(algorithm, **params).fit(Xw, yw).predict(Xw)
    finally:
        subtrees.MIN_ROWS = least
