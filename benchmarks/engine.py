"""Issue 11's fit-speed cells (items 5 and 6): every rootwise path on issue 11's table, beside
the tool a user would otherwise pick.

    .venv/bin/python benchmarks/engine.py --rows 10000                  # a few minutes
    .venv/bin/python benchmarks/engine.py --rows 100000 1000000         # the issue's sizes: long
    .venv/bin/python benchmarks/engine.py --rows 100000 --sections cart c45 --reps 5

The table is ``data.real_table`` (10 numeric and 10 pandas categorical columns of 3..200
categories, every cell missing with probability 0.05, seeded): ``--rows`` training rows, and a
fifth as many held-out rows (1,000 to 100,000) from the same draw, on which each fitted model is
scored (accuracy, or R^2) so that a reader sees the trees are comparable. rootwise always fits
the pandas DataFrame, so its times include encoding it. Every other peer gets its input
prepared outside the timing (``peers.py`` says exactly what each is given).

Sections (``--sections``; rootwise's time / the peer's is the ratio, above 1: rootwise faster):

    cart      item 5. Exact ``CARTClassifier(pruning=None, n_jobs=1)`` (default 5 surrogates)
              against scikit-learn's ``DecisionTreeClassifier(random_state=0)`` on the ordinal
              codes (one float matrix, NaN for missing cells), alternating in this process, and
              against ``rpart(cp=0, xval=0, minsplit=2, minbucket=1, maxcompete=0)`` timed inside
              R with ``system.time``. On the two-class table: rpart searches category subsets
              exhaustively when there are more than two classes (2^199 subsets for the
              200-category column), so it cannot fit the three-class table; a second row fits
              that one against scikit-learn alone.
    cart-reg  item 5. Exact ``CARTRegressor(pruning=None, n_jobs=1)`` against
              ``DecisionTreeRegressor(random_state=0)``, as above.
    c45       item 5. ``C45Classifier(n_jobs=1)`` and ``C45Classifier(release8=True, n_jobs=1)``
              against Weka's J48 (``-C 0.25 -M 2``), its reported build time, each run a new
              JVM, on the three-class table written once as ARFF.
    hist      item 5. ``splitter="hist"`` (``pruning=None, n_jobs=1``) against one LightGBM tree
              (``peers.lightgbm_tree``: native categorical features, ``num_leaves`` = the hist
              tree's leaf count from one untimed fit, 255 bins), on the two-class table and the
              regression table; and timed alone on the three-class table.
    id3       item 5, timed alone: ``ID3Classifier(n_jobs=1)`` on the three-class table without
              missing cells (ID3 refuses them). ID3 treats a continuous column as categorical,
              one branch per distinct value: a numeric column of (nearly) unique values has the
              largest gain, so the root splits the rows into one branch per value, and a branch
              whose rows share a value splits again on another numeric column, into one branch
              for every value seen in training, nearly all empty (millions of leaves at 10^5
              rows). Held-out rows, whose values it has never seen, stop at the root. A second
              row fits the 10 categorical columns alone, where ID3 grows a real tree.
    default   item 6. ``CARTClassifier(random_state=0)`` (two-class table) and
              ``CARTRegressor(random_state=0)``, which choose alpha by 10-fold CV (1-SE rule),
              with the default ``n_jobs`` (every core), against R's default ``rpart()`` call
              (xval = 10, cp = 0.01, minsplit 20, ...), ``set.seed(0)`` before it. rpart's
              held-out score is given for the tree its call returns and, after the slash, for
              that tree pruned at the 1-SE row of its cptable (what rootwise's default keeps).
              A second row per estimator gives rootwise rpart()'s settings (``cp=0.01``,
              ``cv_repeats=1``, ``min_samples_split=20``, ``min_samples_leaf=7``): the same job.

Timing. Python peers run in this process, alternating with rootwise (rootwise first, then the
reverse order on the next repetition), and the medians of ``--reps`` wall times are printed; a
fit longer than ``--long`` seconds ends the repetitions of its cell. Item 5 is single-threaded:
``n_jobs=1`` for rootwise, threadpoolctl limits OpenMP/BLAS to one thread, LightGBM gets
``num_threads=1``, R runs with ``OMP_NUM_THREADS=1`` (rpart is single-threaded anyway), J48's
algorithm is single-threaded (the JVM keeps its own compiler and collector threads). rpart is run
``--reps`` times in one R process, J48 ``--java-runs`` times. Every kernel is compiled (or
loaded) by a small fit of each configuration before any timing. A fit still running after
``--timeout`` seconds is interrupted where it returns to Python ("skipped"), and one whose time,
extrapolated from a smaller size as n log n, would pass it is not started.

Every row carries the 1-minute load average when it finished; a single-threaded wall time whose
CPU/wall ratio is below 0.9 is marked "busy" (another process had the core). ``--clock cpu``
reports CPU time instead (this process's for rootwise and the Python peers, R's user + system
time for rpart) in the single-threaded cells, the steadier measure on a shared machine; the c45
cells stay on the wall clock (J48 reports nothing else), and so does item 6 (several threads).

After all sizes the script prints every rootwise path's scaling exponent, log(t2 / t1) /
log10(n2 / n1) between consecutive sizes (1 per decade is linear; n log n from 10^5 to 10^6 is
1.08).

Without R, Java or LightGBM the peer's rows say why they are skipped; the rest runs.
"""

