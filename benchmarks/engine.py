"""Fit and predict speed of every rootwise path on tables of the shape users bring, beside the
tool a user would otherwise pick.

    .venv/bin/python benchmarks/engine.py --rows 10000                  # some minutes
    .venv/bin/python benchmarks/engine.py --rows 100000 1000000         # the full sizes: long
    .venv/bin/python benchmarks/engine.py --rows 100000 --sections cart c45 --reps 5
    .venv/bin/python benchmarks/engine.py --rows 100000 --sections hard small threads predict \
        --classes 4 --missing 0.15 --max-levels 1000 --rpart-limit 300

Two tables, both seeded. ``data.real_table``: 10 numeric and 10 pandas categorical columns of
3..200 categories, every cell missing with probability 0.05 (sections cart .. default).
``data.hard_table`` (sections hard .. predict): 8 numeric columns of Student's t with 3 degrees
of freedom, 10 categorical columns of 2 up to ``--max-levels`` categories (geometric steps),
every cell missing with probability ``--missing``, ``--classes`` classes or a regression target.
Each is drawn with ``--rows`` training rows and a fifth as many held-out rows (1,000 to
100,000), on which each fitted model is scored (accuracy, or R^2) so that a reader sees the
trees are comparable. rootwise always fits the pandas DataFrame, so its times include encoding
it. Every other peer gets its input prepared outside the timing (``peers.py`` says exactly what
each is given).

Sections (``--sections``; rootwise's time / the peer's is the ratio, above 1: rootwise faster):

    cart      Exact ``CARTClassifier(pruning=None, n_jobs=1)`` (default 5 surrogates) against
              scikit-learn's ``DecisionTreeClassifier(random_state=0)`` on the ordinal codes (one
              float matrix, NaN for missing cells), alternating in this process, and against
              ``rpart(cp=0, xval=0, minsplit=2, minbucket=1, maxcompete=0)`` timed inside R with
              ``system.time``. On the two-class table: rpart searches category subsets
              exhaustively when there are more than two classes (2^199 subsets for the
              200-category column), so it cannot fit the three-class table; a second row fits
              that one against scikit-learn alone.
    cart-reg  Exact ``CARTRegressor(pruning=None, n_jobs=1)`` against
              ``DecisionTreeRegressor(random_state=0)``, as above.
    c45       ``C45Classifier(n_jobs=1)`` and ``C45Classifier(release8=True, n_jobs=1)``
              against Weka's J48 (``-C 0.25 -M 2``), its reported build time, each run a new
              JVM, on the three-class table written once as ARFF.
    hist      ``splitter="hist"`` (``pruning=None, n_jobs=1``) against one LightGBM tree
              (``peers.lightgbm_tree``: native categorical features, ``num_leaves`` = the hist
              tree's leaf count from one untimed fit, 255 bins), on the two-class table and the
              regression table; and timed alone on the three-class table.
    id3       Timed alone: ``ID3Classifier(n_jobs=1)`` on the three-class table without
              missing cells (ID3 refuses them). ID3 treats a continuous column as categorical,
              one branch per distinct value: a numeric column of (nearly) unique values has the
              largest gain, so the root splits the rows into one branch per value, and a branch
              whose rows share a value splits again on another numeric column, into one branch
              for every value seen in training, nearly all empty (millions of leaves at 10^5
              rows). Held-out rows, whose values it has never seen, stop at the root. A second
              row fits the 10 categorical columns alone, where ID3 grows a real tree.
    default   ``CARTClassifier(random_state=0)`` (two-class table) and
              ``CARTRegressor(random_state=0)``, which choose alpha by 10-fold CV (1-SE rule),
              with the default ``n_jobs`` (every core), against R's default ``rpart()`` call
              (xval = 10, cp = 0.01, minsplit 20, ...), ``set.seed(0)`` before it. rpart's
              held-out score is given for the tree its call returns and, after the slash, for
              that tree pruned at the 1-SE row of its cptable (what rootwise's default keeps).
              A second row per estimator gives rootwise rpart()'s settings (``cp=0.01``,
              ``cv_repeats=1``, ``min_samples_split=20``, ``min_samples_leaf=7``): the same job.
    hard      The hard table. Exact ``CARTClassifier(pruning=None, n_jobs=1)``, and the same
              with ``max_surrogates=0``, against scikit-learn as in cart (one alternation, both
              rows beside the same scikit-learn times), and against rpart as in cart; with more
              than two classes rpart searches every subset of a column's categories (Breiman et
              al. 1984: 2^(L-1) - 1 of them), which does not finish on hundreds of
              categories, so each rpart fit is stopped after ``--rpart-limit`` seconds and
              printed as "over N s". ``splitter="hist"`` against one LightGBM tree, as in hist,
              when there are two classes (timed alone otherwise: LightGBM grows a tree per
              class), and on the regression target.
    small     The fully grown ``CARTRegressor(pruning=None, n_jobs=1)`` (surrogates on) against
              ``DecisionTreeRegressor`` on the hard table's regression target, and the cart-reg
              row (unless cart-reg runs anyway). A fully grown tree of n rows has about n
              nodes, most of a few rows: this is the small-node path's measure.
    threads   One ``CARTClassifier(pruning=None)`` fit on the hard table with ``n_jobs=2``
              against ``n_jobs=1``, alternating, on the wall clock (CPU time would hide the
              gain); the ratio is the speed-up, and the two trees' leaves, depths and held-out
              scores are printed side by side (they must be the same tree).
    predict   ``predict`` of ``--rows`` held-out rows of the hard table (drawn with as many
              training rows): rootwise on the pandas DataFrame, its encoding timed, against
              scikit-learn's ``predict`` on a float32 matrix of ordinal codes made outside the
              timing; each library with its own tree fitted (untimed) on the same training
              rows, of ``max_depth=8`` and fully grown. The scores are the accuracies on the
              predicted rows.

Timing. Python peers run in this process, alternating with rootwise (rootwise first, then the
reverse order on the next repetition), and the medians of ``--reps`` wall times are printed; a
fit longer than ``--long`` seconds ends the repetitions of its cell. The speed cells are
single-threaded: ``n_jobs=1`` for rootwise, threadpoolctl limits OpenMP/BLAS to one thread,
LightGBM gets ``num_threads=1``, R runs with ``OMP_NUM_THREADS=1`` (rpart is single-threaded
anyway), J48's algorithm is single-threaded (the JVM keeps its own compiler and collector
threads); default and threads are the exceptions. rpart is run ``--reps`` times in one R
process, J48 ``--java-runs`` times. Every kernel is compiled (or loaded) by a small fit of each
configuration before any timing. A fit still running after ``--timeout`` seconds is interrupted
where it returns to Python ("skipped"), and one whose time, extrapolated from a smaller size as
n log n, would pass it is not started.

Every row carries the 1-minute load average when it finished; a single-threaded wall time whose
CPU/wall ratio is below 0.9 is marked "busy" (another process had the core). ``--clock cpu``
reports CPU time instead (this process's for rootwise and the Python peers, R's user + system
time for rpart) in the single-threaded cells, the steadier measure on a shared machine; the c45
cells stay on the wall clock (J48 reports nothing else), and so do default and threads (several
threads).

After all sizes the script prints every rootwise path's scaling exponent, log(t2 / t1) /
log10(n2 / n1) between consecutive sizes (1 per decade is linear; n log n from 10^5 to 10^6 is
1.08).

Without R, Java or LightGBM the peer's rows say why they are skipped; the rest runs.
"""

