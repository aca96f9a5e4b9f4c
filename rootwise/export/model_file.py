"""Versioned JSON model files: save / load, exact round trip, no code execution on load.

A file is one JSON object (UTF-8, version 1)::

    {"format": "rootwise-model", "version": 1, "rootwise_version": "0.1.0",
     "estimator": "ID3Classifier",
     "params": {...get_params()},
     "schema": {"feature_names": [...], "kinds": [...], "categories": [...], "names_from_input": true},
     "classes": {"dtype": "|O", "values": ["否", "是"]} (null for a regressor),
     "n_features_in": 6, "feature_names_in": [...] or null,
     "reports": {"pruning_steps_": null, "cp_table_": {"type": "CPTable", "fields": {...}}},
     "tree": {Tree.to_dict()}}

"rootwise_version" is the version of rootwise that wrote the file (files written before it was
recorded lack it and load all the same). Its JSON Schema is docs/model-file.schema.json. Plus
"class_order" (an array like "classes") when a classifier breaks class ties in another order
(``class_order_``: a pandas categorical y, or the ``class_order`` parameter).

Labels, categories and parameters are JSON scalars of their own type: Python's json writes an int
without and a float always with a decimal point or exponent, so ``1``, ``1.0``, ``true`` and ``"1"``
come back as int, float, bool and str. A non-finite float is written ``{"float": "nan"}`` (JSON
has no NaN); numpy arrays carry their dtype. Loading reads JSON only, checks every field
(``model_fields``) before anything uses it, and builds only the classes named in ``ESTIMATORS``
and ``REPORTS``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted, is_classifier
from .._interrupts import deferring
from .._version import version
from ..estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from ..input.target import class_priority
from ..loss import check_loss
from ..prune.cost_complexity import CPTable
from ..prune.steps import PruningStep
from ..tree.plain import describe
from .atomic import write_atomic

if TYPE_CHECKING:
    from .._typing import Model, Path
from .model_fields import (
    FieldError,
    array,
    check_grown_by,
    check_keys,
    read_classes,
    read_params,
    read_reports,
    read_schema,
    read_tree,
)

FORMAT = "rootwise-model"
VERSION = 1

# Estimators a file may name; loading builds only these classes.
ESTIMATORS = {cls.__name__: cls for cls in (ID3Classifier, C45Classifier, CARTClassifier, CARTRegressor)}
# Fitted attributes that hold a report of the fit (None, a record or a list of records), and the
# record classes (frozen dataclasses of numbers and arrays) a file may name.
REPORT_ATTRIBUTES = ("pruning_steps_", "cp_table_")
REPORTS = {cls.__name__: cls for cls in (PruningStep, CPTable)}

_TOP_KEYS = ("format", "version", "estimator", "params", "schema", "classes", "n_features_in",
             "feature_names_in", "reports", "tree")
# bytes the numpy arrays a file declares (a dtype's width times a count) may take per byte of the
# file; the numbers of a fitted tree take 8 bytes each and are written with 2 or more
ALLOCATION_FACTOR = 8
# "class_order": written only when a classifier breaks class ties in another order than
# ``classes``; "rootwise_version": the version of rootwise that wrote the file (older files lack it)
_OPTIONAL_TOP_KEYS = ("class_order", "rootwise_version")


class ModelFileError(ValueError):
    """A model file that rootwise cannot read: not JSON, not a model, another version, corrupt."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self):  # picklable (across processes) although __init__ takes two arguments
        return type(self), (self.path, self.reason)


# --------------------------------------------------------------------------- save


@deferring
def save(model: Model, path: Path) -> None:
    """Write ``model`` to ``path`` as a JSON model file. The file is replaced atomically: a failed
    save leaves an existing file as it was."""
    write_atomic(path, dumps(model))


def dumps(model) -> str:
    """The model file's text: top-level fields one per line, arrays on one line each."""
    return _layout(model_to_dict(model)) + "\n"


