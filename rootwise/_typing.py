"""Names for the types of the public API's arguments and results (annotations only).

A table ``X`` is anything ``input.tables.as_table`` reads: a numpy array, a list of rows, a pandas,
polars or Dask DataFrame, a pyarrow Table. numpy's ``ArrayLike`` covers the arrays, the lists and
every frame that converts itself to an array (``__array__``); pandas has no annotations of its own
(its stubs are a separate package), so to a type checker without them a DataFrame is ``Any``.
"""

from __future__ import annotations

from os import PathLike
from typing import TYPE_CHECKING, Any, TypeAlias

from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    from .estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

Table: TypeAlias = ArrayLike  # the rows x columns a fit or a prediction reads
Labels: TypeAlias = ArrayLike  # y: class labels, or numbers for a regressor
Weights: TypeAlias = "ArrayLike | None"  # sample_weight: one non-negative number per row
# a rootwise estimator (what the exporters, save and load take or give)
Model: TypeAlias = "ID3Classifier | C45Classifier | CARTClassifier | CARTRegressor"
Path: TypeAlias = "str | PathLike[str]"  # a file name
# the estimators' parameters
Count: TypeAlias = "int | float"  # min_samples_*: rows (int) or a fraction of them (float in (0, 1))
Columns: TypeAlias = "str | ArrayLike | None"  # categorical_features: "auto", names, indices or a mask
ClassWeight: TypeAlias = "dict[Any, float] | str | None"  # {label: weight} or "balanced"
Seed: TypeAlias = "int | None"  # random_state (numpy's RandomState too)
Monotonic: TypeAlias = "ArrayLike | dict[str, int] | None"  # monotonic_cst: -1/0/1 per column
LossMatrix: TypeAlias = "ArrayLike | dict[Any, dict[Any, float]] | None"  # CART's loss matrix

__all__ = ["ArrayLike", "ClassWeight", "Columns", "Count", "Labels", "LossMatrix", "Model",
           "Monotonic", "NDArray", "Path", "Seed", "Table", "Weights"]