from __future__ import annotations

import os

# numba reads its thread count once, at import: every core for the default fit and threads
os.environ.setdefault("NUMBA_NUM_THREADS", str(os.cpu_count() or 1))

import argparse  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from contextlib import nullcontext  # noqa: E402
from pathlib import Path  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_hard  # noqa: E402
import peers  # noqa: E402
from engine_cells import (  # noqa: E402
    HEAD,
    Context,
    Report,
    Row,
    alone,
    fitter,
    fmt_cell_time,
    fmt_peer_run,
    fmt_score,
    held_out,
    hist,
    rootwise,
    sklearn_tree,
    versus_lightgbm,
    versus_rpart,
    versus_sklearn,
)
from machine import load, machine_lines, print_table_head  # noqa: E402

SECTIONS = ("cart", "cart-reg", "c45", "hist", "id3", "default") + engine_hard.SECTIONS


def section_cart(ctx: Context, rows: int) -> None:
    make = lambda: rootwise("cart", pruning=None, n_jobs=1)  # noqa: E731
    cell, models = versus_sklearn(ctx, "CART clf exact, 2 classes", "CART clf exact (2 classes)",
                                  "clf2", rows, make)
    versus_rpart(ctx, "CART clf exact, 2 classes", "clf2", rows, "exact", cell,
                 models.get("rootwise"))
    versus_sklearn(ctx, "CART clf exact, 3 classes", "CART clf exact (3 classes)", "clf", rows,
                   make)


