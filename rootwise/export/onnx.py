"""A fitted tree as an ONNX model (ai.onnx.ml tree ensembles) that computes ``predict`` and
``predict_proba`` in any ONNX runtime, missing values and unseen categories included.

Inputs: one per column of the training table, named as the column, of shape [N, 1]:

- a continuous column, or a categorical one whose categories are numbers (or booleans, as 0 / 1):
  ``tensor(double)``, NaN for a missing cell. A number that is not a category of the column is
  an unseen category.
- a categorical column whose categories are text: ``tensor(string)``; the empty string is a
  missing cell, and any other text that is not a category is an unseen one. An
  ``ai.onnx.ml.LabelEncoder`` turns the text into the category's code.

Outputs: a classifier gives ``label`` [N] (the class, of the classes' own type) and
``probabilities`` [N, k] (float, in ``classes_`` order); a regressor gives ``value`` [N]
(float). The operators' outputs are 32-bit floats, so a probability or value is the model's own
rounded to float32 (within 6e-8 relative); the routing itself compares float64 inputs with
float64 thresholds, as the model does, and the class is the model's own.

How the routing is written (surrogate cascades, categorical tests) is ``onnx_routing``'s
docstring, and C4.5's fractional missing values ``onnx_fractional``'s. What ONNX cannot do:
refuse. An infinite value, which ``predict`` refuses, is routed as a very large number; an ID3
model, which refuses a missing value, gives the prediction of the node where the row stops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted
from .._config import CATEGORICAL, LEAF, MISSING_FRACTIONAL
from ..tree.majority import tie_priority
from . import onnx_fractional
from . import onnx_routing as routing

if TYPE_CHECKING:
    import onnx
    import pandas as pd

    from .._typing import Model, Path

ONNX_EXTRA = "pip install rootwise[onnx]"
OPSET = 17  # the default domain's operators (Concat, Cast, Slice, Gather, ArgMax, Reshape)
ML_OPSET = 3  # ai.onnx.ml: TreeEnsembleRegressor 3 (float64 thresholds), LabelEncoder 2
IR_VERSION = 8  # the IR of opset 17: ONNX Runtime 1.11 and later read it
MISSING_TEXT = ""  # a missing cell of a text input


def _onnx():
    """The onnx package, or an ImportError that says how to install it."""
    try:
        import onnx
    except ImportError as e:
        raise ImportError(f"export_onnx needs the onnx package: {ONNX_EXTRA}") from e
    return onnx


def export_onnx(model: Model, path: Path | None = None) -> onnx.ModelProto:
    """The ONNX model (an ``onnx.ModelProto``) computing ``model.predict`` (and, for a
    classifier, ``predict_proba``); with ``path``, also written there (atomically).

    Run it with ``onnxruntime.InferenceSession(proto.SerializeToString())`` and feed one array
    per column (``onnx_inputs`` makes them from a DataFrame). The module docstring describes the
    inputs and outputs. Raises ValueError for a model ONNX cannot state (a categorical column
    mixing text and number categories, a text category that is the empty string)."""
    check_is_fitted(model, ["tree_", "schema_"])
    onnx = _onnx()
    proto = _build(onnx, model)
    if path is not None:
        from .atomic import open_atomic

        with open_atomic(path, "wb") as f:
            f.write(proto.SerializeToString())
    return proto


def input_kinds(model: Model) -> list[tuple[str, str]]:
    """(input name, "number" or "text") per column of ``model``, in column order."""
    schema = model.schema_
    out, seen = [], set()
    for j, name in enumerate(schema.feature_names):
        name = str(name)
        if name in seen:
            raise ValueError(f"export_onnx: two columns are named {name!r}; ONNX inputs need "
                             "distinct names.")
        seen.add(name)
        kind = "number"
        if schema.kinds[j] == CATEGORICAL:
            cats = schema.categories[j]
            text = [isinstance(c, str) for c in cats]
            if any(text) and not all(text):
                raise ValueError(
                    f"export_onnx: column {name!r} has both text and number categories "
                    f"({cats[text.index(True)]!r}, {cats[text.index(False)]!r}); an ONNX input "
                    "has one type. Refit with the column's values all text or all numbers.")
            if any(text):
                if MISSING_TEXT in cats:
                    raise ValueError(
                        f"export_onnx: column {name!r} has the empty string as a category; "
                        "the ONNX model reads the empty string as a missing cell.")
                kind = "text"
        out.append((name, kind))
    return out


def onnx_inputs(model: Model, X: pd.DataFrame) -> dict[str, np.ndarray]:
    """The ONNX model's inputs for the table ``X`` (a pandas DataFrame with the model's columns):
    {column name: [N, 1] array}, float64 (NaN: missing) or text (empty: missing)."""
    import pandas as pd

    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"onnx_inputs: X must be a pandas DataFrame, got {type(X).__name__}.")
    feeds = {}
    for column, (name, kind) in zip(model.schema_.feature_names, input_kinds(model), strict=True):
        if column not in X.columns:
            raise ValueError(f"onnx_inputs: X has no column {column!r}.")
        values = X[column]
        missing = values.isna().to_numpy()
        if kind == "text":
            cells = np.array([MISSING_TEXT if m else str(v) for v, m in zip(values, missing,
                                                                              strict=True)],
                             dtype=object)
        else:
            cells = np.array([np.nan if m else float(v) for v, m in zip(values, missing,
                                                                         strict=True)],
                             dtype=np.float64)
        feeds[name] = cells.reshape(-1, 1)
    return feeds


# ---------------------------------------------------------------------------- the graph

def _build(onnx, model):
    from onnx import TensorProto, helper, numpy_helper

    tree, schema = model.tree_, model.schema_
    classes = getattr(model, "classes_", None)
    kinds = input_kinds(model)
    def value_of(f: int, code: int) -> float:
        """What the input matrix holds for a category: its code (text), itself (a number)."""
        if kinds[f][1] == "text":
            return float(code)
        return float(schema.categories[f][code])  # a boolean is 0 / 1

    nodes, inputs, columns = [], [], []
    for j, (name, kind) in enumerate(kinds):
        if kind == "number":
            inputs.append(helper.make_tensor_value_info(name, TensorProto.DOUBLE, [None, 1]))
            columns.append(name)
            continue
        inputs.append(helper.make_tensor_value_info(name, TensorProto.STRING, [None, 1]))
        cats = list(schema.categories[j])
        code = f"rootwise_code_{j}"
        nodes.append(helper.make_node(
            "LabelEncoder", [name], [code + "_f"], domain="ai.onnx.ml",
            keys_strings=[*cats, MISSING_TEXT],
            values_floats=[*map(float, range(len(cats))), float("nan")],
            default_float=-1.0))  # an unseen category: no category's code
        nodes.append(helper.make_node("Cast", [code + "_f"], [code], to=TensorProto.DOUBLE))
        columns.append(code)
    nodes.append(helper.make_node("Concat", columns, ["rootwise_X"], axis=1))

    fractional = classes is not None and bool(
        np.any(tree.missing_branch[tree.kind != LEAF] == MISSING_FRACTIONAL))
    # C4.5's weights need every node's direction (``onnx_fractional``): none is tested inline
    directions = routing.Directions(tree, value_of, len(kinds), inline=not fractional)
    if fractional:
        stage2 = None
    else:
        weights = routing.value_leaves(tree) if classes is None else \
            routing.class_leaves(tree, tie_priority(model))
        stage2 = routing.routing(tree, directions, weights)

    def ensemble(forest, source: str, out: str, n_targets: int):
        attrs = forest.attributes()
        weights = np.asarray(forest.t_weight, dtype=np.float64)
        return helper.make_node(
            "TreeEnsembleRegressor", [source], [out], domain="ai.onnx.ml",
            n_targets=n_targets, aggregate_function="SUM", post_transform="NONE",
            nodes_values_as_tensor=numpy_helper.from_array(
                np.asarray(forest.value, dtype=np.float64), "nodes_values"),
            target_weights_as_tensor=numpy_helper.from_array(weights, "target_weights"),
            **attrs)

    if len(directions.target):
        nodes.append(ensemble(directions.forest, "rootwise_X", "rootwise_directions_f",
                              len(directions.target)))
        # the operator's output is float; as double, stage 2 keeps its weights in float64
        nodes.append(helper.make_node("Cast", ["rootwise_directions_f"], ["rootwise_directions"],
                                      to=TensorProto.DOUBLE))
        if not fractional:
            nodes.append(helper.make_node("Concat", ["rootwise_X", "rootwise_directions"],
                                          ["rootwise_X_directions"], axis=1))
        source = "rootwise_X_directions"
    else:
        source = "rootwise_X"  # threshold tests without surrogates only: no stage 1
    outputs = []
    if classes is None:
        nodes.append(ensemble(stage2, source, "rootwise_scores", 1))
        nodes.append(helper.make_node("Reshape", ["rootwise_scores", "rootwise_flat"], ["value"]))
        initializers = [numpy_helper.from_array(np.array([-1], dtype=np.int64), "rootwise_flat")]
        outputs.append(helper.make_tensor_value_info("value", TensorProto.FLOAT, [None]))
    else:
        k = len(classes)
        labels, label_type = _labels(classes)
        initializers = [numpy_helper.from_array(labels, "rootwise_classes")]
        if fractional:
            nodes.extend(onnx_fractional.probability_nodes(
                tree, directions, "rootwise_directions", "rootwise_proba",
                (helper, numpy_helper, TensorProto, initializers)))
            nodes.append(helper.make_node("Cast", ["rootwise_proba"], ["probabilities"],
                                          to=TensorProto.FLOAT))
            nodes.extend(_first_largest(helper, numpy_helper, tie_priority(model), initializers))
        else:
            nodes.append(ensemble(stage2, source, "rootwise_scores", k + 1))
            for name, lo, hi in (("probabilities", 0, k), ("rootwise_index_f", k, k + 1)):
                for part, v in (("starts", lo), ("ends", hi)):
                    initializers.append(numpy_helper.from_array(np.array([v], dtype=np.int64),
                                                                f"rootwise_{name}_{part}"))
                initializers.append(numpy_helper.from_array(np.array([1], dtype=np.int64),
                                                            f"rootwise_{name}_axes"))
                nodes.append(helper.make_node(
                    "Slice", ["rootwise_scores", f"rootwise_{name}_starts", f"rootwise_{name}_ends",
                              f"rootwise_{name}_axes"], [name]))
            nodes.append(helper.make_node("Cast", ["rootwise_index_f"], ["rootwise_index_2d"],
                                          to=TensorProto.INT64))
            initializers.append(numpy_helper.from_array(np.array([-1], dtype=np.int64),
                                                        "rootwise_flat"))
            nodes.append(helper.make_node("Reshape", ["rootwise_index_2d", "rootwise_flat"],
                                          ["rootwise_index"]))
        nodes.append(helper.make_node("Gather", ["rootwise_classes", "rootwise_index"], ["label"],
                                      axis=0))
        outputs.append(helper.make_tensor_value_info("label", label_type, [None]))
        outputs.append(helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [None, k]))

    graph = helper.make_graph(nodes, f"rootwise_{type(model).__name__}", inputs, outputs,
                              initializer=initializers)
    proto = helper.make_model(graph, producer_name="rootwise", producer_version=_version(),
                              opset_imports=[helper.make_opsetid("", OPSET),
                                             helper.make_opsetid("ai.onnx.ml", ML_OPSET)])
    proto.ir_version = IR_VERSION
    proto.doc_string = (f"{type(model).__name__} exported by rootwise: one input per column, "
                        "NaN (numbers) or the empty string (text) for a missing cell.")
    onnx.checker.check_model(proto)
    return proto


def _first_largest(helper, numpy_helper, priority, initializers) -> list:
    """Nodes giving ``rootwise_index``: the first class with the largest probability, in tie
    order (``priority``: class indices; None: class order), as ``predict``."""
    if priority is None:
        return [helper.make_node("ArgMax", ["rootwise_proba"], ["rootwise_index"], axis=1,
                                 keepdims=0)]
    initializers.append(numpy_helper.from_array(np.asarray(priority, dtype=np.int64),
                                                "rootwise_priority"))
    return [helper.make_node("Gather", ["rootwise_proba", "rootwise_priority"],
                             ["rootwise_in_order"], axis=1),
            helper.make_node("ArgMax", ["rootwise_in_order"], ["rootwise_rank"], axis=1,
                             keepdims=0),
            helper.make_node("Gather", ["rootwise_priority", "rootwise_rank"],
                             ["rootwise_index"], axis=0)]


def _labels(classes):
    """The class labels as a tensor and its ONNX element type (text, integers, booleans or
    floating point; anything else cannot be an ONNX tensor)."""
    from onnx import TensorProto

    values = [c.item() if isinstance(c, np.generic) else c for c in classes]
    if all(isinstance(v, str) for v in values):
        return np.array(values, dtype=object), TensorProto.STRING
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool), TensorProto.BOOL
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64), TensorProto.INT64
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.float64), TensorProto.DOUBLE
    raise ValueError(f"export_onnx: the classes {values!r} are not all text, all integers, all "
                     "numbers or all booleans; an ONNX tensor holds one type.")


def _version() -> str:
    from .._version import version

    return version()
