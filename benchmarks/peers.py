"""The peers of the engine benchmark's fit-speed cells, and what each is given (``engine.py``).

    Split              the benchmark's table (``data.real_table``, or ``data.hard_table`` through
                       ``hard_split``) cut into training and held-out rows
    ordinal_codes      the table as scikit-learn takes it: one float matrix, category codes as
                       numbers, NaN for a missing cell (made outside any timing)
    lightgbm_tree      one LightGBM tree with native categorical features
    Rpart              ``tools/rpart/time_fit.R`` through ``Rscript``: rpart timed inside R,
                       each fit optionally cut off after a time limit
    J48                Weka's J48 through ``java``: its reported "Time taken to build model"
    score, tree_shape  held-out accuracy / R^2, and leaves / depth of any fitted model

R and Java are optional: ``Rpart.missing()`` and ``J48.missing()`` say why a peer cannot run
(None when it can), and the caller prints that and skips the peer.
"""

from __future__ import annotations

import math
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RPART_SCRIPT = ROOT / "tools" / "rpart" / "time_fit.R"
WEKA_JAR = "/usr/share/java/weka.jar"
LEAF = 0  # rootwise's node kind of a leaf (rootwise._config.LEAF); trees are read, not built


# --------------------------------------------------------------------------- the table


@dataclass
class Split:
    """A benchmark table, training rows first, then ``n_test`` held-out rows of the same draw."""

    name: str
    X: object  # pandas DataFrame, training rows
    y: np.ndarray
    X_test: object
    y_test: np.ndarray
    regression: bool

    @property
    def rows(self) -> int:
        return len(self.y)


