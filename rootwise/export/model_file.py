"""Versioned JSON model files: save / load, exact round trip, no code execution on load.

A file is one JSON object (UTF-8, version 1)::

    {"format": "rootwise-model", "version": 1, "estimator": "ID3Classifier",
     "params": {...get_params()},
     "schema": {"feature_names": [...], "kinds": [...], "categories": [...], "names_from_input": true},
     "classes": {"dtype": "|O", "values": ["否", "是"]} (null for a regressor),
     "n_features_in": 6, "feature_names_in": [...] or null,
     "reports": {"pruning_steps_": null, "cp_table_": {"type": "CPTable", "fields": {...}}},
     "tree": {Tree.to_dict()}}

Labels, categories and parameters are JSON scalars of their own type: Python's json writes an int
without and a float always with a decimal point or exponent, so ``1``, ``1.0``, ``true`` and ``"1"``
come back as int, float, bool and str. A non-finite float is written ``{"float": "nan"}`` (JSON
has no NaN); numpy arrays carry their dtype. Loading reads JSON only, checks every field, and builds
only the classes named in ``ESTIMATORS`` and ``REPORTS``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re

import numpy as np

from .._base import check_is_fitted, is_classifier
from .._config import CATEGORICAL, CONTINUOUS, THRESHOLD
from ..estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from ..input.schema import Schema
from ..prune.cost_complexity import CPTable
from ..prune.steps import PruningStep
from ..tree import NODE_FIELDS, SURROGATE_FIELDS, Tree
from .atomic import write_atomic

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
_SCHEMA_KEYS = ("feature_names", "kinds", "categories", "names_from_input")
_TREE_KEYS = (*NODE_FIELDS, "value", "pool", "n_categories", "surrogates")
# numpy dtypes an array in a file may have (dtype.str): bool, integers, floats, unicode, object
_DTYPE = re.compile(r"[<>|=]?(b1|[iu][1248]|f[248]|U[0-9]{1,6}|O)")


class ModelFileError(ValueError):
    """A model file that rootwise cannot read: not JSON, not a model, another version, corrupt."""

    def __init__(self, path, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")

    def __reduce__(self):  # picklable (across processes) although __init__ takes two arguments
        return type(self), (self.path, self.reason)


class _Invalid(Exception):
    """A field of a model document is wrong (the message says which and how)."""


# --------------------------------------------------------------------------- save


def save(model, path) -> None:
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
    return {
        "format": FORMAT,
        "version": VERSION,
        "estimator": name,
        "params": {k: _param_out(k, v) for k, v in model.get_params(deep=False).items()},
        "schema": {
            "feature_names": [str(n) for n in schema.feature_names],
            "kinds": [int(k) for k in schema.kinds],
            "categories": [None if c is None else [_scalar_out(v) for v in c]
                           for c in schema.categories],
            "names_from_input": bool(schema.names_from_input),
        },
        "classes": None if classes is None else _array_out(np.asarray(classes)),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names_in is None else [str(n) for n in names_in],
        "reports": {a: _report_out(getattr(model, a)) for a in REPORT_ATTRIBUTES if hasattr(model, a)},
        "tree": model.tree_.to_dict(),
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
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_scalar_out(x) for x in np.asarray(v, dtype=object).ravel().tolist()]
    try:
        return _scalar_out(v)
    except TypeError:
        raise TypeError(f"cannot save parameter {name}={v!r}: only numbers, strings, booleans, "
                        "None and lists of them are saved.") from None


def _layout(obj, level: int = 0) -> str:
    if isinstance(obj, dict) and obj and level < 2:
        pad = " " * (level + 1)
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_layout(v, level + 1)}"
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * level + "}"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


# --------------------------------------------------------------------------- load


def load(path):
    """Read a model written by ``save``. Raises FileNotFoundError for a missing file and
    ModelFileError (a ValueError) naming the file for anything else wrong with it."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ModelFileError(path, f"not a rootwise model file (not UTF-8 text: {e.reason} at "
                                   f"byte {e.start})") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise ModelFileError(path, f"not a rootwise model file, or a truncated one: invalid JSON "
                                   f"({e.msg} at line {e.lineno}, column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise ModelFileError(path, f"not a rootwise model file: invalid JSON ({e})") from None
    return model_from_dict(data, source=path)


def _refuse_constant(name):
    raise ValueError(f"{name} is not allowed in a model file")


def model_from_dict(data, source: str = "<model>"):
    """Estimator from a model document, after checking every field; ModelFileError if wrong."""
    try:
        return _build(data)
    except _Invalid as e:
        raise ModelFileError(source, str(e)) from None


def _build(data):
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _Invalid(f'not a rootwise model file (no "format": "{FORMAT}")')
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise _Invalid(f"unsupported format version {_short(version)} (this rootwise reads version "
                       f"{VERSION})")
    _check_keys(data, _TOP_KEYS, "the model")
    name = data["estimator"]
    if not isinstance(name, str) or name not in ESTIMATORS:
        raise _Invalid(f"unknown estimator {_short(name)} (this rootwise loads {', '.join(ESTIMATORS)})")
    cls = ESTIMATORS[name]
    model = _estimator(cls, data["params"])
    schema = _schema(data["schema"])
    classifier = is_classifier(model)
    classes = None
    if classifier:
        classes = _array_in(data["classes"], "classes", "biufUO")
        if len(classes) == 0:
            raise _Invalid("classes is empty")
    elif data["classes"] is not None:
        raise _Invalid(f"classes should be null for a {name}")
    n_features = data["n_features_in"]
    if type(n_features) is not int or n_features != schema.n_features:
        raise _Invalid(f"n_features_in is {_short(n_features)} but the schema has "
                       f"{schema.n_features} features")
    names_in = data["feature_names_in"]
    if names_in is not None and names_in != list(schema.feature_names):
        raise _Invalid("feature_names_in disagrees with the schema's feature names")
    if (names_in is not None) != schema.names_from_input:
        raise _Invalid("feature_names_in and schema.names_from_input disagree")
    reports = data["reports"]
    if not isinstance(reports, dict) or any(k not in REPORT_ATTRIBUTES for k in reports):
        raise _Invalid(f"reports must be an object with fields among {', '.join(REPORT_ATTRIBUTES)}")
    reports = {k: _report_in(v, f"reports.{k}") for k, v in reports.items()}
    tree = _tree(data["tree"])
    _check_tree_fits(tree, schema, classes)

    model.tree_ = tree
    model.schema_ = schema
    if classifier:
        model.classes_ = classes
        model.n_classes_ = len(classes)
    model.n_features_in_ = n_features
    for attribute, report in reports.items():
        setattr(model, attribute, report)
    if names_in is not None:
        model.feature_names_in_ = np.asarray(names_in, dtype=object)
    return model


def _short(v) -> str:
    """repr of a value read from a file, cut short: a corrupt file can hold anything."""
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_keys(d, keys, what: str) -> None:
    if not isinstance(d, dict):
        raise _Invalid(f"{what} is not a JSON object")
    missing = [k for k in keys if k not in d]
    if missing:
        raise _Invalid(f"{what} has no field {missing[0]!r}")
    extra = [k for k in d if k not in keys]
    if extra:
        raise _Invalid(f"{what} has an unknown field {extra[0]!r}")


def _scalar_in(v, what: str):
    if isinstance(v, (str, bool, int, float)):
        return v
    if isinstance(v, dict) and list(v) == ["float"] and v["float"] in ("nan", "inf", "-inf"):
        return float(v["float"])
    raise _Invalid(f"{what} holds {_short(v)}, which is not a string, number or boolean")


def _list(v, what: str) -> list:
    if not isinstance(v, list):
        raise _Invalid(f"{what} is not a list")
    return v


def _estimator(cls, params):
    if not isinstance(params, dict):
        raise _Invalid("params is not a JSON object")
    accepted = cls().get_params(deep=False)
    values = {}
    for key, v in params.items():
        if key not in accepted:
            raise _Invalid(f"params: {cls.__name__} has no parameter {key!r}")
        if v is None:
            values[key] = None
        elif isinstance(v, list):
            values[key] = [_scalar_in(x, f"params.{key}") for x in v]
        else:
            values[key] = _scalar_in(v, f"params.{key}")
    model = cls(**values)
    check = getattr(model, "_check_params", None)
    if check is not None:
        try:
            check()
        except (ValueError, TypeError) as e:
            raise _Invalid(f"params: {e}") from None
    return model


def _schema(d) -> Schema:
    _check_keys(d, _SCHEMA_KEYS, "schema")
    names = _list(d["feature_names"], "schema.feature_names")
    kinds = _list(d["kinds"], "schema.kinds")
    cats = _list(d["categories"], "schema.categories")
    if not names:
        raise _Invalid("schema has no features")
    if not all(isinstance(n, str) for n in names):
        raise _Invalid("schema.feature_names holds a value that is not a string")
    if len(kinds) != len(names) or len(cats) != len(names):
        raise _Invalid(f"schema has {len(names)} feature names, {len(kinds)} kinds and "
                       f"{len(cats)} category lists")
    categories = []
    for j, (kind, c) in enumerate(zip(kinds, cats, strict=True)):
        if type(kind) is not int or kind not in (CONTINUOUS, CATEGORICAL):
            raise _Invalid(f"schema.kinds[{j}] is {_short(kind)}, not {CONTINUOUS} or {CATEGORICAL}")
        if kind == CONTINUOUS:
            if c is not None:
                raise _Invalid(f"schema.categories[{j}] should be null for a continuous feature")
            categories.append(None)
        else:
            what = f"schema.categories[{j}]"
            categories.append(tuple(_scalar_in(v, what) for v in _list(c, what)))
    if not isinstance(d["names_from_input"], bool):
        raise _Invalid("schema.names_from_input is not true or false")
    return Schema(tuple(names), tuple(kinds), tuple(categories), d["names_from_input"])


def _array_in(d, what: str, kinds: str) -> np.ndarray:
    """A 1-D array written by ``_array_out``; ``kinds``: the dtype kinds accepted here."""
    _check_keys(d, ("dtype", "values"), what)
    dtype = d["dtype"]
    if not isinstance(dtype, str) or not _DTYPE.fullmatch(dtype) or np.dtype(dtype).kind not in kinds:
        raise _Invalid(f"{what}: {_short(dtype)} is not a dtype rootwise reads here")
    dt = np.dtype(dtype)
    values = [_scalar_in(v, what) for v in _list(d["values"], f"{what}.values")]
    # each dtype takes only the Python type it was written from (bool is an int in Python)
    allowed = {"b": (bool,), "i": (int,), "u": (int,), "f": (float, int), "U": (str,),
               "O": (str, bool, int, float)}[dt.kind]
    for v in values:
        if type(v) not in allowed or (dt.kind == "U" and len(v) > dt.itemsize // 4):
            raise _Invalid(f"{what} holds {_short(v)}, which does not fit dtype {dtype!r}")
    out = np.empty(len(values), dtype=dt)
    try:
        out[:] = values
    except (OverflowError, ValueError):
        raise _Invalid(f"{what}: values do not fit dtype {dtype!r}") from None
    return out


def _report_in(v, what: str):
    if v is None:
        return None
    if isinstance(v, list):
        return [_report_in(x, f"{what}[{i}]") for i, x in enumerate(v)]
    _check_keys(v, ("type", "fields"), what)
    cls = REPORTS.get(v["type"]) if isinstance(v["type"], str) else None
    if cls is None:
        raise _Invalid(f"{what}: unknown report type {_short(v['type'])}")
    names = tuple(f.name for f in dataclasses.fields(cls))
    _check_keys(v["fields"], names, f"{what}.fields")
    values = {}
    for name in names:
        x, where = v["fields"][name], f"{what}.{name}"
        values[name] = _array_in(x, where, "biuf") if isinstance(x, dict) and "dtype" in x \
            else _scalar_in(x, where)
    return cls(**values)


def _tree(d) -> Tree:
    _check_keys(d, _TREE_KEYS, "tree")
    for name, dtype in {**NODE_FIELDS, "pool": np.int32, "n_categories": np.int64}.items():
        _check_numbers(f"tree.{name}", _list(d[name], f"tree.{name}"), dtype)
    rows = _list(d["value"], "tree.value")
    if not all(isinstance(r, list) for r in rows) or len({len(r) for r in rows}) > 1:
        raise _Invalid("corrupt tree: tree.value is not a table (a list of equally long lists)")
    _check_numbers("tree.value", [v for r in rows for v in r], np.float64, nullable=False)
    _check_keys(d["surrogates"], tuple(SURROGATE_FIELDS), "tree.surrogates")
    for name, dtype in SURROGATE_FIELDS.items():
        what = f"tree.surrogates.{name}"
        _check_numbers(what, _list(d["surrogates"][name], what), dtype)
    try:
        return Tree.from_dict(d)
    except (ValueError, TypeError, OverflowError) as e:
        raise _Invalid(f"corrupt tree: {e}") from None


def _check_numbers(what: str, values: list, dtype, nullable: bool = True) -> None:
    """Exact JSON types, so that no string or boolean is silently converted to a number; floats
    may be null (NaN)."""
    floats = np.dtype(dtype).kind == "f"
    allowed = (int, float) if floats else (int,)
    for v in values:
        if type(v) not in allowed and not (floats and nullable and v is None):
            noun = "a number" if floats else "an integer"
            raise _Invalid(f"corrupt tree: {what} holds {_short(v)}, which is not {noun}")


def _check_tree_fits(tree: Tree, schema: Schema, classes) -> None:
    """The checks ``Tree.validate`` cannot make alone: the tree against the schema and classes."""
    if len(tree.n_categories) != schema.n_features or \
            not np.array_equal(tree.n_categories, schema.n_categories):
        raise _Invalid("corrupt tree: its category counts disagree with the schema")
    kinds = schema.kinds_array
    sur = tree.surrogates
    tested = np.concatenate([tree.feature[tree.kind == THRESHOLD],
                             sur["feature"][sur["kind"] == THRESHOLD]])
    if np.any(kinds[tested] != CONTINUOUS):
        raise _Invalid("corrupt tree: a threshold test on a categorical feature")
    value = tree.value
    if not np.all(np.isfinite(value)):
        raise _Invalid("corrupt tree: a node's value is missing or infinite")
    if classes is None:
        if value.shape[1] != 1:
            raise _Invalid(f"corrupt tree: a regression tree's value has {value.shape[1]} columns")
        return
    if value.shape[1] != len(classes):
        raise _Invalid(f"corrupt tree: value has {value.shape[1]} columns for {len(classes)} classes")
    if np.any(value < 0) or np.any(value.sum(axis=1) <= 0):
        raise _Invalid("corrupt tree: a node's class counts are negative or all zero")
