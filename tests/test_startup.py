"""``import rootwise`` and a first fit / predict on numpy arrays stay light: they import neither
scikit-learn nor pandas nor scipy (each costs more than the 0.5 s start-up budget of issue 6).

Checked in a fresh interpreter, by the modules present afterwards, not by a clock. numba itself
imports scipy (its top-level package on import, scipy.linalg's BLAS when it sets up its compiler
on the first call of any jitted function), so the child does both before it takes stock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import rootwise

HEAVY = ("sklearn", "pandas", "scipy")

CHILD = r"""
import json, sys
import numba  # what numba imports by itself is not rootwise's doing:
numba.njit(lambda: 0)()  # its first call sets up the CPU target (and imports scipy.linalg)
before = set(sys.modules)
import numpy as np
import rootwise
rng = np.random.default_rng(0)
X = np.round(rng.normal(size=(60, 4)), 1)
y = (X[:, 0] + X[:, 1] > 0).astype(int)
levels = np.clip(np.round(X), -1, 1)  # ID3: numbers as categories
Xm = X.copy()
Xm[rng.random(X.shape) < 0.1] = np.nan  # C4.5 and CART take missing cells
fits = [(rootwise.ID3Classifier(), levels, y), (rootwise.C45Classifier(), Xm, y),
        (rootwise.CARTClassifier(random_state=0), Xm, y),  # default: alpha by 10-fold CV
        (rootwise.CARTClassifier(categorical_features=[3], pruning=None), levels, y),
        (rootwise.CARTRegressor(random_state=0), Xm, X[:, 2])]
for model, data, target in fits:
    model.fit(data, target).predict(data)
    if hasattr(model, "predict_proba"):
        model.predict_proba(data)
    model.apply(data)
    model.get_depth(), model.get_n_leaves(), model.feature_importances_
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def _new_modules(code: str) -> list[str]:
    here = os.path.dirname(os.path.dirname(os.path.abspath(rootwise.__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, cwd=here)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_fit_and_predict_on_numpy_import_no_heavy_module():
    new = _new_modules(CHILD)
    assert "rootwise.estimators" in new  # the child did import rootwise here
    heavy = [m for m in new if m.split(".")[0] in HEAVY]
    assert heavy == []


def test_the_lazy_parts_are_still_there():
    new = _new_modules("import json, sys\nbefore = set(sys.modules)\nimport rootwise\n"
                       "rootwise.save, rootwise.load, rootwise.ModelFileError, rootwise.explain, "
                       "rootwise.export_text, rootwise.pruning_report\n"
                       "from rootwise import datasets\n"
                       "print(json.dumps(sorted(set(sys.modules) - before)))")
    for module in ("rootwise.export.model_file", "rootwise.explain", "rootwise.export.text",
                   "rootwise.datasets"):
        assert module in new
    assert set(rootwise.__all__) <= set(dir(rootwise))
    for name in rootwise.__all__:
        assert getattr(rootwise, name) is not None



KERNELS = r"""
import json, sys
import numpy as np
import rootwise
from numba.core import event
from numba.core.registry import CPUDispatcher
rng = np.random.default_rng(0)
X = np.round(rng.normal(size=(300, 5)), 2)
y = (X[:, 0] + X[:, 1] > 0).astype(int)
levels = np.clip(np.round(X[:, :4]), -2, 2)  # ID3: numbers as categories
model = {"id3": rootwise.ID3Classifier(), "c4.5": rootwise.C45Classifier(),
         "cart": rootwise.CARTClassifier(random_state=0),
         "cart-regressor": rootwise.CARTRegressor(random_state=0)}[ALGORITHM]
data, target = (levels, y) if ALGORITHM == "id3" else (X, X[:, 2] if "regressor" in ALGORITHM else y)
with event.install_recorder("numba:compile") as compiles:
    model.fit(data, target).predict(data)
called = {}
for name, module in list(sys.modules.items()):
    if name.startswith("rootwise.engine."):
        for attr, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == name and obj.signatures:
                called[name[len("rootwise.engine."):] + "." + attr] = [
                    [str(t) for t in sig] for sig in obj.signatures]
print(json.dumps({"called": called, "compiled": len(compiles.buffer)}))
"""

# kernels a first small fit + predict calls from Python, each one load from numba's cache (warm)
# (one more than the kernels that grow the tree: ``arrays.unset``, numba's allocator for the
# growth's large tables, a signature per dtype)
FIRST_FIT_KERNELS = {"id3": 6, "c4.5": 11, "cart": 8, "cart-regressor": 8}


def test_a_first_small_fit_loads_few_kernels_and_no_parallel_one():
    """Each kernel a fit calls from Python is one cache load (index, unpickling, linking its code)
    in a fresh process. Counted in a fresh process that compiled nothing (numba's "numba:compile"
    events), when the cache is warm: then only the kernels called from Python get a signature
    (those they call are linked in). The suite's filled cache holds these fits' kernels, so the
    first process is that one; after an edit emptied the cache, a second process is.
    A fit is four kernel calls for every algorithm (``engine.loop.fit``: the root's segments,
    the working memory, the root pending and the growth loop, one signature each for all; the
    growth's tables are made and grown from Python by ``loop.grow``, with ``arrays.unset``)."""
    for algorithm, most in FIRST_FIT_KERNELS.items():
        code = f"ALGORITHM = {algorithm!r}\n" + KERNELS
        run = _new_modules(code)
        if run["compiled"]:  # it filled numba's cache (an edit emptied it): count in a warm one
            run = _new_modules(code)
        assert run["compiled"] == 0, algorithm
        called = run["called"]
        assert len(called) <= most, (algorithm, sorted(called))
        assert not [k for k in called if "parallel" in k], (algorithm, sorted(called))
        for kernel in ("segments.root_segments", "scratch.new_scratch", "loop._root",
                       "loop._grow_from"):
            assert kernel in called and len(called[kernel]) == 1, (algorithm, called)
