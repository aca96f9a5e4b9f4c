"""Reproducible by default: the same data and call grow the same tree in every process (the
default random_state is a fixed seed), and the command line says which seed it drew with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import rootwise
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE

SOYBEAN = Path(__file__).parent / "golden" / "j48" / "data" / "soybean.arff"
ESTIMATORS = [rootwise.ID3Classifier, rootwise.C45Classifier, rootwise.CARTClassifier,
              rootwise.CARTRegressor]
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}

# a fresh interpreter: numpy's global generator starts from the operating system's entropy, so
# a default that drew from it would give another tree here now and then
FIT_IN_A_NEW_PROCESS = """
import sys
import rootwise
frame = rootwise.read_data(sys.argv[1])
model = rootwise.CARTClassifier().fit(frame.drop(columns=["class"]), frame["class"])
print(rootwise.export_text(model))
"""


def soybean():
    frame = rootwise.read_data(SOYBEAN)
    return frame.drop(columns=["class"]), frame["class"]


def fresh(*argv) -> str:
    done = subprocess.run([sys.executable, *argv], capture_output=True, env=ENV, timeout=600)
    assert done.returncode == 0, done.stderr.decode("utf-8")
    return done.stdout.decode("utf-8")


def test_the_default_seed_is_fixed_and_documented():
    for cls in ESTIMATORS:
        assert cls().random_state == 0
        assert "random_state : int, numpy RandomState or None, default 0" in cls.__doc__


@pytest.fixture(scope="module")
def seeded_trees():
    """soybean's CART tree for seeds 0..3: the fold draw changes the chosen alpha, so a test
    that compares trees would see a default that draws anew."""
    X, y = soybean()
    return [rootwise.export_text(rootwise.CARTClassifier(random_state=s).fit(X, y))
            for s in range(4)]


def test_fresh_processes_grow_the_same_tree(seeded_trees):
    assert len(set(seeded_trees)) > 1  # the table is one where the seed matters
    trees = {fresh("-c", FIT_IN_A_NEW_PROCESS, str(SOYBEAN)) for _ in range(3)}
    assert len(trees) == 1
    assert trees.pop() == seeded_trees[0] + "\n"  # seed 0, as in this process


def test_the_command_line_is_reproducible_and_names_its_seed(seeded_trees, tmp_path):
    argv = ["-m", "rootwise.cli", "fit", str(SOYBEAN), "--target", "class", "--algorithm", "cart",
            "--wide"]
    outs = set()
    for _ in range(2):
        done = subprocess.run([sys.executable, *argv], capture_output=True, env=ENV, timeout=600)
        assert done.returncode == 0
        outs.add(done.stdout.decode("utf-8"))
        err = done.stderr.decode("utf-8").replace(NOTICE + "\n", "").replace("\r", "")
        assert err == "rootwise: seed 0 draws the cross-validation folds (--seed N for another draw)\n"
    assert len(outs) == 1
    assert outs.pop().startswith(seeded_trees[0])


def test_seed_and_random_state_are_one_option(seeded_trees, capsys):
    for option in ("--seed", "--random-state"):
        code = main(["fit", str(SOYBEAN), "--target", "class", "--algorithm", "cart", option, "2",
                     "--wide"])
        out, err = capsys.readouterr()
        assert code == 0 and out.startswith(seeded_trees[2])
        assert "seed" not in err  # the user chose it: nothing to say


def test_validation_rows_are_drawn_with_the_default_seed_too(capsys):
    # ID3 with reduced-error pruning holds out rows at random: the same tree each time, and
    # the same as seed 0; the note says what the seed draws
    data = rootwise.datasets.path("watermelon_2_0")
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    trees = {rootwise.export_text(rootwise.ID3Classifier(pruning="reduced-error",
                                                         random_state=s).fit(X, y))
             for s in range(6)}
    assert len(trees) > 1
    model = rootwise.ID3Classifier(pruning="reduced-error", random_state=0).fit(X, y)
    code = main(["fit", str(data), "--target", "好瓜", "--ignore", "编号", "--algorithm", "id3",
                 "--pruning", "reduced-error"])
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith(rootwise.export_text(model, width=80))
    assert "rootwise: seed 0 draws the held-out validation rows" in err


def test_a_fit_that_draws_nothing_says_nothing(capsys):
    data = rootwise.datasets.path("watermelon_2_0")
    for name in ("id3", "c4.5"):
        code = main(["fit", str(data), "--target", "好瓜", "--ignore", "编号", "--algorithm", name])
        _, err = capsys.readouterr()
        assert code == 0 and err == ""
