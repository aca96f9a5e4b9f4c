"""The model-file fuzz at scale: mutated files of every estimator's model, each
loaded in a worker subprocess and, if it loads, used for predict, predict_proba, apply,
export_text, export_graphviz, a save / load round trip and export_sql run in SQLite, which must
predict what predict does (tests/model_fuzz.py says how a case is made and judged; about 5 % of
the cases name another estimator in the file). Then a sample of the files that loaded runs
again with NUMBA_BOUNDSCHECK=1 and a fresh NUMBA_CACHE_DIR (the kernels compiled with bounds
checks), so that an out-of-bounds read the kernels would make silently raises IndexError.

    .venv/bin/python tools/fuzz_model_files.py --cases 100000 --workers 2 --out fuzz-out

Case i mutates base model BASES[i % 9] with seed i; any case is reproduced with
``--cases 1 --first i``. Workers are fresh processes, each given a chunk of cases; a case that
takes more than --timeout seconds or kills its worker counts as a failure, and the chunk goes
on in a new worker. The summary (counts per outcome, the most common refusals and differences,
every failure) is printed and written to OUT/summary.json.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pickle
import re
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


# --------------------------------------------------------------------------- worker side


def _check_boundscheck_is_on() -> None:
    """Under NUMBA_BOUNDSCHECK=1 a kernel reading past an array raises IndexError: prove it."""
    import numpy as np
    from numba import njit

    @njit
    def past_the_end(a):
        return a[a.shape[0]]

    try:
        past_the_end(np.zeros(3))
    except IndexError:
        return
    raise SystemExit("NUMBA_BOUNDSCHECK=1 is set but kernels do not check bounds")


def worker(work: Path, cases: list[int]) -> None:
    """Run ``cases``, one JSON line per case on stdout."""
    import warnings

    import model_fuzz

    import rootwise

    warnings.simplefilter("ignore")
    if os.environ.get("NUMBA_BOUNDSCHECK") == "1":
        _check_boundscheck_is_on()
    names = list(model_fuzz.BASES)
    bases = {}
    for name in names:
        model = rootwise.load(work / f"{name}.json")
        X = pickle.loads((work / f"{name}.rows.pickle").read_bytes())
        text = (work / f"{name}.json").read_text(encoding="utf-8")
        bases[name] = (model, text, X, model_fuzz.outputs(model, X))
    path = Path(tempfile.mkdtemp(prefix="fuzz-case-")) / "m.json"
    for i in cases:
        name = names[i % len(names)]
        model, text, X, expected = bases[name]
        started = time.perf_counter()
        outcome, detail = model_fuzz.run_case(model_fuzz.mutate(text, i), path, model, expected, X)
        print(json.dumps({"i": i, "base": name, "outcome": outcome, "detail": detail,
                          "seconds": round(time.perf_counter() - started, 4)}), flush=True)


# --------------------------------------------------------------------------- parent side


def prepare(work: Path) -> None:
    """Fit the base models once; workers read their files and comparison rows."""
    import warnings

    import model_fuzz

    warnings.simplefilter("ignore")
    for name in model_fuzz.BASES:
        _, text, X = model_fuzz.fit_base(name)
        (work / f"{name}.json").write_text(text, encoding="utf-8")
        (work / f"{name}.rows.pickle").write_bytes(pickle.dumps(X))


class Pool:
    """Worker subprocesses over a list of cases, with a timeout per case."""

    def __init__(self, work: Path, n_workers: int, chunk: int, timeout: float, env: dict):
        self.work, self.n_workers, self.chunk = work, n_workers, chunk
        self.timeout, self.env = timeout, env

    def _start(self, cases: list[int]):
        list_file = self.work / f"cases-{cases[0]}-{len(cases)}-{time.monotonic_ns()}.json"
        list_file.write_text(json.dumps(cases))
        err = list_file.with_suffix(".stderr")
        with err.open("w") as err_file:  # a file, not a pipe: a chatty worker cannot block
            proc = subprocess.Popen(
                [sys.executable, __file__, "--worker", str(self.work), str(list_file)],
                stdout=subprocess.PIPE, stderr=err_file, text=True, env=self.env)
        return {"proc": proc, "cases": cases, "done": 0, "last": time.monotonic(), "err": err}

    def run(self, cases: list[int], on_result) -> None:
        queue = [cases[k:k + self.chunk] for k in range(0, len(cases), self.chunk)]
        running = []
        sel = selectors.DefaultSelector()
        while queue or running:
            while queue and len(running) < self.n_workers:
                w = self._start(queue.pop(0))
                running.append(w)
                sel.register(w["proc"].stdout, selectors.EVENT_READ, w)
            for key, _ in sel.select(timeout=1.0):
                w = key.data
                line = w["proc"].stdout.readline()
                if line:
                    record = json.loads(line)
                    w["done"] += 1
                    w["last"] = time.monotonic()
                    on_result(record)
                    continue
                # end of output: the chunk is done, or the worker died on a case
                sel.unregister(w["proc"].stdout)
                running.remove(w)
                w["proc"].wait()
                rest = w["cases"][w["done"]:]
                if rest:
                    err = w["err"].read_text(errors="replace")[-500:]
                    on_result({"i": rest[0], "base": None, "outcome": "failure", "seconds": None,
                               "detail": f"worker died (exit {w['proc'].returncode}): {err}"})
                    if rest[1:]:
                        queue.insert(0, rest[1:])
            now = time.monotonic()
            for w in list(running):
                # the first case of a worker also imports rootwise and loads the kernels
                allowed = self.timeout * (4 if w["done"] == 0 else 1)
                if now - w["last"] > allowed:
                    w["proc"].kill()
                    w["proc"].wait()
                    sel.unregister(w["proc"].stdout)
                    running.remove(w)
                    rest = w["cases"][w["done"]:]
                    on_result({"i": rest[0], "base": None, "outcome": "failure", "seconds": None,
                               "detail": f"timeout: no result within {allowed:.0f} s"})
                    if rest[1:]:
                        queue.insert(0, rest[1:])


def _reason_key(detail: str) -> str:
    """A refusal's message with its numbers and quoted values blanked: the kind of refusal."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", detail)
    text = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "#", text)
    return text[:110]