def section_cart_reg(ctx: Context, rows: int) -> None:
    make = lambda: rootwise("cart-regressor", pruning=None, n_jobs=1)  # noqa: E731
    versus_sklearn(ctx, "CART reg exact", "CART reg exact", "reg", rows, make)


def section_c45(ctx: Context, rows: int) -> None:
    """C4.5, default and release 8, in this process; J48's build times from its own runs."""
    split = ctx.table("clf", rows)
    fits = {"default": fitter(lambda: rootwise("c4.5", n_jobs=1), split.X, split.y),
            "release8": fitter(lambda: rootwise("c4.5", release8=True, n_jobs=1), split.X, split.y)}
    cell, models = ctx.alternate(fits, rows, "c4.5", clock="wall")  # J48 reports wall time only
    j48, why = None, ctx.j48_missing
    if why is None:
        try:
            j48 = ctx.j48.run(split, ctx.args.java_runs, timeout=ctx.subprocess_timeout(1))
        except Exception as e:
            why = f"FAILED: {str(e)[:80]}"
    for lib, name, path in (("default", "C4.5 default", "C4.5"),
                            ("release8", "C4.5 release 8", "C4.5 release 8")):
        model = models.get(lib)
        rw_score = fmt_score(held_out(model, split.X_test, split) if model else None, False)
        leaves, depth = peers.tree_shape(model) if model is not None else ("-", "-")
        m = cell.median(lib)
        if j48 is None:
            row = Row(name, rows, fmt_cell_time(cell, lib), "J48", f"skipped ({why})", None,
                      f"{rw_score} / -", f"{leaves} / -", f"{depth} / -")
        else:
            row = Row(name, rows, fmt_cell_time(cell, lib), "J48", fmt_peer_run(j48, cell.clock),
                      None if m is None else j48.median / m,
                      f"{rw_score} / {fmt_score(j48.score, False)}", f"{leaves} / {j48.leaves}",
                      f"{depth} / -")
        ctx.report.add(row)
        ctx.report.rootwise_time(path, rows, cell, lib)


def section_hist(ctx: Context, rows: int) -> None:
    versus_lightgbm(ctx, "hist clf, 2 classes", "clf2", rows)
    versus_lightgbm(ctx, "hist reg", "reg", rows)
    # three classes: LightGBM would grow three trees, so this path is timed alone
    alone(ctx, "hist clf, 3 classes", rows, ctx.table("clf", rows), hist("cart"))


def section_id3(ctx: Context, rows: int) -> None:
    split = ctx.table("id3", rows)
    make = lambda: rootwise("id3", n_jobs=1)  # noqa: E731
    alone(ctx, "ID3, whole table (no missing)", rows, split, make)
    alone(ctx, "ID3, 10 categorical columns", rows, split, make,
          columns=[c for c in split.X.columns if c.startswith("c")])


# --------------------------------------------------------------------------- the default fit


