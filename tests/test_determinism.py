"""Same model everywhere (issue 15 item 5): the same fit in fresh processes, with different
PYTHONHASHSEED (string hashing: the order of sets and dicts of labels) and any n_jobs, saves
byte-identical model files."""

import os
import subprocess
import sys

import pytest

# Fits every estimator on a numeric table large enough for the parallel split search and on a
# table of string categories with missing cells; saves each model to OUT/<name>.json with
# n_jobs reset to its default (the parameter is in the file; the fit must not depend on it).
FIT_AND_SAVE = """
import sys
import numpy as np
import pandas as pd
import rootwise
from rootwise import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

out, n_jobs = sys.argv[1], None if sys.argv[2] == "None" else int(sys.argv[2])
rng = np.random.default_rng(7)
n = 6000
Xn = rng.normal(size=(n, 5))
yn = (Xn[:, 0] + Xn[:, 1] * Xn[:, 2] + rng.normal(size=n) * 0.3 > 0).astype(int)
m = 1500
words = np.array(["苹果", "banana", "cherry", "Δ", "e", "f", "g", "h"])
Xc = pd.DataFrame({"w": rng.choice(words, m), "v": rng.choice(words[:5], m),
                   "x": rng.normal(size=m), "z": rng.integers(0, 3, m).astype(str)})
yc = np.where((Xc["w"].isin(["苹果", "e", "g"])) ^ (Xc["x"] > 0.3), "yes", "no")
Xc.loc[rng.random(m) < 0.1, "x"] = np.nan
Xc.loc[rng.random(m) < 0.1, "w"] = None
complete = Xc.fillna({"x": 0.0, "w": "e"})
complete["x"] = complete["x"].round(0)
fits = {
    "id3-reduced-error": (ID3Classifier(pruning="reduced-error", random_state=0), complete, yc),
    "c45": (C45Classifier(), Xc, yc),
    "c45-release8": (C45Classifier(release8=True), Xc, yc),
    "cart-cp-table": (CARTClassifier(cv=3, random_state=0), Xc, yc),
    "cart-pre": (CARTClassifier(pruning="pre", random_state=0), Xc, yc),
    "cart-numeric": (CARTClassifier(pruning=None), Xn, yn),
    "cart-hist": (CARTClassifier(splitter="hist", pruning=None), Xc, yc),
    "regressor": (CARTRegressor(cv=3, random_state=0), Xn, Xn[:, 0] * 3 + yn),
}
for name, (est, X, y) in fits.items():
    model = est.set_params(n_jobs=n_jobs).fit(X, y)
    # the file records the parameter itself; everything else must not depend on it
    rootwise.save(model.set_params(n_jobs=None), f"{out}/{name}.json")
"""

RUNS = [("0", "1"), ("1", "2"), ("4242", "None")]  # (PYTHONHASHSEED, n_jobs)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """run -> {file name: bytes}, the runs in fresh processes side by side."""
    root = tmp_path_factory.mktemp("determinism")
    started = {}
    for hash_seed, n_jobs in RUNS:
        folder = root / f"hash{hash_seed}-jobs{n_jobs}"
        folder.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        started[(hash_seed, n_jobs)] = folder, subprocess.Popen(
            [sys.executable, "-c", FIT_AND_SAVE, str(folder), n_jobs], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = {}
    for run, (folder, process) in started.items():
        _, err = process.communicate(timeout=900)
        assert process.returncode == 0, err[-3000:]
        out[run] = {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
    return out


def test_every_estimator_was_saved(files):
    for got in files.values():
        assert len(got) == 8 and all(len(b) > 500 for b in got.values())


@pytest.mark.parametrize("run", RUNS[1:], ids=[f"hash{h}-jobs{j}" for h, j in RUNS[1:]])
def test_same_bytes_for_any_hash_seed_and_n_jobs(files, run):
    reference, other = files[RUNS[0]], files[run]
    assert reference.keys() == other.keys()
    different = [name for name in reference if reference[name] != other[name]]
    assert different == []
