"""CART trees grown on a Dask cluster, the same tree as the local ``splitter="hist"`` fit.

    est = rootwise.CARTClassifier(splitter="hist", max_depth=8, pruning=None)
    est.fit(ddf, dy)          # ddf: dask DataFrame / Array, dy: dask Series / array
    est.predict(ddf)          # a lazy dask Series / Array

Rows never leave their workers: each partition bins its own rows and builds the histograms of
the open nodes; histograms are added up by a tree reduction; the client chooses the splits with
the engine's own kernels and the workers move their rows to the children (``grow``). Needs the
``dask`` extra (``pip install rootwise[dask]``).
"""

from .collections import is_dask_collection, lazy
from .fit import DEFAULT_MEMORY_MB, fit

__all__ = ["fit", "lazy", "is_dask_collection", "DEFAULT_MEMORY_MB"]
