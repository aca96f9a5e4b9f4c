"""The engine benchmark's hard table and sections, on a few hundred rows (benchmarks/engine.py
runs them at 10^5 and 10^6 rows; no timing is asserted here).

- ``data.hard_table``: the same table for the same seed; 8 float32-exact numeric columns with
  Student's t(3) tails and 10 categorical columns of 2..max categories (geometric steps);
  missing cells at the asked rate; every class in range; bad options named in the error.
- rpart's per-fit time limit: a real child process that runs past the limit is stopped, one
  that finishes is read; with R and rpart installed, rpart on a four-class table with a
  1,000-category column is stopped at the limit (its exhaustive subset search cannot finish).
- Each new section runs on 300 rows and prints its rows with both libraries' times (peers that
  are not installed are skipped, as the script does).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
# The scripts import each other by their names, and put their folder first on sys.path when
# imported; the path is restored afterwards, so that their names (benchmarks/deep_trees.py) never
# shadow the tests' own helpers (tests/deep_trees.py) in modules imported later.
_PATH = list(sys.path)
sys.path.insert(0, str(BENCH))
try:
    import data
    import engine
    import engine_cells
    import peers
    import thread_scaling
finally:
    sys.path[:] = _PATH

TIMED = re.compile(r"\d+\.\d{3} s \(n=1\b")  # a median of one timed run, maybe marked busy


def test_hard_table_is_deterministic_and_shaped():
    X, y = data.hard_table(3000, n_classes=7, seed=3)
    X2, y2 = data.hard_table(3000, n_classes=7, seed=3)
    X3, _ = data.hard_table(3000, n_classes=7, seed=4)
    assert X.equals(X2) and np.array_equal(y, y2)
    assert not X.equals(X3)
    assert list(X.columns) == [f"x{j}" for j in range(8)] + [f"c{j}" for j in range(10)]
    assert X.shape == (3000, 18) and y.dtype == np.int64
    assert set(np.unique(y)) == set(range(7))
    numbers = X[[f"x{j}" for j in range(8)]].to_numpy()
    seen = numbers[~np.isnan(numbers)]
    assert np.array_equal(seen.astype(np.float32).astype(np.float64), seen)  # float32-exact
    # t(3): P(|T| > 3) = 0.058, against 0.0027 for a standard normal
    assert 0.04 < np.mean(np.abs(seen) > 3) < 0.08


def test_hard_table_categories_and_missing_cells():
    X, _ = data.hard_table(4000, missing_rate=0.15, max_levels=300, seed=0)
    counts = [len(X[f"c{j}"].cat.categories) for j in range(10)]
    assert counts == list(data.hard_levels(300))
    assert counts[0] == 2 and counts[-1] == 300 and counts == sorted(counts)
    ratios = np.array(counts[1:]) / np.array(counts[:-1])
    assert np.allclose(ratios, 150 ** (1 / 9), rtol=0.2)  # geometric steps from 2 to 300
    # the most frequent category of the widest column is drawn with p = 1 / sum(k^-0.8)
    top = X["c9"].value_counts(normalize=True, dropna=True).iloc[0]
    share = 1 / np.sum(1.0 / np.arange(1, 301) ** 0.8)
    assert abs(top - share) < 0.02
    missing = X.isna().mean()
    assert np.all(np.abs(missing - 0.15) < 0.03)  # 4,000 cells a column: sd 0.006
    _, y = data.hard_table(500, regression=True, missing_rate=0.0)
    assert y.dtype == np.float64 and np.std(y) > 0


@pytest.mark.parametrize("options, message", [
    ({"n_classes": 11}, "n_classes must be between 2 and 10, got 11"),
    ({"missing_rate": 1.0}, r"missing_rate must be in \[0, 1\), got 1.0"),
    ({"max_levels": 1}, "max_levels must be at least 2, got 1"),
])
def test_hard_table_names_a_bad_option(options, message):
    with pytest.raises(ValueError, match=message):
        data.hard_table(10, **options)


def test_a_fit_past_its_limit_is_stopped():
    started = time.monotonic()
    slow = [sys.executable, "-c", "import time; print('start 1', flush=True); time.sleep(60)"]
    out, _, _, over = peers._run_limited(slow, {}, timeout=30, limit=0.5)
    assert over == 0.5 and out == ["start 1\n"]
    assert time.monotonic() - started < 10
    quick = [sys.executable, "-c", "print('start 1'); print('time 0.25 0.2'); print('leaves 3')"]
    out, _, code, over = peers._run_limited(quick, {}, timeout=30, limit=5)
    assert over is None and code == 0 and out == ["start 1\n", "time 0.25 0.2\n", "leaves 3\n"]


@pytest.mark.skipif(peers.Rpart.missing() is not None, reason="R with rpart is not installed")
def test_rpart_is_stopped_on_a_wide_multiclass_table(tmp_path):
    rpart = peers.Rpart(tmp_path)
    wide = peers.hard_split(300, n_classes=4, max_levels=1000)
    run = rpart.run(wide, "exact", 2, timeout=120, limit=1.0)
    assert run.over == 1.0 and run.times == []
    two = peers.hard_split(300, n_classes=2, max_levels=1000)  # two classes: categories ordered
    run = rpart.run(two, "exact", 1, timeout=120, limit=60)
    assert run.over is None and len(run.times) == 1 and run.leaves > 1


def test_new_sections_run_on_a_small_table(tmp_path, capsys):
    sections = ["hard", "small", "threads", "predict"]
    args = engine.parse(["--rows", "300", "--reps", "1", "--no-r", "--no-java", "--classes", "3",
                         "--max-levels", "50", "--sections", *sections])
    report = engine_cells.Report()
    ctx = engine_cells.Context(args, tmp_path, report)
    for section in sections:
        engine.RUNNERS[section](ctx, 300)
    out = capsys.readouterr().out
    rows = {r.cell: r for r in report.rows if r.peer != "rpart"}
    what = "3 classes, 15% missing, up to 50 categories"
    timed = [f"CART clf exact, hard: {what}", f"CART clf exact, hard: {what}, no surrogates",
             "CART reg exact, hard (fully grown)", "CART reg exact",
             "predict DataFrame, depth 8, hard", "predict DataFrame, fully grown, hard"]
    for name in timed:
        assert name in rows, out
        assert TIMED.match(rows[name].rw_time) and TIMED.match(rows[name].peer_time), out
    assert rows["predict DataFrame, depth 8, hard"].depth.startswith("8 / 8")
    assert any(r.peer == "rpart" and "skipped (--no-r)" in r.peer_time for r in report.rows)
    threads = rows["CART clf exact n_jobs=2, hard: 3 classes"]
    if threads.rw_time != "skipped":  # numba has two threads: the same tree either way
        a, b = threads.leaves.split(" / ")
        assert a == b and threads.scores.split(" / ")[0] == threads.scores.split(" / ")[1]


def test_bad_hard_table_options_are_refused(capsys):
    with pytest.raises(SystemExit):
        engine.parse(["--missing", "1.5"])
    assert "--missing must be in [0, 1), got 1.5" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        engine.parse(["--classes", "11"])
    assert "--classes" in capsys.readouterr().err


def test_thread_scaling_replays_the_schedule_the_engine_runs():
    """Pieces (start, end, CPU s) listed out of order; a piece's parent is the smallest piece
    whose rows hold its own. By hand, two workers: A (60 rows) and B (40) start at 0; B ends at
    2, its child E runs 2..2.5; A ends at 3, its children C and D run 3..4. One worker: A 0..3,
    then the largest ready: B 3..5, C 5..6, D 6..7, E 7..7.5."""
    pieces = [(60, 70, 0.5), (0, 30, 1.0), (60, 100, 2.0), (30, 50, 1.0), (0, 60, 3.0)]
    assert thread_scaling.replay(pieces, 2) == pytest.approx(4.0)
    assert thread_scaling.replay(pieces, 1) == pytest.approx(7.5)
    assert thread_scaling.replay(pieces, 8) == pytest.approx(4.0)  # the longest chain: A, then C