from __future__ import annotations

import os

# numba reads its thread count once, at import: every core for item 6's default n_jobs
os.environ.setdefault("NUMBA_NUM_THREADS", str(os.cpu_count() or 1))

import argparse  # noqa: E402
import gc  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from contextlib import nullcontext  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

from threadpoolctl import threadpool_limits  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from machine import load, machine_lines, print_table_head  # noqa: E402
from speed import BUSY, Budget, Cell, run_alternating  # noqa: E402

SECTIONS = ("cart", "cart-reg", "c45", "hist", "id3", "default")
FEATURES = 20  # the table's column count, for the time budget's extrapolation

# item 5 and 6 targets: the ratio peer time / rootwise time must reach these
TARGET = {"scikit-learn": 5.0, "rpart": 5.0, "J48": 5.0, "LightGBM": 2.0, "rpart()": 1.0}


# --------------------------------------------------------------------------- results


@dataclass
class Row:
    """One line of a table: a rootwise path beside one peer (or alone) at one size."""

    cell: str
    rows: int
    rw_time: str
    peer: str
    peer_time: str
    ratio: float | None
    scores: str
    leaves: str
    depth: str
    load: str = field(default_factory=lambda: f"{os.getloadavg()[0]:.1f}")

    def line(self) -> str:
        ratio = "-" if self.ratio is None else f"{self.ratio:.2f}x"
        target = TARGET.get(self.peer)
        verdict = "-" if target is None or self.ratio is None else (
            "met" if self.ratio >= target else "MISSED")
        goal = f"{target:g}x: {verdict}" if target is not None else "-"
        return (f"| {self.cell} | {self.rows:,} | {self.rw_time} | {self.peer} | {self.peer_time} | "
                f"{ratio} | {goal} | {self.scores} | {self.leaves} | {self.depth} | {self.load} |")


HEAD = ("| cell | rows | rootwise | peer | peer time | peer / rootwise | target | held-out "
        "rootwise / peer | leaves rootwise / peer | depth rootwise / peer | load (1 min) |")


@dataclass
class Report:
    rows: list = field(default_factory=list)
    times: dict = field(default_factory=dict)  # rootwise path -> {rows: median seconds}

    def add(self, row: Row) -> None:
        self.rows.append(row)
        print(row.line(), flush=True)

    def rootwise_time(self, path: str, rows: int, cell: Cell, lib: str = "rootwise") -> None:
        m = cell.median(lib)
        if m is not None:
            self.times.setdefault(path, {})[rows] = m