def model_to_dict(model) -> dict:
    """The JSON document of a fitted model (plain dicts, lists and scalars)."""
    name = type(model).__name__
    if ESTIMATORS.get(name) is not type(model):
        raise TypeError(f"cannot save a {name}: rootwise saves {', '.join(ESTIMATORS)}.")
    check_is_fitted(model, "tree_")
    schema = model.schema_
    names_in = getattr(model, "feature_names_in_", None)
    classes = getattr(model, "classes_", None)
    order = getattr(model, "class_order_", None)
    extra = {} if order is None or np.array_equal(order, classes) else {
        "class_order": _array_out(np.asarray(order))}
    params = model.get_params(deep=False)
    matrix = model.__dict__.get("_loss_matrix")
    if matrix is not None:  # a loss matrix is kept as fitted: K x K numbers in classes order
        params["loss"] = [float(v) for v in np.asarray(matrix).ravel()]
    return {
        "format": FORMAT,
        "version": VERSION,
        "rootwise_version": version(),
        "estimator": name,
        "params": {k: _param_out(k, v) for k, v in params.items()},
        "schema": {
            "feature_names": [str(n) for n in schema.feature_names],
            "kinds": [int(k) for k in schema.kinds],
            "categories": [None if c is None else [_scalar_out(v) for v in c]
                           for c in schema.categories],
            "names_from_input": bool(schema.names_from_input),
            **({} if schema.missing is None else {"missing": [bool(m) for m in schema.missing]}),
        },
        "classes": None if classes is None else _array_out(np.asarray(classes)),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "reports": {a: _report_out(getattr(model, a)) for a in REPORT_ATTRIBUTES if hasattr(model, a)},
        "tree": model.tree_.to_dict(),
        **extra,
    }


def _array_out(arr: np.ndarray) -> dict:
    if arr.ndim != 1:
        raise TypeError(f"cannot save a {arr.ndim}-D array; only 1-D arrays are saved.")
    return {"dtype": arr.dtype.str, "values": [_scalar_out(v) for v in arr.tolist()]}


