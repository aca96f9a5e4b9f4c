"""Which numba kernels a first fit + predict touches, and what each costs: its load from numba's
on-disk cache (warm) or its compilation (``--cold``: a new empty NUMBA_CACHE_DIR).

    python benchmarks/startup_kernels.py cart numpy
    python benchmarks/startup_kernels.py id3 frame --cold
    python benchmarks/startup_kernels.py id3 c4.5 c4.5-r8 cart cart-regressor hist table --cold

Runs the fits in one fresh interpreter, in the order given (the data and estimators of
``startup.py``). Loads are timed around numba's ``Cache.load_overload``; compilations by numba's
"numba:compile" events, as exclusive time (a kernel's compile minus the compiles of the kernels it
calls, which nest inside it), with the number of argument-type signatures each kernel compiled
for; and by compiler pass ("numba:run_pass" events, exclusive), which shows whether typing or
LLVM (the "NativeLowering" pass optimises and generates machine code) dominates. The first cache
load also pays numba's one-time set-up of its compiler (0.2-0.3 s), whichever kernel it is.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from startup import ALGORITHMS, CASE, INPUTS, MODELS, TABLE  # noqa: E402

CHILD = r"""
import sys, time
from numba.core import caching, event

loads = []
_load = caching.Cache.load_overload


def short(f):
    return f"{f.__module__.replace('rootwise.', '')}.{f.__qualname__}"


def timed_load(self, sig, target_context):
    t = time.perf_counter()
    out = _load(self, sig, target_context)
    loads.append((short(self._py_func), time.perf_counter() - t, out is not None))
    return out


caching.Cache.load_overload = timed_load


class Exclusive(event.Listener):
    # time per key, minus the time of the same kind of event nested inside it
    def __init__(self, key):
        self.key, self.stack, self.spent, self.count = key, [], {}, {}

    def on_start(self, ev):
        self.stack.append([self.key(ev), time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t, inner = self.stack.pop()
        d = time.perf_counter() - t
        self.spent[name] = self.spent.get(name, 0.0) + d - inner
        self.count[name] = self.count.get(name, 0) + 1
        if self.stack:
            self.stack[-1][2] += d


compiles = Exclusive(lambda ev: short(ev.data["dispatcher"].py_func))
passes = Exclusive(lambda ev: ev.data["name"].split(" [")[0])
event.register("numba:compile", compiles)
event.register("numba:run_pass", passes)
import numpy as np
import rootwise
sys.path.insert(0, HERE)
import data

total = 0.0
for algorithm in ALGORITHMS:
    if KIND == "table":
        X, y = data.real_table(ROWS, **TABLE.get(algorithm, {}))
    else:
        X, y = data.startup_case(CASE.get(algorithm, algorithm), KIND)
    name, params = MODELS[algorithm]
    t0, c0 = time.perf_counter(), time.process_time()
    getattr(rootwise, name)(random_state=0, **params).fit(X, y).predict(X)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    total += cpu
    print(f"{algorithm}: first fit + predict {wall:.3f} s ({cpu:.3f} s CPU)", flush=True)
print(f"together: {total:.3f} s CPU")
hits = [r for r in loads if r[2]]
if hits:
    print(f"\nloaded from the cache: {len(hits)} kernels, {sum(d for _, d, _ in hits):.3f} s")
    for name, d, _ in sorted(hits, key=lambda r: -r[1])[:TOP]:
        print(f"  {d * 1000:8.1f} ms  {name}")
if len(hits) < len(loads):
    print(f"\nnot in the cache: {len(loads) - len(hits)} kernels looked up (compiled below)")
spent, count = compiles.spent, compiles.count
if spent:
    ours = sum(d for n, d in spent.items() if n.startswith(("rootwise", "engine", "tree", "prune")))
    print(f"\ncompiled: {len(spent)} functions, {sum(count.values())} signatures, "
          f"{sum(spent.values()):.2f} s; rootwise's kernels {ours:.2f} s, numba's own "
          f"implementations {sum(spent.values()) - ours:.2f} s")
    for name, d in sorted(spent.items(), key=lambda kv: -kv[1])[:TOP]:
        times = f" (x{count[name]} signatures)" if count[name] > 1 else ""
        print(f"  {d:7.2f} s  {name}{times}")
    print("\nby compiler pass (exclusive):")
    for name, d in sorted(passes.spent.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {d:7.2f} s  {name}")
"""


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cases", nargs="+", metavar="ALGORITHM... INPUT",
                   help=f"algorithms ({', '.join(ALGORITHMS)}), then the input ({', '.join(INPUTS)})")
    p.add_argument("--cold", action="store_true", help="compile into a new empty cache")
    p.add_argument("--table-rows", type=int, default=300, help="rows of the table input")
    p.add_argument("--top", type=int, default=40, help="kernels listed")
    args = p.parse_args(argv)
    *algorithms, kind = args.cases
    if kind not in INPUTS or not algorithms or any(a not in ALGORITHMS for a in algorithms):
        p.error(f"give algorithms among {ALGORITHMS}, then one input among {INPUTS}")
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # the child's settings as its first lines (its own braces stay as they are)
    code = (f"HERE, ALGORITHMS, KIND, ROWS, TOP = {HERE!r}, {algorithms!r}, {kind!r}, "
            f"{args.table_rows!r}, {args.top!r}\n"
            f"CASE, TABLE, MODELS = {CASE!r}, {TABLE!r}, {MODELS!r}\n" + CHILD)
    with tempfile.TemporaryDirectory(prefix="rootwise-numba-cold-") as cache:
        if args.cold:
            env["NUMBA_CACHE_DIR"] = cache
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=HERE).returncode


if __name__ == "__main__":
    sys.exit(main())