def _field_of(detail: str) -> str:
    """The field a refusal names: its message up to the first ': ' or verb."""
    text = _reason_key(detail).removeprefix("corrupt tree: ")
    cut = min([text.find(m) for m in (": ", " is ", " has ", " holds ", " should ", " disagree",
                                      " and ", " (") if m in text] or [40])
    return text[:cut]


def summarise(records: list[dict]) -> dict:
    counts = collections.Counter(r["outcome"] for r in records)
    per_base = collections.defaultdict(collections.Counter)
    for r in records:
        per_base[r["base"] or "?"][r["outcome"]] += 1
    errors = collections.Counter(_reason_key(r["detail"]) for r in records if r["outcome"] == "error")
    fields = collections.Counter(_field_of(r["detail"]) for r in records if r["outcome"] == "error")
    different = collections.Counter(r["detail"] for r in records if r["outcome"] == "different")
    seconds = sorted(r["seconds"] for r in records if r["seconds"] is not None)
    return {
        "cases": len(records),
        "outcomes": dict(counts),
        "per_base": {k: dict(v) for k, v in sorted(per_base.items())},
        "refused_fields": fields.most_common(25),
        "refusals": errors.most_common(25),
        "different_because": different.most_common(25),
        "failures": [r for r in records if r["outcome"] == "failure"],
        "slowest_case_seconds": seconds[-5:],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--first", type=int, default=0, help="number of the first case")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=2_000, help="cases per worker process")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds allowed per case")
    ap.add_argument("--boundscheck-sample", type=int, default=2_000,
                    help="files that loaded, run again with NUMBA_BOUNDSCHECK=1")
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"))
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="fuzz-work-"))
    started = time.monotonic()
    prepare(work)
    records = []
    log = (args.out / "cases.jsonl").open("w", encoding="utf-8")

    def keep(into):
        def on_result(record):
            into.append(record)
            log.write(json.dumps(record, ensure_ascii=False) + "\n")
            if len(into) % 5_000 == 0:
                print(f"  {len(into)} cases, {time.monotonic() - started:.0f} s", flush=True)
        return on_result

    cases = list(range(args.first, args.first + args.cases))
    Pool(work, args.workers, args.chunk, args.timeout, dict(os.environ)).run(cases, keep(records))
    records.sort(key=lambda r: r["i"])
    summary = {"command": " ".join(sys.argv), "main": summarise(records),
               "main_seconds": round(time.monotonic() - started)}

    loaded = [r["i"] for r in records if r["outcome"] in ("equivalent", "different")]
    if args.boundscheck_sample and loaded:
        step = max(1, len(loaded) // args.boundscheck_sample)
        sample = loaded[::step][: args.boundscheck_sample]
        env = {**os.environ, "NUMBA_BOUNDSCHECK": "1",
               "NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="fuzz-numba-boundscheck-")}
        checked = []
        t0 = time.monotonic()
        Pool(work, args.workers, args.chunk, args.timeout * 4, env).run(sample, keep(checked))
        checked.sort(key=lambda r: r["i"])
        before = {r["i"]: r["outcome"] for r in records}
        summary["boundscheck"] = summarise(checked)
        summary["boundscheck"]["outcome_changed"] = [
            r for r in checked if r["outcome"] != before[r["i"]]]
        summary["boundscheck_seconds"] = round(time.monotonic() - t0)
    log.close()
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False),
                                           encoding="utf-8")
    print(json.dumps({k: (v if not isinstance(v, dict) else
                          {kk: vv for kk, vv in v.items() if kk != "failures"} | {
                              "failures": len(v.get("failures", []))})
                      for k, v in summary.items()}, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text()))
    else:
        main()
