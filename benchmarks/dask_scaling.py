"""rootwise.dask on a LocalCluster: time per level, bytes moved per level, the reduction's share,
worker memory; optionally Spark MLlib's DecisionTree (pyspark local mode) on the same data.

    python benchmarks/dask_scaling.py --rows 1000000 --workers 1 2 4
    python benchmarks/dask_scaling.py --rows 1000000 --workers 2 --spark

Data: 8 continuous columns (normal, rounded to 3 decimals) and 2 categorical ones (12 and 40
categories), two classes from a noisy rule; generated on the workers, partition by partition
(seeded), so no row passes through the client. The number of partitions is fixed (``--parts``)
so every worker count grows the same tree (checked: the trees' node counts and features agree).

Bytes moved are read from the workers' incoming-transfer logs, attributed to a level by the
keys' names; "to client" is the final sum the client receives per round. The reduction's share
is the time of the combine tasks (transfers included) over that of all histogram tasks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from machine import machine_lines  # noqa: E402

N_CONT, CATS = 8, (12, 40)


def make_part(seed: int, n: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.normal(size=n).round(3) for j in range(N_CONT)}
    for j, k in enumerate(CATS):
        cols[f"c{j}"] = pd.Categorical.from_codes(rng.integers(0, k, n),
                                                  categories=[f"v{i}" for i in range(k)])
    X = pd.DataFrame(cols)
    score = X["x0"] + 0.8 * X["x1"] * (X["x2"] > 0) + 0.5 * (X["c0"].cat.codes % 3 == 0) \
        + 0.3 * (X["c1"].cat.codes % 5 == 1) + rng.normal(scale=0.7, size=n)
    X["y"] = (score > 0.4).astype(np.int64)
    return X


def dataset(n_rows: int, n_parts: int):
    import dask
    import dask.dataframe as dd

    sizes = [n_rows // n_parts + (i < n_rows % n_parts) for i in range(n_parts)]
    meta = make_part(0, 1).iloc[:0]
    ddf = dd.from_delayed([dask.delayed(make_part)(1000 + i, s) for i, s in enumerate(sizes)],
                          meta=meta, verify_meta=False)
    return ddf[[c for c in meta.columns if c != "y"]], ddf["y"]


def _rss(dask_worker=None):
    """The worker process's peak resident memory (VmHWM), bytes."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _transfers(dask_worker=None):
    return list(dask_worker.transfer_incoming_log)


def run_dask(n_rows, workers, parts, depth, max_bins):
    from distributed import Client, LocalCluster, get_task_stream

    from rootwise import CARTClassifier
    from rootwise.dask import fit

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None, memory_limit="4GiB")
    client = Client(cluster)
    X, y = dataset(n_rows, parts)
    # warm-up: compile the kernels in every worker (numba's cache) on a tiny fit
    Xs, ys = dataset(2000, workers)
    fit(CARTClassifier(splitter="hist", max_depth=2, pruning=None), Xs, ys, client=client)
    client.run(lambda dask_worker: dask_worker.transfer_incoming_log.clear())
    log = []
    est = CARTClassifier(splitter="hist", max_depth=depth, max_bins=max_bins, pruning=None)
    t0 = time.time()
    with get_task_stream(client) as ts:
        fit(est, X, y, client=client, log=log)
    total = time.time() - t0
    rss = client.run(_rss)
    transfers = [t for ws in client.run(_transfers).values() for t in ws]
    levels = [e for e in log if e[0] == "level"]
    hist = [e for e in log if e[0] == "histogram"]
    rows = []
    for _, level, n_open, start, stop in levels:
        moved = sum(nb for t in transfers for k, nb in t["keys"].items()
                    if f"-l{level}-" in str(k))
        to_client = sum(e[3] for e in hist if e[1] == level)
        rows.append((level, n_open, stop - start, moved, to_client))
    red, allh = 0.0, 0.0
    for task in ts.data:
        key = str(task["key"])
        if "-hist-" not in key:
            continue
        dur = sum(s["stop"] - s["start"] for s in task["startstops"])
        allh += dur
        if "-reduce-" in key:
            red += dur
    client.close()
    cluster.close()
    setup = levels[0][3] - t0 if levels else 0.0
    return total, rows, red / allh if allh else 0.0, max(rss.values()), est, setup