def section_default(ctx: Context, rows: int) -> None:
    """The default fits (alpha by 10-fold CV, every core) against R's default rpart() call."""
    like_rpart = dict(cp=0.01, cv_repeats=1, min_samples_split=20, min_samples_leaf=7)
    for kind, name, algorithm, params in (
            ("clf2", "CARTClassifier() default, 2 classes", "cart", {}),
            ("clf2", "CARTClassifier(rpart()'s settings), 2 classes", "cart", like_rpart),
            ("reg", "CARTRegressor() default", "cart-regressor", {}),
            ("reg", "CARTRegressor(rpart()'s settings)", "cart-regressor", like_rpart)):
        split = ctx.table(kind, rows)
        fits = {"rootwise": fitter(lambda a=algorithm, p=params: rootwise(a, random_state=0, **p),
                                   split.X, split.y)}
        cell, models = ctx.alternate(fits, rows, name, clock="wall")
        ctx.report.rootwise_time(name, rows, cell)
        versus_rpart(ctx, name, kind, rows, "default", cell, models.get("rootwise"),
                     single_threaded=False)


# --------------------------------------------------------------------------- the run


def section_small(ctx: Context, rows: int) -> None:
    """The fully grown regressor on the hard table, and on this table (the cart-reg row)."""
    engine_hard.section_small(ctx, rows)
    if "cart-reg" not in ctx.args.sections:
        section_cart_reg(ctx, rows)


RUNNERS = {"cart": section_cart, "cart-reg": section_cart_reg, "c45": section_c45,
           "hist": section_hist, "id3": section_id3, "default": section_default,
           **engine_hard.RUNNERS, "small": section_small}


def warm_up(sections) -> None:
    """Compile or load every kernel the timed fits use, on 2,000 rows of each table."""
    small = {kind: peers.split_table(2000, kind, seed=1) for kind in ("clf", "clf2", "reg", "id3")}
    fits = []
    if "cart" in sections:
        fits += [("cart", "clf2", {"pruning": None}), ("cart", "clf", {"pruning": None})]
    if "cart-reg" in sections:
        fits += [("cart-regressor", "reg", {"pruning": None})]
    if "c45" in sections:
        fits += [("c4.5", "clf", {}), ("c4.5", "clf", {"release8": True})]
    if "hist" in sections:
        fits += [("cart", "clf2", {"pruning": None, "splitter": "hist"}),
                 ("cart", "clf", {"pruning": None, "splitter": "hist"}),
                 ("cart-regressor", "reg", {"pruning": None, "splitter": "hist"})]
    if "id3" in sections:
        fits += [("id3", "id3", {})]
    if "default" in sections:
        fits += [("cart", "clf2", {"random_state": 0}), ("cart-regressor", "reg", {"random_state": 0})]
    for algorithm, kind, params in fits:
        split = small[kind]
        t0 = time.perf_counter()
        model = rootwise(algorithm, **params).fit(split.X, split.y)
        model.predict(split.X_test)
        seconds = time.perf_counter() - t0
        if seconds > 5:
            print(f"  (warm-up: {algorithm} {params} took {seconds:.0f} s: kernels compiled)",
                  flush=True)
    split = small["clf2"]
    sklearn_tree(False).fit(peers.ordinal_codes(split.X), split.y)
    if peers.have_lightgbm():
        peers.lightgbm_tree(False, 31).fit(split.X, split.y)


def scaling(report: Report) -> None:
    """log(t2 / t1) / log10(n2 / n1) per rootwise path between consecutive sizes."""
    sizes = sorted({n for times in report.times.values() for n in times})
    if len(sizes) < 2:
        return
    pairs = list(zip(sizes, sizes[1:], strict=False))
    print("\n## Scaling: exponent per decade of rows, log(t2 / t1) / log10(n2 / n1)\n")
    ref = " | ".join(f"{1 + math.log10(math.log(b) / math.log(a)) / math.log10(b / a):.2f}"
                     for a, b in pairs)
    head = "| rootwise path | " + " | ".join(f"{a:,} -> {b:,}" for a, b in pairs) + " |"
    print_table_head(head)
    print(f"| (n log n for reference) | {ref} |")
    for path, times in report.times.items():
        cells = []
        for a, b in pairs:
            if a in times and b in times:
                cells.append(f"{math.log(times[b] / times[a]) / math.log10(b / a):.2f}")
            else:
                cells.append("-")
        print(f"| {path} | " + " | ".join(cells) + " |")