# --------------------------------------------------------------------------- formatting


def fmt_cell_time(cell: Cell, lib: str, single_threaded: bool = True) -> str:
    """Median time, how many runs, and a busy mark (single-threaded wall times only)."""
    m = cell.median(lib)
    if m is None:
        return cell.skipped.get(lib, "n/a")
    mark = ""
    if cell.clock == "cpu":
        mark = ", CPU"
    elif single_threaded and cell.busy(lib) < BUSY:
        mark = f", busy {cell.busy(lib):.2f}"
    return f"{m:.3f} s (n={len(cell.times[lib])}{mark})"


def peer_median(run: peers.PeerRun, clock: str) -> float:
    """The peer's median on ``clock``, its wall time when it reports no CPU time (J48)."""
    return statistics.median(run.cpu) if clock == "cpu" and run.cpu else run.median


def fmt_peer_run(run: peers.PeerRun, clock: str, single_threaded: bool = True) -> str:
    mark = ""
    if clock == "cpu":
        mark = ", CPU" if run.cpu else ", wall"
    elif run.cpu and single_threaded:
        busy = statistics.median(c / w for c, w in zip(run.cpu, run.times, strict=True) if w > 0)
        if busy < BUSY:
            mark = f", busy {busy:.2f}"
    return f"{peer_median(run, clock):.3f} s (n={len(run.times)}{mark})"


def fmt_score(value, regression: bool) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if regression else f"{value:.2%}"


def ratio_of(cell: Cell, peer: str, lib: str = "rootwise") -> float | None:
    a, b = cell.median(peer), cell.median(lib)
    return None if a is None or b is None else a / b


# --------------------------------------------------------------------------- the estimators


def rootwise(name: str, **params):
    """A rootwise estimator by algorithm name, with ``params``."""
    import rootwise as rw

    cls = {"id3": rw.ID3Classifier, "c4.5": rw.C45Classifier, "cart": rw.CARTClassifier,
           "cart-regressor": rw.CARTRegressor}[name]
    return cls(**params)


def sklearn_tree(regression: bool):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    return (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=0)


def fitter(make, X, y):
    """A no-argument function that builds a fresh estimator and fits it (what is timed)."""
    return lambda: make().fit(X, y)


def held_out(model, X_test, split: peers.Split) -> float:
    return peers.score(split.y_test, model.predict(X_test), split.regression)


# --------------------------------------------------------------------------- item 5


class Context:
    """What every section needs: options, the time budget, the peers, the report."""

    def __init__(self, args, folder: Path, report: Report):
        self.args = args
        self.budget = Budget(args.timeout)
        self.report = report
        self.rpart = peers.Rpart(folder)
        self.rpart_missing = "--no-r" if args.no_r else peers.Rpart.missing()
        self.j48 = peers.J48(folder, args.weka_jar)
        self.j48_missing = "--no-java" if args.no_java else self.j48.missing()
        self.lightgbm = peers.have_lightgbm()
        self.tables: dict = {}

    def table(self, kind: str, rows: int) -> peers.Split:
        key = (kind, rows)
        if key not in self.tables:
            self.tables[key] = peers.split_table(rows, kind, seed=self.args.seed)
        return self.tables[key]

    def forget_tables(self) -> None:
        self.tables.clear()
        gc.collect()

    def alternate(self, fits: dict, rows: int, tag: str, clock: str | None = None) -> tuple[Cell, dict]:
        cell = Cell(label=f"{tag} {rows}", clock=clock or self.args.clock)
        models = run_alternating(cell, fits, self.args.reps, self.budget,
                                 lambda lib: (lib, tag), rows, FEATURES, self.args.long)
        return cell, models

    def subprocess_timeout(self, runs: int) -> float:
        return self.args.timeout * (runs + 1) + 300.0  # and reading the table


