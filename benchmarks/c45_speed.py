"""Fit time of rootwise's C4.5 against Weka's J48 on the same data (issue 3).

    .venv/bin/python benchmarks/c45_speed.py                    # about 75 s on 2 cores
    .venv/bin/python benchmarks/c45_speed.py --only credit-g,synthetic --reps 7 --j48-runs 5

Datasets: Weka's larger example files (``tests/golden/j48/data``) and a synthetic table (100,000
rows by default) with continuous and categorical columns and missing cells in both kinds, made by
a deterministic generator (``synthetic``) and written as ARFF. Every model is trained on the same
file: J48 reads the ARFF itself, rootwise gets it from ``tools/weka/arff_reader.read_arff``
(nominal columns as pandas categoricals in declared order, ``?`` as NaN).

J48 (Weka 3.6, ``J48 -C 0.25 -M 2 -t FILE -no-cv``) is run ``--j48-runs`` times, each in a new
JVM, and the median of the build times it reports ("Time taken to build model", measured by Weka
around ``buildClassifier``: reading the file, JVM start-up and the evaluation are not in it) is
taken. rootwise is timed in this process, warm: one untimed fit first (numba kernels compiled,
caches filled), then the median wall time of ``--reps`` fits of ``C45Classifier()`` and of
``C45Classifier(release8=True)``, each fit from the DataFrame (encoding included). The ratio is
J48 / rootwise: above 1, rootwise is faster.

The leaf counts are printed as a check that like is compared with like: release 8 grows J48's
tree (the same leaves; on the synthetic table too, since its class count equals the declared one).

Java is optional: without ``java`` or the Weka jar the script says so and exits with status 0.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "golden" / "j48" / "data"
sys.path.insert(0, str(ROOT / "tools" / "weka"))

from arff_reader import read_arff  # noqa: E402

from rootwise import C45Classifier  # noqa: E402
from rootwise._config import LEAF  # noqa: E402

WEKA_FILES = ["credit-g", "diabetes", "soybean", "segment-challenge", "vote", "ionosphere",
              "glass", "breast-cancer"]
SYNTHETIC = "synthetic"
DEFAULT_JAR = "/usr/share/java/weka.jar"
BUSY = 0.9


# --------------------------------------------------------------------------- the synthetic table
def synthetic(n_rows: int, seed: int = 0, missing_rate: float = 0.05) -> tuple[list, list[list]]:
    """A deterministic mixed table: (attributes, rows of value strings, None = missing).

    Five continuous columns written with few decimals (so values repeat, as in real data: ages in
    years, incomes to 0.1, scores to 0.001, a share to 0.01, an uninformative reading to 0.01),
    five categorical ones with 3 to 20 levels, and a three-class target that depends on most of
    them plus Gaussian noise, so the full tree is large. Every feature cell is missing with
    probability ``missing_rate``; the class is never missing."""
    rng = np.random.default_rng(seed)
    n = n_rows
    continuous = {
        "age": (rng.integers(18, 90, n).astype(np.float64), 0),
        "income": (rng.lognormal(3.5, 0.6, n), 1),
        "score": (rng.normal(0.0, 1.0, n), 3),
        "share": (rng.random(n), 2),
        "reading": (rng.normal(50.0, 10.0, n), 2),
    }
    levels = {"colour": 4, "region": 10, "plan": 3, "channel": 6, "code": 20}
    codes = {name: rng.integers(0, k, n) for name, k in levels.items()}
    value = {name: np.round(x, d) for name, (x, d) in continuous.items()}
    s = ((value["age"] > 45) * 1.0 + (value["income"] > 40) * 1.0 + 0.8 * value["score"]
         + 1.2 * (codes["plan"] == 2) - 1.0 * (codes["colour"] == 1)
         + 0.7 * (codes["region"] % 3 == 0) + value["share"] * (codes["channel"] >= 3))
    target = np.digitize(s + rng.normal(0.0, 0.5, n), [0.8, 2.0])
    classes = ["low", "mid", "high"]

    attributes, columns = [], []
    for name, (_, decimals) in continuous.items():
        attributes.append((name, None))
        columns.append([f"{v:.{decimals}f}" for v in value[name]])
    for name, k in levels.items():
        names = [f"{name[0]}{v}" for v in range(k)]
        attributes.append((name, names))
        columns.append([names[c] for c in codes[name]])
    for col in columns:
        for r in np.flatnonzero(rng.random(n) < missing_rate):
            col[r] = None
    attributes.append(("class", classes))
    columns.append([classes[c] for c in target])
    return attributes, [list(row) for row in zip(*columns, strict=True)]


def write_arff(path: Path, relation: str, attributes: list, rows: list[list]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(f"@relation {relation}\n\n")
        for name, values in attributes:
            kind = "numeric" if values is None else "{" + ",".join(values) + "}"
            f.write(f"@attribute {name} {kind}\n")
        f.write("\n@data\n")
        for row in rows:
            f.write(",".join("?" if v is None else v for v in row) + "\n")


# --------------------------------------------------------------------------- J48
def java_available(jar: str) -> str | None:
    """None when J48 can be run, else why not."""
    if shutil.which("java") is None:
        return "no `java` on PATH"
    if not Path(jar).is_file():
        return f"no Weka jar at {jar}"
    return None


def run_j48(jar: str, arff: Path) -> tuple[float, int]:
    """J48's reported build time (seconds) and its number of leaves, from one JVM."""
    cmd = ["java", "-Djava.awt.headless=true", "-Xmx2g", "-cp", jar, "weka.classifiers.trees.J48",
           "-C", "0.25", "-M", "2", "-t", str(arff), "-no-cv"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    build = re.search(r"^Time taken to build model:\s*(\S+) seconds", proc.stdout, re.M)
    leaves = re.search(r"^Number of Leaves\s*:\s*(\d+)", proc.stdout, re.M)
    return float(build.group(1)), int(leaves.group(1))


# --------------------------------------------------------------------------- rootwise
def n_leaves(model) -> int:
    return int(np.count_nonzero(model.tree_.kind == LEAF))


def time_fits(X, y, reps: int, **params) -> tuple[float, bool, int]:
    """(median wall seconds, whether the machine looked busy, leaves) of ``reps`` warm fits.
    Busy: the median fit got less than 90% of a core (CPU time / wall time)."""
    model = C45Classifier(**params).fit(X, y)  # warm: kernels compiled, caches filled
    walls, cpus = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        C45Classifier(**params).fit(X, y)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    wall = statistics.median(walls)
    return wall, statistics.median(cpus) < BUSY * wall, n_leaves(model)


def describe(df) -> tuple[str, int]:
    """Continuous / categorical feature counts, and the number of missing feature cells."""
    kinds = [str(df[c].dtype) == "category" for c in df.columns[:-1]]
    cells = int(df.iloc[:, :-1].isna().to_numpy().sum())
    return f"{len(kinds) - sum(kinds)}/{sum(kinds)}", cells


# --------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help=f"comma-separated names among {WEKA_FILES + [SYNTHETIC]}")
    parser.add_argument("--reps", type=int, default=5, help="timed rootwise fits per model (5)")
    parser.add_argument("--j48-runs", type=int, default=5, help="J48 runs per dataset (5)")
    parser.add_argument("--rows", type=int, default=100_000, help="rows of the synthetic table")
    parser.add_argument("--weka-jar", default=DEFAULT_JAR)
    parser.add_argument("--keep", type=Path, help="write the synthetic ARFF here and keep it")
    args = parser.parse_args(argv)

    why = java_available(args.weka_jar)
    if why is not None:
        print(f"J48 cannot be run ({why}): nothing to compare with, skipping.")
        return 0
    names = args.only.split(",") if args.only else WEKA_FILES + [SYNTHETIC]

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"J48: median of {args.j48_runs} runs; rootwise: median of {args.reps} warm fits")
    print()
    print("| dataset | rows | num/nom | missing cells | J48 build (s) | default fit (s) | J48 / default "
          "| release8 fit (s) | J48 / release8 | leaves: J48 / default / release8 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    busy = False
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if name == SYNTHETIC:
                folder = args.keep or Path(tmp)
                folder.mkdir(parents=True, exist_ok=True)
                arff = folder / f"synthetic-{args.rows}.arff"
                attributes, rows = synthetic(args.rows)
                write_arff(arff, f"synthetic-{args.rows}", attributes, rows)
                label = f"synthetic ({args.rows:,} rows)"
            else:
                arff = DATA / f"{name}.arff"
                label = name
            df = read_arff(arff)
            X, y = df.iloc[:, :-1], df.iloc[:, -1]
            j48 = [run_j48(args.weka_jar, arff) for _ in range(args.j48_runs)]
            j48_time = statistics.median(t for t, _ in j48)
            default, busy_d, leaves_d = time_fits(X, y, args.reps)
            r8, busy_8, leaves_8 = time_fits(X, y, args.reps, release8=True)
            busy = busy or busy_d or busy_8
            kinds, cells = describe(df)
            mark = {True: " *", False: ""}
            print(f"| {label} | {len(df)} | {kinds} | {cells} | {j48_time:.3f} | "
                  f"{default:.4f}{mark[busy_d]} | {j48_time / default:.1f} | {r8:.4f}{mark[busy_8]} | "
                  f"{j48_time / r8:.1f} | {j48[0][1]} / {leaves_d} / {leaves_8} |", flush=True)
    if busy:
        print("\n* the machine was busy: the fits got less than 90% of a core")
    print()
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
