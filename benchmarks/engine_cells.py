"""The cells of ``engine.py``: one table row per rootwise path beside a peer, the shared state of
a run (options, time budget, peers, tables), and the comparisons every section is built from.

    Row, Report, HEAD       a printed table row (with its target verdict and load average)
    Context                 options, budget, peers and the cached tables of one run
    versus_sklearn          rootwise on the DataFrame, scikit-learn on ordinal codes, alternating
    versus_rpart            the same rootwise times beside rpart run in R (with a time limit)
    versus_lightgbm         ``splitter="hist"`` beside one LightGBM tree, alternating
    alone                   a rootwise path timed without a peer
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from speed import BUSY, Budget, Cell, run_alternating  # noqa: E402

FEATURES = 20  # the table's column count, for the time budget's extrapolation

# the targets of the fit-speed cells: the ratio peer time / rootwise time must reach these
# (for "n_jobs=1": the speed-up of one fit with two threads)
TARGET = {"scikit-learn": 5.0, "rpart": 5.0, "J48": 5.0, "LightGBM": 2.0, "rpart()": 1.0,
          "n_jobs=1": 1.7, "scikit-learn predict": 3.0}


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


def sklearn_tree(regression: bool, **params):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    return (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=0, **params)


def fitter(make, X, y):
    """A no-argument function that builds a fresh estimator and fits it (what is timed)."""
    return lambda: make().fit(X, y)


def held_out(model, X_test, split: peers.Split) -> float:
    return peers.score(split.y_test, model.predict(X_test), split.regression)


# --------------------------------------------------------------------------- the comparisons


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
        """``kind``: one of ``peers.split_table``'s, or "hard" / "hard-reg": ``data.hard_table``
        with the command line's classes, missing rate and category counts."""
        key = (kind, rows)
        if key not in self.tables:
            if kind in ("hard", "hard-reg"):
                a = self.args
                self.tables[key] = peers.hard_split(rows, regression=kind == "hard-reg",
                                                    n_classes=a.classes, missing_rate=a.missing,
                                                    max_levels=a.max_levels, seed=a.seed)
            else:
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
                   make_rootwise, others: tuple = ()) -> tuple[Cell, dict]:
    """rootwise on the DataFrame and scikit-learn on its ordinal codes, alternating. ``others``:
    more rootwise variants as (cell name, path, make), timed in the same alternation and each
    printed beside the same scikit-learn times."""
    split = ctx.table(kind, rows)
    codes, codes_test = peers.ordinal_codes(split.X), peers.ordinal_codes(split.X_test)
    # the first variant's times are the cell's "rootwise" (what versus_rpart reads)
    variants = (("rootwise", cell_name, path, make_rootwise),
                *((p, name, p, make) for name, p, make in others))
    fits = {lib: fitter(make, split.X, split.y) for lib, _, _, make in variants}
    fits["scikit-learn"] = fitter(lambda: sklearn_tree(split.regression), codes, split.y)
    cell, models = ctx.alternate(fits, rows, path)
    sk = models.get("scikit-learn")
    sk_score = fmt_score(held_out(sk, codes_test, split) if sk else None, split.regression)
    for lib, name, p, _ in variants:
        rw = models.get(lib)
        rw_score = fmt_score(held_out(rw, split.X_test, split) if rw else None, split.regression)
        leaves, depth = shapes(rw, sk)
        ctx.report.add(Row(name, rows, fmt_cell_time(cell, lib), "scikit-learn",
                           fmt_cell_time(cell, "scikit-learn"), ratio_of(cell, "scikit-learn", lib),
                           f"{rw_score} / {sk_score}", leaves, depth))
        ctx.report.rootwise_time(p, rows, cell, lib)
    return cell, models


def versus_rpart(ctx: Context, cell_name: str, kind: str, rows: int, mode: str, cell: Cell,
                 model, single_threaded: bool = True, limit: float | None = None) -> None:
    """The same rootwise times beside rpart run in R on the same table; a fit of rpart still
    running after ``limit`` seconds is stopped and printed as "over N s"."""
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
        run = ctx.rpart.run(split, mode, runs, seed=0, timeout=ctx.subprocess_timeout(runs),
                            limit=limit)
    except Exception as e:  # a failing peer is reported, not fatal
        ctx.report.add(Row(cell_name, rows, rw_time, peer, f"FAILED: {str(e)[:80]}", None,
                           f"{rw_score} / -", f"{rw_shape[0]} / -", f"{rw_shape[1]} / -"))
        return
    if run.over is not None and not run.times:
        ctx.report.add(Row(cell_name, rows, rw_time, peer, f"over {run.over:g} s (stopped)", None,
                           f"{rw_score} / -", f"{rw_shape[0]} / -", f"{rw_shape[1]} / -"))
        return
    m = cell.median("rootwise")
    clock = cell.clock
    peer_score = fmt_score(run.score, split.regression)
    leaves = f"{rw_shape[0]} / {'-' if run.leaves is None else run.leaves}"
    depth = f"{rw_shape[1]} / {'-' if run.depth is None else run.depth}"
    if run.extra and "pruned_1se_score" in run.extra:
        peer_score += f" / {fmt_score(run.extra['pruned_1se_score'], split.regression)}"
        leaves += f" / {int(run.extra['pruned_1se_leaves'])}"
        depth += f" / {int(run.extra['pruned_1se_depth'])}"
    peer_time = fmt_peer_run(run, clock)
    if run.over is not None:  # an earlier fit finished, a later one was stopped
        peer_time += f"; a fit over {run.over:g} s stopped"
    ctx.report.add(Row(cell_name, rows, rw_time, peer, peer_time,
                       None if m is None else peer_median(run, clock) / m,
                       f"{rw_score} / {peer_score}", leaves, depth))


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




def versus_lightgbm(ctx: Context, name: str, kind: str, rows: int) -> None:
    """``splitter="hist"`` against one LightGBM tree (``peers.lightgbm_tree``) grown to the hist
    tree's leaf count, taken from one untimed fit; two classes or regression only."""
    split = ctx.table(kind, rows)
    make = hist("cart-regressor" if split.regression else "cart")
    if not ctx.lightgbm:
        alone(ctx, name, rows, split, make, peer="LightGBM",
              why="skipped (not installed: pip install -e '.[bench]')")
        return
    try:
        n_leaves = peers.tree_shape(make().fit(split.X, split.y))[0]  # untimed: the leaf count
    except Exception as e:
        ctx.report.add(Row(name, rows, f"FAILED: {str(e)[:80]}", "LightGBM", "-", None, "-", "-", "-"))
        return
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