def shapes(a, b) -> tuple[str, str]:
    """The leaf counts and the depths of two fitted models, each as "a / b" ("-" for None)."""
    sa = peers.tree_shape(a) if a is not None else ("-", "-")
    sb = peers.tree_shape(b) if b is not None else ("-", "-")
    return f"{sa[0]} / {sb[0]}", f"{sa[1]} / {sb[1]}"


def versus_sklearn(ctx: Context, cell_name: str, path: str, kind: str, rows: int,
                   make_rootwise) -> tuple[Cell, dict]:
    """rootwise on the DataFrame and scikit-learn on its ordinal codes, alternating."""
    split = ctx.table(kind, rows)
    codes, codes_test = peers.ordinal_codes(split.X), peers.ordinal_codes(split.X_test)
    fits = {"rootwise": fitter(make_rootwise, split.X, split.y),
            "scikit-learn": fitter(lambda: sklearn_tree(split.regression), codes, split.y)}
    cell, models = ctx.alternate(fits, rows, path)
    rw, sk = models.get("rootwise"), models.get("scikit-learn")
    scores = (f"{fmt_score(held_out(rw, split.X_test, split) if rw else None, split.regression)} / "
              f"{fmt_score(held_out(sk, codes_test, split) if sk else None, split.regression)}")
    leaves, depth = shapes(rw, sk)
    ctx.report.add(Row(cell_name, rows, fmt_cell_time(cell, "rootwise"), "scikit-learn",
                       fmt_cell_time(cell, "scikit-learn"), ratio_of(cell, "scikit-learn"),
                       scores, leaves, depth))
    ctx.report.rootwise_time(path, rows, cell)
    return cell, models


def versus_rpart(ctx: Context, cell_name: str, kind: str, rows: int, mode: str, cell: Cell,
                 model, single_threaded: bool = True) -> None:
    """The same rootwise times beside rpart run in R on the same table."""
    split = ctx.table(kind, rows)
    peer = "rpart" if mode == "exact" else "rpart()"
    rw_time = fmt_cell_time(cell, "rootwise", single_threaded)
    rw_score = fmt_score(held_out(model, split.X_test, split) if model else None, split.regression)
    rw_shape = peers.tree_shape(model) if model is not None else ("-", "-")
    if ctx.rpart_missing:
        ctx.report.add(Row(cell_name, rows, rw_time, peer, f"skipped ({ctx.rpart_missing})", None,
                           f"{rw_score} / -", f"{rw_shape[0]} / -", f"{rw_shape[1]} / -"))
        return
    runs = ctx.args.reps if mode == "exact" else max(1, min(ctx.args.reps, 3))
    try:
        run = ctx.rpart.run(split, mode, runs, seed=0, timeout=ctx.subprocess_timeout(runs))
    except Exception as e:  # a failing peer is reported, not fatal
        ctx.report.add(Row(cell_name, rows, rw_time, peer, f"FAILED: {str(e)[:80]}", None,
                           f"{rw_score} / -", f"{rw_shape[0]} / -", f"{rw_shape[1]} / -"))
        return
    m = cell.median("rootwise")
    clock = cell.clock
    peer_score = fmt_score(run.score, split.regression)
    leaves, depth = f"{rw_shape[0]} / {run.leaves}", f"{rw_shape[1]} / {run.depth}"
    if run.extra and "pruned_1se_score" in run.extra:
        peer_score += f" / {fmt_score(run.extra['pruned_1se_score'], split.regression)}"
        leaves += f" / {int(run.extra['pruned_1se_leaves'])}"
        depth += f" / {int(run.extra['pruned_1se_depth'])}"
    ctx.report.add(Row(cell_name, rows, rw_time, peer, fmt_peer_run(run, clock),
                       None if m is None else peer_median(run, clock) / m,
                       f"{rw_score} / {peer_score}", leaves, depth))


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


