"""The public API's annotations, checked by mypy (pyproject's ``[tool.mypy]``): the package's
public modules, a typed user's script that uses the API (no error, and the types it reveals are
rootwise's, not Any), and a script with mistakes that mypy must catch, each where it is marked.

mypy runs once for the module, in this process (``mypy.api``), with its cache in a temporary folder.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")

REPO = Path(__file__).resolve().parent.parent

# A user's script: every public name used as documented. It must type-check, and reveal_type shows
# that what the API returns is typed.
GOOD = '''
from __future__ import annotations

from pathlib import Path

import numpy as np

import rootwise
from rootwise import datasets

X, y = datasets.load_watermelon_2_0(return_X_y=True)
frame = datasets.load("watermelon_3_0")
tree = rootwise.CARTClassifier(max_depth=3).fit(X, y, sample_weight=np.ones(len(y)))
reveal_type(tree)
labels: np.ndarray = tree.predict(X)
proba: np.ndarray = tree.predict_proba(X)
log_proba: np.ndarray = tree.predict_log_proba(X)
leaves: np.ndarray = tree.apply(X)
accuracy: float = tree.score(X, y)
depth: int = tree.get_depth() + tree.get_n_leaves()
importance: np.ndarray = tree.variable_importance(kind="rpart", normalize=False)
path = tree.cost_complexity_pruning_path(X, y)
params: dict[str, object] = tree.get_params()
same = tree.set_params(max_depth=2)
reveal_type(same)
c45 = rootwise.C45Classifier().fit(X, y)
id3 = rootwise.ID3Classifier(pruning="reduced-error").fit(X, y)
regressor = rootwise.CARTRegressor().fit(frame.drop(columns=["密度"]), frame["密度"])
values: np.ndarray = regressor.predict(frame.drop(columns=["密度"]))
texts: list[str] = [rootwise.export_text(tree), rootwise.export_graphviz(c45),
                    rootwise.export_sql(tree, "melons", proba=True), rootwise.export_html(id3),
                    rootwise.pruning_report(id3), rootwise.format_table(rootwise.explain(X, y))]
rules = rootwise.export_rules(tree)
weights = rootwise.node_weights(X, tree, node=0)
rootwise.save(tree, Path("model.json"))
rootwise.save(regressor, "regressor.json")
loaded = rootwise.load("model.json")
reveal_type(loaded)
if isinstance(loaded, rootwise.CARTClassifier):
    again: np.ndarray = loaded.predict_proba(X)
table = rootwise.read_data(Path("data.csv"), sep=",", na_values=["?"])
version: str = rootwise.__version__
reveal_type(rootwise.__version__)
try:
    rootwise.load("other.json")
except rootwise.ModelFileError as e:
    reason: str = e.reason
routed = rootwise.CARTClassifier().set_fit_request(sample_weight=True)
reveal_type(routed)
report = rootwise.compile_kernels(progress=print, processes=None)
'''

# Mistakes a user can make; each marked line must be reported with the code named after "E:".
BAD = '''
from __future__ import annotations

import numpy as np

import rootwise
from rootwise import datasets

X, y = datasets.load_watermelon_2_0(return_X_y=True)
tree = rootwise.CARTClassifier().fit(X, y)
depth: str = tree.get_depth()  # E: assignment
tree.predict_proba(X).no_such_attribute  # E: attr-defined
tree.fit(X, y).get_n_leaves() + "leaves"  # E: operator
rootwise.CARTRegressor().fit(X, y).predict_proba(X)  # E: attr-defined
rootwise.load("m.json").predict_proba(X)  # E: union-attr
rootwise.save(tree, 3)  # E: arg-type
rootwise.export_text(tree, decimals="3")  # E: arg-type
rootwise.export_sql(tree, proba="yes")  # E: arg-type
version: int = rootwise.__version__  # E: assignment
names: int = datasets.names()  # E: assignment
score: str = tree.score(X, y)  # E: assignment
rootwise.pruning_report(tree, digits=None)  # E: arg-type
rootwise.read_data(["data.csv"])  # E: arg-type
'''


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    """mypy over the configured public modules and the two scripts: (report lines, exit status)."""
    folder = tmp_path_factory.mktemp("typing")
    good, bad = folder / "good_user.py", folder / "bad_user.py"
    good.write_text(textwrap.dedent(GOOD), encoding="utf-8")
    bad.write_text(textwrap.dedent(BAD), encoding="utf-8")
    config = REPO / "pyproject.toml"
    import tomllib

    files = tomllib.loads(config.read_text(encoding="utf-8"))["tool"]["mypy"]["files"]
    out, err, status = api.run(["--config-file", str(config), "--cache-dir", str(folder / "cache"),
                                "--show-error-codes", "--no-pretty", "--no-color-output",
                                *[str(REPO / f) for f in files], str(good), str(bad)])
    assert not err, err
    return out.splitlines(), status, good, bad


def _lines_of(report, path):
    return [line for line in report if line.startswith(str(path) + ":")]


def test_the_public_modules_type_check(mypy_run):
    report, _, good, bad = mypy_run
    package = [line for line in report if ": error:" in line and not line.startswith((str(good), str(bad)))]
    assert package == []


def test_a_typed_user_script_type_checks(mypy_run):
    report, _, good, _ = mypy_run
    assert [line for line in _lines_of(report, good) if ": error:" in line] == []


def test_what_the_api_returns_is_typed_not_any(mypy_run):
    report, _, good, _ = mypy_run
    revealed = [re.search(r'Revealed type is "(.*)"', line).group(1)
                for line in _lines_of(report, good) if "Revealed type" in line]
    assert revealed == [
        "rootwise.estimators.CARTClassifier",
        "rootwise.estimators.CARTClassifier",
        "rootwise.estimators.ID3Classifier | rootwise.estimators.C45Classifier | "
        "rootwise.estimators.CARTClassifier | rootwise.estimators.CARTRegressor",
        "str",
        "rootwise.estimators.CARTClassifier",
    ]


def test_mistakes_are_caught_where_they_are(mypy_run):
    report, status, _, bad = mypy_run
    expected = {(i, m.group(1)) for i, line in enumerate(textwrap.dedent(BAD).splitlines(), start=1)
                if (m := re.search(r"# E: ([a-z-]+)$", line))}
    found = set()
    for line in _lines_of(report, bad):
        m = re.match(rf"{re.escape(str(bad))}:(\d+): error: .*\[([a-z-]+)\]$", line)
        if m:
            found.add((int(m.group(1)), m.group(2)))
    assert found == expected
    assert status == 1