def run_spark(n_rows, parts, depth, max_bins):
    """Spark MLlib's DecisionTreeClassifier in local mode on the same partitions (generated
    in the driver and handed to Spark as a pandas frame, categorical columns indexed)."""
    import pandas as pd
    from pyspark.ml.classification import DecisionTreeClassifier
    from pyspark.ml.feature import VectorAssembler, VectorIndexer
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "6g")
             .config("spark.ui.enabled", "false").getOrCreate())
    sizes = [n_rows // parts + (i < n_rows % parts) for i in range(parts)]
    frame = pd.concat([make_part(1000 + i, s) for i, s in enumerate(sizes)], ignore_index=True)
    for j in range(len(CATS)):
        frame[f"c{j}"] = frame[f"c{j}"].cat.codes.astype(np.float64)
    sdf = spark.createDataFrame(frame).repartition(parts).cache()
    sdf.count()
    features = [c for c in frame.columns if c != "y"]
    raw = VectorAssembler(inputCols=features, outputCol="raw").transform(sdf)
    # the code columns as categorical features (Spark's metadata), as rootwise sees them
    indexer = VectorIndexer(inputCol="raw", outputCol="features", maxCategories=max(CATS))
    data = indexer.fit(raw).transform(raw).cache()
    data.count()
    model_spec = DecisionTreeClassifier(labelCol="y", featuresCol="features", maxDepth=depth,
                                        maxBins=max(max_bins, max(CATS)), maxMemoryInMB=256)
    t0 = time.time()
    model = model_spec.fit(data)
    seconds = time.time() - t0
    pred = model.transform(data).select("prediction", "y").toPandas()
    nodes = model.numNodes
    spark.stop()
    return seconds, float((pred["prediction"] == pred["y"]).mean()), nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=float, nargs="+", default=[1e6])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--max-bins", type=int, default=64)
    ap.add_argument("--spark", action="store_true")
    a = ap.parse_args()
    for line in machine_lines():
        print(line)
    print(f"# load before: {os.getloadavg()}")
    for n in (int(r) for r in a.rows):
        trees = []
        for k in a.workers:
            total, rows, share, rss, est, setup = run_dask(n, k, a.parts, a.depth, a.max_bins)
            trees.append(est.tree_)
            print(f"\n## rows={n:,} workers={k} parts={a.parts} depth={a.depth} "
                  f"max_bins={a.max_bins}: fit {total:.1f} s (scan + prepare {setup:.1f} s), "
                  f"reduction share {share:.1%}, "
                  f"max worker peak RSS {rss / 2**20:.0f} MiB, nodes {est.tree_.node_count}")
            print("level  open  seconds  bytes_moved  bytes_to_client")
            for level, n_open, sec, moved, to_client in rows:
                print(f"{level:5d} {n_open:5d} {sec:8.2f} {moved:12,d} {to_client:16,d}")
        same = all(t.node_count == trees[0].node_count
                   and np.array_equal(t.feature, trees[0].feature)
                   and np.array_equal(t.threshold, trees[0].threshold, equal_nan=True)
                   for t in trees)
        print(f"# same tree for every worker count: {same}")
        if a.spark:
            seconds, acc, nodes = run_spark(n, a.parts, a.depth, a.max_bins)
            import pandas as pd

            sizes = [n // a.parts + (i < n % a.parts) for i in range(a.parts)]
            frame = pd.concat([make_part(1000 + i, s) for i, s in enumerate(sizes)],
                              ignore_index=True)
            ours = float((est.predict(frame.drop(columns="y")) == frame["y"]).mean())
            print(f"# Spark MLlib DecisionTree local[2]: fit {seconds:.1f} s, training accuracy "
                  f"{acc:.4f}, nodes {nodes}; rootwise.dask ({a.workers[-1]} workers): fit "
                  f"{total:.1f} s, training accuracy {ours:.4f}, nodes {est.tree_.node_count}")
    print(f"# load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