def alone(ctx: Context, name: str, rows: int, split: peers.Split, make, columns=None,
          peer: str = "(alone)", why: str = "-") -> None:
    """A rootwise path timed without a peer (``why``: the reason, in the peer's column)."""
    X, X_test = split.X, split.X_test
    if columns is not None:
        X, X_test = X[columns], X_test[columns]
    cell, models = ctx.alternate({"rootwise": fitter(make, X, split.y)}, rows, name)
    model = models.get("rootwise")
    score = fmt_score(held_out(model, X_test, split), split.regression) if model else "-"
    leaves, depth = peers.tree_shape(model) if model is not None else ("-", "-")
    ctx.report.add(Row(name, rows, fmt_cell_time(cell, "rootwise"), peer, why, None, score,
                       str(leaves), str(depth)))
    ctx.report.rootwise_time(name, rows, cell)


def hist(algorithm: str):
    return lambda: rootwise(algorithm, splitter="hist", pruning=None, n_jobs=1)


def section_hist(ctx: Context, rows: int) -> None:
    for kind, name in (("clf2", "hist clf, 2 classes"), ("reg", "hist reg")):
        split = ctx.table(kind, rows)
        make = hist("cart-regressor" if split.regression else "cart")
        if not ctx.lightgbm:
            alone(ctx, name, rows, split, make, peer="LightGBM",
                  why="skipped (not installed: pip install -e '.[bench]')")
            continue
        try:
            n_leaves = peers.tree_shape(make().fit(split.X, split.y))[0]  # untimed: the leaf count
        except Exception as e:
            ctx.report.add(Row(name, rows, f"FAILED: {str(e)[:80]}", "LightGBM", "-", None, "-",
                               "-", "-"))
            continue
        fits = {"rootwise": fitter(make, split.X, split.y),
                "LightGBM": fitter(lambda r=split.regression, k=n_leaves: peers.lightgbm_tree(r, k),
                                   split.X, split.y)}
        cell, models = ctx.alternate(fits, rows, name)
        rw, lg = models.get("rootwise"), models.get("LightGBM")
        scores = " / ".join(fmt_score(held_out(m, split.X_test, split) if m else None,
                                      split.regression) for m in (rw, lg))
        leaves, depth = shapes(rw, lg)
        if n_leaves > peers.LIGHTGBM_MAX_LEAVES:
            leaves += f" (LightGBM's cap {peers.LIGHTGBM_MAX_LEAVES})"
        ctx.report.add(Row(name, rows, fmt_cell_time(cell, "rootwise"), "LightGBM",
                           fmt_cell_time(cell, "LightGBM"), ratio_of(cell, "LightGBM"), scores,
                           leaves, depth))
        ctx.report.rootwise_time(name, rows, cell)
    # three classes: LightGBM would grow three trees, so this path is timed alone
    alone(ctx, "hist clf, 3 classes", rows, ctx.table("clf", rows), hist("cart"))


def section_id3(ctx: Context, rows: int) -> None:
    split = ctx.table("id3", rows)
    make = lambda: rootwise("id3", n_jobs=1)  # noqa: E731
    alone(ctx, "ID3, whole table (no missing)", rows, split, make)
    alone(ctx, "ID3, 10 categorical columns", rows, split, make,
          columns=[c for c in split.X.columns if c.startswith("c")])


# --------------------------------------------------------------------------- item 6


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


RUNNERS = {"cart": section_cart, "cart-reg": section_cart_reg, "c45": section_c45,
           "hist": section_hist, "id3": section_id3, "default": section_default}


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
    return p.parse_args(argv)


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
        print("\n## Fit time on issue 11's table (medians; ratio = peer / rootwise, above 1: "
              "rootwise faster)\n")
        print_table_head(HEAD)
        for rows in args.rows:
            for section in args.sections:
                # item 5 is single-threaded; item 6 runs rootwise with its default n_jobs
                limits = nullcontext() if section == "default" else threadpool_limits(limits=1)
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