def held_out_rows(rows: int) -> int:
    """A fifth of the training size, at least 1,000 and at most 100,000 rows."""
    return int(min(max(rows // 5, 1000), 100_000))


def split_table(rows: int, kind: str, seed: int = 0) -> Split:
    """``kind``: "clf" (three classes, the benchmark's classification table), "clf2" (two classes,
    for one LightGBM tree, which grows one tree per class otherwise), "reg" (regression) or
    "id3" (three classes without missing cells: ID3 refuses them)."""
    n_test = held_out_rows(rows)
    options = {"clf": {}, "clf2": {"n_classes": 2}, "reg": {"regression": True},
               "id3": {"missing_rate": 0.0}}[kind]
    X, y = data.real_table(rows + n_test, seed=seed, **options)
    return Split(kind, X.iloc[:rows].reset_index(drop=True), y[:rows],
                 X.iloc[rows:].reset_index(drop=True), y[rows:], kind == "reg")


def hard_split(rows: int, *, regression: bool = False, n_classes: int = 4, missing_rate: float = 0.15,
               max_levels: int = 1000, seed: int = 0, n_test: int | None = None) -> Split:
    """``data.hard_table`` cut as ``split_table`` cuts its table (``n_test`` held-out rows, by
    default ``held_out_rows(rows)``); the name carries the options, so that the peers' files of
    two variants never mix."""
    n_test = held_out_rows(rows) if n_test is None else n_test
    X, y = data.hard_table(rows + n_test, n_classes=n_classes, missing_rate=missing_rate,
                           max_levels=max_levels, regression=regression, seed=seed)
    name = (f"hard-reg-m{missing_rate:g}-l{max_levels}" if regression
            else f"hard{n_classes}-m{missing_rate:g}-l{max_levels}") + f"-t{n_test}"
    return Split(name, X.iloc[:rows].reset_index(drop=True), y[:rows],
                 X.iloc[rows:].reset_index(drop=True), y[rows:], regression)


def ordinal_codes(X) -> np.ndarray:
    """A DataFrame of numeric and pandas categorical columns as one float64 matrix: numbers as
    they are, a category as its code (0, 1, ...), NaN for a missing cell of either kind."""
    out = np.empty((len(X), X.shape[1]), dtype=np.float64)
    for j, name in enumerate(X.columns):
        col = X[name]
        if str(col.dtype) == "category":
            codes = col.cat.codes.to_numpy()
            out[:, j] = np.where(codes < 0, np.nan, codes)
        else:
            out[:, j] = col.to_numpy(dtype=np.float64)
    return out


# --------------------------------------------------------------------------- what a fit gave


def score(y_true, y_pred, regression: bool) -> float:
    """Held-out accuracy, or R^2 for regression."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if not regression:
        return float(np.mean(y_true == y_pred))
    sse = float(np.sum((y_true - y_pred) ** 2))
    return 1.0 - sse / float(np.sum((y_true - y_true.mean()) ** 2))


def _lightgbm_depth(node: dict) -> int:
    depth, stack = 0, [(node, 0)]
    while stack:
        n, d = stack.pop()
        if "left_child" in n:
            stack.append((n["left_child"], d + 1))
            stack.append((n["right_child"], d + 1))
        else:
            depth = max(depth, d)
    return depth


def tree_shape(model) -> tuple[int, int]:
    """(leaves, depth) of a fitted rootwise, scikit-learn or one-tree LightGBM model."""
    if hasattr(model, "booster_"):
        tree = model.booster_.dump_model()["tree_info"][0]
        return int(tree["num_leaves"]), _lightgbm_depth(tree["tree_structure"])
    return int(model.get_n_leaves()), int(model.get_depth())


# --------------------------------------------------------------------------- LightGBM


def have_lightgbm() -> bool:
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True


LIGHTGBM_MAX_LEAVES = 131072  # LightGBM's upper bound on num_leaves


def lightgbm_tree(regression: bool, n_leaves: int, n_jobs: int = 1):
    """One LightGBM tree as close to a plain decision tree as its options allow: one boosting
    round with learning rate 1; no bagging, no feature fraction, no regularisation; leaves of
    one row; ``num_leaves`` the given leaf count (LightGBM grows best-first up to it); 255 bins.
    Categorical columns are pandas categoricals, so LightGBM splits them natively (a category
    subset, its categories ordered by gradient / hessian); the categorical regularisation is
    off (``cat_smooth`` and ``cat_l2`` 0, ``min_data_per_group`` 1) and ``max_cat_threshold``
    (how many categories one side may hold) is raised from 32 to 256, so no subset is ruled
    out by it. Two-class or squared-error objectives only: LightGBM grows one tree per class."""
    import lightgbm

    cls = lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier
    return cls(n_estimators=1, learning_rate=1.0,
               num_leaves=max(2, min(n_leaves, LIGHTGBM_MAX_LEAVES)), max_depth=-1,
               min_child_samples=1, min_child_weight=1e-12, min_split_gain=0.0,
               reg_alpha=0.0, reg_lambda=0.0, subsample=1.0, subsample_freq=0,
               colsample_bytree=1.0, max_bin=255, min_data_per_group=1, cat_smooth=0.0,
               cat_l2=0.0, max_cat_threshold=256, num_threads=n_jobs, deterministic=True,
               force_col_wise=True, verbose=-1)


# --------------------------------------------------------------------------- rpart through R


@dataclass
class PeerRun:
    """What an outside peer reported: one time per run (seconds; CPU seconds where known), the
    fitted tree's leaves, depth and held-out score, and anything else it printed; ``over`` is
    the time limit a fit ran past (it was stopped), else None."""

    times: list
    cpu: list
    leaves: int | None = None
    depth: int | None = None
    score: float | None = None
    extra: dict | None = None
    over: float | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)


class Rpart:
    """rpart, timed inside R by ``tools/rpart/time_fit.R``. The table is written once (binary
    columns: float64 numbers, int32 category codes) into a temporary folder, then each call
    starts one ``Rscript`` that reads it (not timed) and fits ``reps`` times."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.written: dict[str, Path] = {}

    @staticmethod
    def missing() -> str | None:
        if shutil.which("Rscript") is None:
            return "no `Rscript` on PATH (Debian: r-base-core, r-cran-rpart)"
        probe = subprocess.run(["Rscript", "-e", "library(rpart)"], capture_output=True, text=True)
        if probe.returncode != 0:
            return "R has no rpart package (Debian: r-cran-rpart)"
        return None

    @staticmethod
    def version() -> str:
        out = subprocess.run(["Rscript", "-e", 'cat(R.version$major, R.version$minor, '
                              'format(packageVersion("rpart")))'], capture_output=True, text=True)
        major, minor, rpart = out.stdout.split()
        return f"R {major}.{minor}, rpart {rpart}"

    def write(self, split: Split) -> Path:
        """The split's training and held-out rows, once per table."""
        key = f"{split.name}-{split.rows}"
        if key in self.written:
            return self.written[key]
        folder = self.folder / f"rpart-{key}"
        folder.mkdir(parents=True, exist_ok=True)
        import pandas as pd

        whole = pd.concat([split.X, split.X_test], ignore_index=True)
        y = np.concatenate([split.y, split.y_test])
        lines = [f"{len(split.y)}\t{len(split.y_test)}\t{'anova' if split.regression else 'class'}"]
        for name in whole.columns:
            col = whole[name]
            if str(col.dtype) == "category":
                col.cat.codes.to_numpy().astype("<i4").tofile(folder / f"{name}.bin")
                lines.append(f"{name}\tcat\t{len(col.cat.categories)}")
            else:
                col.to_numpy(dtype="<f8").tofile(folder / f"{name}.bin")
                lines.append(f"{name}\tnum\t0")
        if split.regression:
            y.astype("<f8").tofile(folder / "y.bin")
            lines.append("y\tnum\t0")
        else:
            y.astype("<i4").tofile(folder / "y.bin")
            lines.append(f"y\tcat\t{int(y.max()) + 1}")
        (folder / "manifest.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.written[key] = folder
        return folder

    def run(self, split: Split, mode: str, reps: int, seed: int = 0,
            timeout: float | None = None, limit: float | None = None) -> PeerRun:
        """``mode``: "exact" (cp = 0, fully grown) or "default" (rpart()'s defaults, xval = 10).
        ``timeout`` bounds the whole R process (reading the table included: TimeoutExpired);
        ``limit`` bounds each fit, from the "start" line R prints as it begins: a fit still
        running then is killed with its process, and the run comes back with ``over`` = limit
        and the times of the fits that finished (rpart's C code never returns to R while it
        searches, so R's own setTimeLimit could not stop it)."""
        folder = self.write(split)
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        cmd = ["Rscript", str(RPART_SCRIPT), str(folder), mode, str(reps), str(seed)]
        stdout, stderr, returncode, over = _run_limited(cmd, env, timeout, limit)
        run, extra = PeerRun([], []), {}
        if over is not None:
            run.over = over
        elif returncode != 0:
            raise RuntimeError(f"Rscript failed ({returncode}): {stderr.strip()[-300:]}")
        for line in stdout:
            key, *values = line.split()
            if key == "start":
                continue
            if key == "time":
                run.times.append(float(values[0]))
                run.cpu.append(float(values[1]))
            elif key in ("leaves", "depth"):
                setattr(run, key, int(values[0]))
            elif key == "score":
                run.score = float(values[0])
            else:
                extra[key] = float(values[0])
        run.extra = extra
        return run


def _run_limited(cmd: list, env: dict, timeout: float | None,
                 limit: float | None) -> tuple[list, str, int, float | None]:
    """Run ``cmd``, reading its output as it comes; (stdout lines, stderr, return code, the
    limit when a fit passed it). A "start" line begins a fit's ``limit`` seconds, a "time" line
    ends it; the whole process gets ``timeout`` seconds (subprocess.TimeoutExpired after it).
    The process runs in a session of its own, so that a kill also ends any child it started."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    lines: queue.Queue = queue.Queue()
    err: list = []

    def read_stdout():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    readers = [threading.Thread(target=read_stdout, daemon=True),
               threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)]
    for t in readers:
        t.start()
    out = []
    end = time.monotonic() + timeout if timeout else math.inf
    fit_end = math.inf
    while True:
        wait = min(end, fit_end) - time.monotonic()
        try:
            line = lines.get(timeout=None if wait == math.inf else max(wait, 0.0))
        except queue.Empty:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            if fit_end <= end:
                return out, "", proc.returncode, limit
            raise subprocess.TimeoutExpired(cmd, timeout) from None
        if line is None:
            break
        out.append(line)
        if line.startswith("time"):
            fit_end = math.inf
        elif line.startswith("start") and limit:
            fit_end = time.monotonic() + limit
    proc.wait()
    for t in readers:
        t.join()
    return out, "".join(err), proc.returncode, None


# --------------------------------------------------------------------------- J48 through Java


class J48:
    """Weka's J48 (C4.5 release 8) with its defaults (``-C 0.25 -M 2``), each run in a new JVM:
    ``java -cp weka.jar weka.classifiers.trees.J48 -t train.arff -T test.arff``. The time is
    the "Time taken to build model" Weka prints (a wall clock around ``buildClassifier``: the
    JVM start, reading the file and the evaluations on the training and held-out rows are not
    in it; printed in 10 ms steps; ``-v``, which skips the training-set evaluation, also drops
    that line). The ARFF files are written once per table."""

    def __init__(self, folder: Path, jar: str = WEKA_JAR, heap: str = "6g"):
        self.folder = Path(folder)
        self.jar = jar
        self.heap = heap
        self.written: dict[str, tuple[Path, Path]] = {}

    def missing(self) -> str | None:
        if shutil.which("java") is None:
            return "no `java` on PATH (Debian: default-jre)"
        if not Path(self.jar).is_file():
            return f"no Weka jar at {self.jar} (Debian: weka)"
        return None

    def version(self) -> str:
        jar = os.path.realpath(self.jar)
        weka = re.search(r"weka-?([\d.]+)\.jar$", jar)
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
        first = java.splitlines()[0] if java else "java"
        return f"Weka {weka.group(1) if weka else os.path.basename(jar)}, {first}"

    def write(self, split: Split) -> tuple[Path, Path]:
        key = f"{split.name}-{split.rows}"
        if key not in self.written:
            train = self.folder / f"{key}-train.arff"
            test = self.folder / f"{key}-test.arff"
            write_arff(train, split.X, split.y, key)
            write_arff(test, split.X_test, split.y_test, key)
            self.written[key] = (train, test)
        return self.written[key]

    def run(self, split: Split, runs: int, timeout: float | None = None) -> PeerRun:
        train, test = self.write(split)
        cmd = ["java", "-Djava.awt.headless=true", f"-Xmx{self.heap}", "-cp", self.jar,
               "weka.classifiers.trees.J48", "-C", "0.25", "-M", "2", "-t", str(train),
               "-T", str(test)]
        run = PeerRun([], [])
        for _ in range(runs):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            if proc.returncode != 0:
                raise RuntimeError(f"J48 failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
            out = proc.stdout
            run.times.append(float(re.search(r"Time taken to build model:\s*(\S+)", out).group(1)))
            run.leaves = int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1))
            # the held-out section comes last: "=== Error on test data ===" then the counts
            correct = re.findall(r"Correctly Classified Instances\s+(\d+)", out)
            run.score = int(correct[-1]) / len(split.y_test) if correct else None
        return run


def write_arff(path: Path, X, y, relation: str) -> None:
    """An ARFF file: numeric columns written exactly (Python's shortest round-trip repr),
    categorical ones as nominal attributes with every declared category, ``?`` for a missing
    cell, the class (``k0``, ``k1``, ...) last."""
    import pandas as pd

    classes = [f"k{c}" for c in range(int(max(y.max(), 0)) + 1)]
    out = {}
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"@relation {relation}\n\n")
        for name in X.columns:
            col = X[name]
            if str(col.dtype) == "category":
                f.write(f"@attribute {name} {{{','.join(map(str, col.cat.categories))}}}\n")
                out[name] = col.astype(object)
            else:
                f.write(f"@attribute {name} numeric\n")
                out[name] = col
        f.write(f"@attribute class {{{','.join(classes)}}}\n\n@data\n")
        frame = pd.DataFrame(out)
        frame["class"] = np.asarray(classes, dtype=object)[np.asarray(y)]
        frame.to_csv(f, header=False, index=False, na_rep="?", lineterminator="\n")


def temporary_folder(keep: Path | None):
    """Where the peers' files go: ``keep`` (created, left in place), or a temporary folder."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return _Kept(keep)
    return tempfile.TemporaryDirectory(prefix="rootwise-peers-")


class _Kept:
    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> str:
        return str(self.path)

    def __exit__(self, *exc) -> None:
        return None