def parse(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, nargs="+", default=[10_000],
                   help="training sizes, e.g. 100000 1000000 (default 10000)")
    p.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    p.add_argument("--reps", type=int, default=3, help="timed fits per cell (medians printed)")
    p.add_argument("--java-runs", type=int, default=3, help="J48 runs per size, each a new JVM")
    p.add_argument("--long", type=float, default=60.0,
                   help="after a fit this long, stop repeating the cell")
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds one fit may take")
    p.add_argument("--seed", type=int, default=0, help="the table's seed")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="single-threaded cells: elapsed time, or CPU time (steadier when shared)")
    p.add_argument("--weka-jar", default=peers.WEKA_JAR)
    p.add_argument("--keep", type=Path, help="write the peers' files (R binary, ARFF) here and keep them")
    p.add_argument("--no-r", action="store_true", help="skip rpart")
    p.add_argument("--no-java", action="store_true", help="skip J48")
    p.add_argument("--classes", type=int, default=4, choices=range(2, 11), metavar="2..10",
                   help="the hard table's classes (default 4)")
    p.add_argument("--missing", type=float, default=0.15,
                   help="the hard table's probability of a missing cell (default 0.15)")
    p.add_argument("--max-levels", type=int, default=1000,
                   help="the hard table's widest categorical column (default 1000 categories)")
    p.add_argument("--rpart-limit", type=float, default=300.0,
                   help="seconds one rpart fit may take on the hard table (default 300)")
    args = p.parse_args(argv)
    if not 0.0 <= args.missing < 1.0:
        p.error(f"--missing must be in [0, 1), got {args.missing}")
    if args.max_levels < 2:
        p.error(f"--max-levels must be at least 2, got {args.max_levels}")
    return args


def main(argv=None) -> int:
    args = parse(argv)
    warnings.filterwarnings("ignore", category=UserWarning)  # LightGBM's "no further splits"
    for line in machine_lines():
        print(line)
    report = Report()
    with peers.temporary_folder(args.keep) as folder:
        ctx = Context(args, Path(folder), report)
        r = f"rpart skipped: {ctx.rpart_missing}" if ctx.rpart_missing else peers.Rpart.version()
        j = f"J48 skipped: {ctx.j48_missing}" if ctx.j48_missing else ctx.j48.version()
        print(f"peers: {r}; {j}; LightGBM {'installed' if ctx.lightgbm else 'not installed'}")
        print(f"clock={args.clock}, reps={args.reps}, java runs={args.java_runs}, long={args.long:.0f} s, "
              f"timeout={args.timeout:.0f} s, seed={args.seed}; held-out rows: "
              + ", ".join(f"{peers.held_out_rows(n):,} for {n:,}" for n in args.rows))
        started = time.perf_counter()
        with threadpool_limits(limits=1):
            warm_up(args.sections)
            engine_hard.warm_up(args.sections, args)
        print(f"hard table: {engine_hard.describe(args)}")
        print("\n## Fit and predict times (medians; ratio = peer / rootwise, above 1: "
              "rootwise faster)\n")
        print_table_head(HEAD)
        for rows in args.rows:
            for section in args.sections:
                # the speed cells are single-threaded; default and threads run several threads
                several = section == "default" or section in engine_hard.MULTI_THREADED
                limits = nullcontext() if several else threadpool_limits(limits=1)
                with limits:
                    RUNNERS[section](ctx, rows)
            ctx.forget_tables()
    if len(args.rows) > 1:
        print("\n## All sizes\n")
        print_table_head(HEAD)
        for row in report.rows:
            print(row.line())
    scaling(report)
    print(f"\ntotal {time.perf_counter() - started:.0f} s; load average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