def _report_out(v):
    """None, a record (a dataclass in REPORTS) or a list of records, as JSON."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_report_out(x) for x in v]
    name = type(v).__name__
    if REPORTS.get(name) is not type(v):
        raise TypeError(f"cannot save a fitted report of type {name}.")
    fields = {}
    for f in dataclasses.fields(v):
        x = getattr(v, f.name)
        fields[f.name] = _array_out(x) if isinstance(x, np.ndarray) else _scalar_out(x)
    return {"type": name, "fields": fields}


def _scalar_out(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": repr(v)}  # 'nan', 'inf' or '-inf'
    if isinstance(v, (str, bool, int, float)):
        return v
    raise TypeError(f"cannot save the value {v!r} of type {type(v).__name__}: labels and "
                    "categories must be strings, numbers or booleans.")


def _param_out(name: str, v):
    if v is None:
        return None
    try:
        if isinstance(v, dict):  # class_weight: JSON keys are strings, labels need not be
            return {"mapping": [[_scalar_out(k), _scalar_out(x)] for k, x in v.items()]}
        if isinstance(v, (list, tuple, np.ndarray)):
            return [_scalar_out(x) for x in np.asarray(v, dtype=object).ravel().tolist()]
        return _scalar_out(v)
    except TypeError:
        raise TypeError(f"cannot save parameter {name}={v!r}: only numbers, strings, booleans, "
                        "None, lists of them and dicts between them are saved.") from None


def _layout(obj, level: int = 0) -> str:
    if isinstance(obj, dict) and obj and level < 2:
        pad = " " * (level + 1)
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_layout(v, level + 1)}"
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * level + "}"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


# --------------------------------------------------------------------------- load


@deferring
def load(path: Path) -> Model:
    """Read a model written by ``save``. Raises FileNotFoundError for a missing file and
    ModelFileError (a ValueError) naming the file and the field for anything else wrong with it.

    Every field is checked before it is used (``model_fields``), and load never allocates more
    than a small multiple of the file's size: numpy arrays the file declares may take at most
    ALLOCATION_FACTOR bytes per byte of the file; JSON's own objects are the rest."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    size = len(raw)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ModelFileError(path, f"not a rootwise model file (not UTF-8 text: {e.reason} at "
                                   f"byte {e.start})") from None
    del raw  # the text and then the parsed document replace it: keep one of them at a time
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise ModelFileError(path, f"not a rootwise model file, or a truncated one: invalid JSON "
                                   f"({e.msg} at line {e.lineno}, column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise ModelFileError(path, f"not a rootwise model file: invalid JSON ({e})") from None
    del text
    return model_from_dict(data, source=path, size=size)


def _refuse_constant(name):
    raise ValueError(f"{name} is not allowed in a model file")


def model_from_dict(data, source: str = "<model>", size: int | None = None):
    """Estimator from a model document, after checking every field; ModelFileError if wrong.
    ``size``: the bytes of the file it was read from, which bound what loading may allocate
    (default: the length of the document written as JSON)."""
    if size is None:
        try:
            size = len(json.dumps(data, ensure_ascii=False).encode("utf-8"))
        except (TypeError, ValueError, RecursionError):
            raise ModelFileError(source, "not a model document: not plain JSON data") from None
    try:
        return _build(data, ALLOCATION_FACTOR * size)
    except FieldError as e:
        raise ModelFileError(source, str(e)) from None


def _build(data, max_bytes: int):
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise FieldError(f'not a rootwise model file (no "format": "{FORMAT}")')
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise FieldError(f"unsupported format version {describe(version)} (this rootwise reads "
                         f"version {VERSION})")
    check_keys({k: v for k, v in data.items() if k not in _OPTIONAL_TOP_KEYS}, _TOP_KEYS,
               "the model")
    written_by = data.get("rootwise_version", "")
    if "rootwise_version" in data and not (isinstance(written_by, str) and 0 < len(written_by) <= 100):
        raise FieldError(f"rootwise_version is {describe(written_by)}, not the version string of the "
                         "rootwise that wrote the file")
    name = data["estimator"]
    if not isinstance(name, str) or name not in ESTIMATORS:
        raise FieldError(f"unknown estimator {describe(name)} (this rootwise loads "
                         f"{', '.join(ESTIMATORS)})")
    model = read_params(ESTIMATORS[name], data["params"])
    schema = read_schema(data["schema"])
    classifier = is_classifier(model)
    classes = None
    if classifier:
        classes = read_classes(data["classes"], max_bytes)
    elif data["classes"] is not None:
        raise FieldError(f"classes should be null for a {name}")
    n_features = data["n_features_in"]
    if type(n_features) is not int or n_features != schema.n_features:
        raise FieldError(f"n_features_in is {describe(n_features)} but the schema has "
                         f"{schema.n_features} features")
    names_in = data["feature_names_in"]
    if names_in is not None and names_in != list(schema.feature_names):
        raise FieldError("feature_names_in disagrees with the schema's feature names")
    if (names_in is not None) != schema.names_from_input:
        raise FieldError("feature_names_in and schema.names_from_input disagree")
    reports = read_reports(data["reports"], REPORT_ATTRIBUTES, REPORTS, max_bytes)
    tree = read_tree(data["tree"], schema, classes)
    check_grown_by(model, tree, schema)

    model.tree_ = tree
    model.schema_ = schema
    if classifier:
        model.classes_ = classes
        model.n_classes_ = len(classes)
        model.class_order_ = _class_order(data.get("class_order"), classes, max_bytes)
        _read_loss(model, classes)
    elif data.get("class_order") is not None:
        raise FieldError(f"class_order should be absent for a {name}")
    model.n_features_in_ = n_features
    for attribute, report in reports.items():
        setattr(model, attribute, report)
    if names_in is not None:
        model.feature_names_in_ = np.asarray(names_in, dtype=object)
    return model


def _read_loss(model, classes: np.ndarray) -> None:
    """A CART classifier's loss matrix, saved as its K x K numbers in ``classes`` order."""
    loss = getattr(model, "loss", None)
    if loss is None:
        return
    k = len(classes)
    flat = np.asarray(loss, dtype=object).ravel()
    if len(flat) != k * k:
        raise FieldError(f"params.loss holds {len(flat)} numbers, not the {k} x {k} matrix of "
                         f"the {k} classes")
    try:
        model.loss = np.asarray(flat, dtype=np.float64).reshape(k, k).tolist()
        model._loss_matrix = check_loss(model.loss, classes, "params.loss")
    except (TypeError, ValueError) as e:
        raise FieldError(str(e)) from None


def _class_order(v, classes: np.ndarray, max_bytes: int) -> np.ndarray:
    """The tie order of the classes: ``classes`` itself when the file has none."""
    if v is None:
        return classes
    order = array(v, "class_order", "biufUO", max_bytes)
    if len(order) != len(classes):
        raise FieldError("class_order does not list the classes")
    try:
        class_priority(classes, order)
    except ValueError:
        raise FieldError("class_order does not list the classes") from None
    return order
