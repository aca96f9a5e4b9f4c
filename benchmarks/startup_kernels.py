"""Which numba kernels a first fit + predict touches, and what each costs: its load from numba's
on-disk cache (warm) or its compilation (``--cold``: a new empty NUMBA_CACHE_DIR).

    python benchmarks/startup_kernels.py cart numpy
    python benchmarks/startup_kernels.py id3 frame --cold

Runs the fit in a fresh interpreter (the data of ``startup.py``). Loads are timed around numba's
``Cache.load_overload``; compilations by numba's "numba:compile" events, as exclusive time (a
kernel's compile minus the compiles of the kernels it calls, which nest inside it). The first
cache load also pays numba's one-time set-up of its compiler (0.2-0.3 s), whichever kernel it is.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import sys, time
from numba.core import caching, event

loads = []
_load = caching.Cache.load_overload


def timed_load(self, sig, target_context):
    t = time.perf_counter()
    out = _load(self, sig, target_context)
    f = self._py_func
    loads.append((f"{f.__module__.replace('rootwise.engine.', '')}.{f.__qualname__}",
                  time.perf_counter() - t, out is not None))
    return out


caching.Cache.load_overload = timed_load
stack, spent, count = [], {}, {}


class Compiles(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        stack.append([f"{f.__module__.replace('rootwise.engine.', '')}.{f.__qualname__}",
                      time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t, inner = stack.pop()
        d = time.perf_counter() - t
        spent[name] = spent.get(name, 0.0) + d - inner
        count[name] = count.get(name, 0) + 1
        if stack:
            stack[-1][2] += d


event.register("numba:compile", Compiles())
import numpy as np
import rootwise
sys.path.insert(0, HERE)
import data
algorithm, kind = ALGORITHM, KIND
X, y = data.startup_case(algorithm, kind)
model = {"id3": rootwise.ID3Classifier, "c4.5": rootwise.C45Classifier,
          "cart": rootwise.CARTClassifier, "cart-regressor": rootwise.CARTRegressor}[algorithm]
t0, c0 = time.perf_counter(), time.process_time()
model(random_state=0).fit(X, y).predict(X)
print(f"first fit + predict: {time.perf_counter() - t0:.3f} s ({time.process_time() - c0:.3f} s CPU)")
hits = [r for r in loads if r[2]]
if hits:
    print(f"\nloaded from the cache: {len(hits)} kernels, {sum(d for _, d, _ in hits):.3f} s")
    for name, d, _ in sorted(hits, key=lambda r: -r[1]):
        print(f"  {d * 1000:8.1f} ms  {name}")
if len(hits) < len(loads):
    print(f"\nnot in the cache: {len(loads) - len(hits)} kernels looked up (compiled below)")
if spent:
    ours = sum(d for n, d in spent.items() if not n.startswith("numba."))
    print(f"\ncompiled: {len(spent)} functions, {sum(spent.values()):.2f} s; rootwise's kernels "
          f"{ours:.2f} s, numba's own implementations {sum(spent.values()) - ours:.2f} s")
    for name, d in sorted(spent.items(), key=lambda kv: -kv[1]):
        times = f" (x{count[name]}: one per argument-type signature)" if count[name] > 1 else ""
        print(f"  {d:7.2f} s  {name}{times}")
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("algorithm", choices=("id3", "c4.5", "cart", "cart-regressor"))
    p.add_argument("input", choices=("numpy", "frame"))
    p.add_argument("--cold", action="store_true", help="compile into a new empty cache")
    args = p.parse_args(argv)
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # the child's settings as its first line (its own braces stay as they are)
    code = f"HERE, ALGORITHM, KIND = {HERE!r}, {args.algorithm!r}, {args.input!r}\n" + CHILD
    with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
        if args.cold:
            env["NUMBA_CACHE_DIR"] = cache
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=HERE).returncode


if __name__ == "__main__":
    sys.exit(main())
