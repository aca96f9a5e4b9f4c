"""How far the distributed fit is from the local one when sums are not exact in float64:
regression with float targets and fractional weights, on uneven partitions of a LocalCluster.

    python benchmarks/dask_exactness.py

For each seed: do the trees have the same tests (features, thresholds, subsets) node by node,
and what is the largest relative difference of the node values and impurities."""

import numpy as np
import pandas as pd


def main():
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from rootwise import CARTClassifier, CARTRegressor

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        sizes = [3000, 700, 5100, 1200]
        same, total, worst_value, worst_imp = 0, 0, 0.0, 0.0
        for seed in range(10):
            rng = np.random.default_rng(seed)
            n = sum(sizes)
            X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n),
                              "c": rng.choice(list("pqrstuv"), n)})
            X.loc[rng.random(n) < 0.1, "a"] = np.nan
            y = X["a"].fillna(0) * 2 + (X["c"] == "q") + rng.normal(size=n)
            w = pd.Series(rng.uniform(0.1, 3.0, n))
            cut = np.cumsum([0] + sizes)

            def parts(f, cut=cut):
                return dd.from_delayed([dask.delayed(f.iloc[cut[i]:cut[i + 1]])
                                        for i in range(len(sizes))], meta=f.iloc[:0])

            for cls, target in ((CARTRegressor, y), (CARTClassifier, (y > 0.5).astype(int))):
                params = dict(splitter="hist", max_bins=64, max_depth=8, pruning=None)
                dist = cls(**params).fit(parts(X), parts(target), sample_weight=parts(w))
                local = cls(**params).fit(X, target, sample_weight=w, bin_edges=dist.bin_edges_)
                a, b = dist.tree_, local.tree_
                total += 1
                if (a.node_count == b.node_count and np.array_equal(a.feature, b.feature)
                        and np.array_equal(a.threshold, b.threshold, equal_nan=True)
                        and np.array_equal(a.pool, b.pool)):
                    same += 1
                    rel = np.abs(a.value - b.value) / np.maximum(np.abs(b.value), 1e-300)
                    worst_value = max(worst_value, float(rel.max()))
                    ri = np.abs(a.impurity - b.impurity) / np.maximum(np.abs(b.impurity), 1e-300)
                    worst_imp = max(worst_imp, float(ri.max()))
        print(f"fractional weights, float targets: {same} of {total} trees have the same tests; "
              f"largest relative difference: values {worst_value:.1e}, impurities "
              f"{worst_imp:.1e}")


if __name__ == "__main__":
    main()
