#!/usr/bin/env python3
"""Run Weka's J48 (C4.5 release 8) on the reference datasets and store golden files.

Standard library only; Weka itself is run with ``subprocess`` (``java -cp
/usr/share/java/weka.jar ...``). On Debian: ``apt-get install weka``.

For every dataset this writes ``tests/golden/j48/<name>.json`` (field meanings
in ``tools/weka/README.md``) and refreshes ``tests/golden/j48/data/<name>.arff``
(copied from Weka's example directory) and ``<name>.csv`` (the same data, ``?``
written as an empty cell).

What is run, per dataset (all on the ARFF copy in the repository):

* J48 with default options (``-C 0.25 -M 2``) on the whole file: printed tree,
  leaves, size, reported build time, resubstitution predictions;
* the same with ``-U`` (unpruned);
* 10-fold cross-validation with folds made here (see :func:`make_folds`), one
  J48 run per fold on ``train.arff``/``test.arff`` written from the original
  instance lines;
* for ``segment-challenge`` also train-on-challenge / test-on-``segment-test``.

Each printed tree is parsed into JSON (:func:`parse_tree_text`) and checked
against the Java source J48 emits for the same model (``-z``), which also gives
every numeric threshold at full double precision (``threshold_exact``).

Usage::

    python3 tools/weka/make_j48_golden.py [--jobs 2] [--only iris,vote] [--weka-jar PATH]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from arff_reader import ArffData, parse_arff, write_arff_subset  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "tests" / "golden" / "j48"
DATA_DIR = GOLDEN_DIR / "data"
DEFAULT_JAR = "/usr/share/java/weka.jar"
DEFAULT_SOURCE_DIR = "/usr/share/doc/weka/examples"

# name used in the golden files -> ARFF file name in Weka's example directory
DATASETS = {
    "iris": "iris.arff",
    "weather.nominal": "weather.nominal.arff",
    "weather.numeric": "weather.numeric.arff",
    "contact-lenses": "contact-lenses.arff",
    "labor": "labor.arff",
    "vote": "vote.arff",
    "breast-cancer": "breast-cancer.arff",
    "credit-g": "credit-g.arff",
    "diabetes": "diabetes.arff",
    "soybean": "soybean.arff",
    "glass": "glass.arff",
    "ionosphere": "ionosphere.arff",
    "segment-challenge": "segment-challenge.arff",
    "segment-test": "segment-test.arff",
}
# train on the key, test on the value (the UCI split of the segment data)
HOLDOUT = {"segment-challenge": "segment-test"}

PRUNED_OPTIONS = ["-C", "0.25", "-M", "2"]  # J48's defaults, spelled out
UNPRUNED_OPTIONS = ["-U", "-M", "2"]
N_FOLDS = 10
FOLD_SEED = 0
SOURCE_CLASS = "J48Golden"

FOLD_RULE = (
    "Rows are grouped by class value, in the order the class values are declared "
    "(rows whose class is missing, if any, form a last group); each group keeps file order "
    "and is then shuffled in place with one shared random.Random(0) via random.shuffle, "
    "group after group; the groups are concatenated and the row at position p of that "
    "sequence goes to fold p % 10. Fold k's test set is the rows with fold id k, its training "
    "set all other rows; both keep file order in the ARFF files given to J48."
)


class GoldenError(RuntimeError):
    """Weka's output did not look as expected."""


# --------------------------------------------------------------------------- running Weka


class Weka:
    def __init__(self, jar: str):
        self.jar = jar

    def run(self, main_class: str, args: list[str]) -> str:
        cmd = ["java", "-Djava.awt.headless=true", "-Xmx2g", "-cp", self.jar, main_class, *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0 or "Exception" in proc.stderr:
            raise GoldenError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}")
        return proc.stdout

    def j48(self, args: list[str]) -> str:
        return self.run("weka.classifiers.trees.J48", args)

    def version(self) -> str:
        return self.run("weka.core.Version", []).splitlines()[0].strip()


def java_version() -> str:
    proc = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
    return (proc.stderr or proc.stdout).splitlines()[0].strip()


# --------------------------------------------------------------------------- Weka's number formats


def weka_double_to_string(value: float, after_decimal_point: int) -> str:
    """Port of weka.core.Utils.doubleToString(double, int) (Weka 3.6).

    Multiply by 10^digits, round half up on the binary product, insert the dot,
    drop trailing zeros and a trailing dot. C45Split prints thresholds with 6.
    """
    temp = value * 10.0**after_decimal_point
    if not abs(temp) < 2**63 - 1:
        return repr(value)
    precision = int(temp + 0.5) if temp > 0 else -int(abs(temp) + 0.5)
    buf = list(str(precision))  # str(0) == "0"
    if after_decimal_point == 0:
        return "".join(buf)
    dot = len(buf) - after_decimal_point
    while (precision < 0 and dot < 1) or dot < 0:
        buf.insert(1 if precision < 0 else 0, "0")
        dot += 1
    buf.insert(dot, ".")
    if precision < 0 and buf[1] == ".":
        buf.insert(1, "0")
    elif buf[0] == ".":
        buf.insert(0, "0")
    text = "".join(buf).rstrip("0")
    return text[:-1] if text.endswith(".") else text


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


# --------------------------------------------------------------------------- J48 text output


def split_j48_output(stdout: str) -> dict:
    """Pull the tree, its counts, the build time and the evaluation blocks out of J48's output."""
    lines = stdout.splitlines()
    title = next((i for i, ln in enumerate(lines) if re.fullmatch(r"J48 (un)?pruned tree", ln.strip())), None)
    if title is None or not lines[title + 1].startswith("-----"):
        raise GoldenError("no J48 tree in output:\n" + stdout)
    end = next(i for i in range(title + 2, len(lines)) if lines[i].startswith("Number of Leaves"))
    tree_lines = lines[title + 2 : end]
    while tree_lines and not tree_lines[0].strip():
        tree_lines.pop(0)
    while tree_lines and not tree_lines[-1].strip():
        tree_lines.pop()
    out: dict = {"text": "\n".join(tree_lines)}
    options = next((ln for ln in lines[:title] if ln.startswith("Options:")), None)
    out["options_line"] = options.strip() if options else None
    m = re.search(r"^Number of Leaves\s*:\s*(\d+)\s*$", stdout, re.M)
    out["n_leaves"] = int(m.group(1))
    m = re.search(r"^Size of the tree\s*:\s*(\d+)\s*$", stdout, re.M)
    out["tree_size"] = int(m.group(1))
    m = re.search(r"^Time taken to build model:\s*(\S+) seconds\s*$", stdout, re.M)
    out["build_time_text"] = m.group(1)
    out["build_time_seconds"] = float(m.group(1))
    markers = (("training", "=== Error on training data ==="), ("test", "=== Error on test data ==="))
    for key, marker in markers:
        if marker not in stdout:
            continue
        block = stdout.split(marker, 1)[1]
        nxt = block.find("\n=== Error on")
        block = block if nxt < 0 else block[:nxt]
        correct = re.search(r"^Correctly Classified Instances\s+(\S+)", block, re.M)
        total = re.search(r"^Total Number of Instances\s+(\S+)", block, re.M)
        out[f"{key}_correct"] = _number(correct.group(1))
        out[f"{key}_total"] = _number(total.group(1))
    return out


_LEAF_RE = re.compile(r"^(?P<label>.*) \((?P<weight>[^()/]+)(?:/(?P<errors>[^()/]+))?\)$")
_NUMBER_RE = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)(?:: (?P<leaf>.*))?$")


def _parse_leaf(text: str, class_values: list[str]) -> dict | None:
    m = _LEAF_RE.match(text)
    if not m or m.group("label") not in class_values:
        return None
    try:
        weight = float(m.group("weight"))
        errors = float(m.group("errors")) if m.group("errors") is not None else 0.0
    except ValueError:
        return None
    return {"type": "leaf", "class": m.group("label"), "weight": weight, "errors": errors}


def _parse_test_line(body: str, data: ArffData, class_values: list[str]) -> dict:
    """Parse ``attr op value[: leaf]``; attribute and nominal names come from the ARFF header."""
    parses = []
    for j, att in enumerate(data.attributes[:-1]):
        if not body.startswith(att.name + " "):
            continue
        rest = body[len(att.name) + 1 :]
        for op in ("<=", ">", "="):
            if not rest.startswith(op + " "):
                continue
            remainder = rest[len(op) + 1 :]
            if att.is_nominal and op == "=":
                for v in att.values:
                    if remainder == v:
                        parses.append((j, op, v, None))
                    elif remainder.startswith(v + ": "):
                        leaf = _parse_leaf(remainder[len(v) + 2 :], class_values)
                        if leaf is not None:
                            parses.append((j, op, v, leaf))
            elif att.is_numeric and op != "=":
                m = _NUMBER_RE.match(remainder)
                if m:
                    leaf = None
                    if m.group("leaf") is not None:
                        leaf = _parse_leaf(m.group("leaf"), class_values)
                        if leaf is None:
                            continue
                    parses.append((j, op, m.group("num"), leaf))
    if len(parses) != 1:
        raise GoldenError(f"cannot parse tree line {body!r}: {len(parses)} readings")
    j, op, value, leaf = parses[0]
    return {"attribute_index": j, "op": op, "value": value, "leaf": leaf}


def parse_tree_text(text: str, data: ArffData) -> dict:
    """Turn J48's printed tree into nested dicts (see tools/weka/README.md for the layout).

    The class attribute is the last one. Every split must show all its branches
    in J48's order: ``<=`` then ``>`` for a numeric attribute, each declared
    value in declared order for a nominal one.
    """
    class_values = data.attributes[-1].values
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) == 1 and lines[0].startswith(": "):
        leaf = _parse_leaf(lines[0][2:], class_values)
        if leaf is None:
            raise GoldenError(f"cannot parse single-leaf tree {lines[0]!r}")
        return leaf
    entries = []
    for ln in lines:
        depth = 0
        while ln.startswith("|   ", 4 * depth):
            depth += 1
        entry = _parse_test_line(ln[4 * depth :], data, class_values)
        entry["depth"] = depth
        entries.append(entry)
    pos = 0

    def build(depth: int) -> dict:
        nonlocal pos
        first = entries[pos]
        j = first["attribute_index"]
        att = data.attributes[j]
        node = {"type": "split", "attribute": att.name, "attribute_index": j, "kind": att.kind}
        if att.is_numeric:
            node["threshold_text"] = first["value"]
            node["threshold"] = float(first["value"])
            node["threshold_exact"] = None  # filled in from J48's -z source
            expected = [("<=", first["value"]), (">", first["value"])]
        else:
            expected = [("=", v) for v in att.values]
        branches = []
        for op, value in expected:
            if pos >= len(entries):
                raise GoldenError(f"tree ends inside the split on {att.name}")
            e = entries[pos]
            if (e["depth"], e["attribute_index"], e["op"], e["value"]) != (depth, j, op, value):
                raise GoldenError(f"expected '{att.name} {op} {value}' at depth {depth}, got {e}")
            pos += 1
            child = e["leaf"] if e["leaf"] is not None else build(depth + 1)
            branches.append({"op": op, "value": value, "child": child})
        node["branches"] = branches
        return node

    root = build(0)
    if pos != len(entries):
        raise GoldenError(f"trailing tree lines from {entries[pos]}")
    return root


def tree_counts(node: dict) -> tuple[int, int]:
    """(leaves, nodes) of a parsed tree: J48's 'Number of Leaves' and 'Size of the tree'."""
    if node["type"] == "leaf":
        return 1, 1
    leaves, size = 0, 1
    for b in node["branches"]:
        lv, sz = tree_counts(b["child"])
        leaves += lv
        size += sz
    return leaves, size


def iter_nodes(node: dict):
    yield node
    if node["type"] == "split":
        for b in node["branches"]:
            yield from iter_nodes(b["child"])


# --------------------------------------------------------------------------- J48 -z source


NUMERIC_TEST_RE = re.compile(
    r"^\s*\} else if \(\(\(Double\) i\[(\d+)\]\)\.doubleValue\(\) (<=|>) (\S+)\) \{$"
)


def parse_source_tree(src: str) -> dict:
    """Parse the Java code ``J48 -z J48Golden`` prints into {'leaf': k} / {'att': j, 'branches': [...]}."""
    lines = src.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"class {SOURCE_CLASS} {{")
    funcs: dict[str, dict] = {}
    root = None
    current = None
    pending = None  # the branch waiting for its "p = ..." line
    target_re = re.compile(rf"^\s*p = (?:{SOURCE_CLASS}\.(\w+)\(i\)|(\d+));$")
    for ln in lines[start + 1 :]:
        if m := re.match(r"^\s*static double (\w+)\(Object \[\]i\) \{$", ln):
            current = funcs[m.group(1)] = {"att": None, "branches": []}
            pending = None
            continue
        if m := re.match(r"^\s*if \(i\[(\d+)\] == null\) \{$", ln):
            current["att"] = int(m.group(1))
            pending = {"missing": True}
            continue
        if m := NUMERIC_TEST_RE.match(ln):
            pending = {"att": int(m.group(1)), "op": m.group(2), "value": m.group(3)}
            current["branches"].append(pending)
            continue
        if m := re.match(r'^\s*\} else if \(i\[(\d+)\]\.equals\("(.*)"\)\) \{$', ln):
            pending = {"att": int(m.group(1)), "op": "=", "value": m.group(2)}
            current["branches"].append(pending)
            continue
        if m := target_re.match(ln):
            target = {"ref": m.group(1)} if m.group(1) else {"leaf": int(m.group(2))}
            if current is None:
                root = target
            elif pending is not None:
                pending["target"] = target
                pending = None
            else:
                raise GoldenError(f"unexpected line in J48 source: {ln!r}")

    def resolve(target: dict) -> dict:
        if "leaf" in target:
            return target
        f = funcs[target["ref"]]
        for b in f["branches"]:
            if b["att"] != f["att"]:
                raise GoldenError("J48 source tests two attributes in one node")
        return {"att": f["att"], "branches": [dict(b, target=resolve(b["target"])) for b in f["branches"]]}

    if root is None:
        raise GoldenError("no root in J48 source")
    return resolve(root)


def attach_exact_thresholds(node: dict, src: dict, data: ArffData) -> None:
    """Walk the parsed text tree and the -z source tree together; copy full-precision thresholds.

    Raises if the two disagree anywhere (attribute, branch order, nominal value,
    printed threshold vs. Java's double, or, for non-empty leaves, the leaf class).
    """
    if node["type"] == "leaf":
        if "leaf" not in src:
            raise GoldenError("text leaf where the J48 source splits")
        if node["weight"] > 0 and data.attributes[-1].values[src["leaf"]] != node["class"]:
            raise GoldenError(f"leaf class {node['class']} != source class index {src['leaf']}")
        return
    if src.get("att") != node["attribute_index"] or len(src["branches"]) != len(node["branches"]):
        raise GoldenError(f"split on {node['attribute']} does not match the J48 source")
    for b, sb in zip(node["branches"], src["branches"], strict=True):
        if b["op"] != sb["op"]:
            raise GoldenError(f"branch {b['op']} != source {sb['op']}")
        if node["kind"] == "numeric":
            exact = float(sb["value"])
            if weka_double_to_string(exact, 6) != node["threshold_text"]:
                raise GoldenError(f"{sb['value']} does not print as {node['threshold_text']}")
            node["threshold_exact"] = exact
        elif sb["value"] != b["value"]:
            raise GoldenError(f"nominal value {b['value']!r} != source {sb['value']!r}")
        attach_exact_thresholds(b["child"], sb["target"], data)


def check_thresholds(tree: dict, data: ArffData, rows: list[int]) -> dict:
    """Every numeric threshold must be a value of that attribute in the training rows.

    Also counts how many distinct training values print the same as the
    threshold (1 = the printed text alone pins the exact value down).
    """
    stats = {"numeric_splits": 0, "ambiguous_printed_thresholds": 0}
    for node in iter_nodes(tree):
        if node["type"] != "split" or node["kind"] != "numeric":
            continue
        stats["numeric_splits"] += 1
        j = node["attribute_index"]
        values = {float(data.rows[i][j]) for i in rows if data.rows[i][j] is not None}
        if node["threshold_exact"] not in values:
            raise GoldenError(
                f"threshold {node['threshold_exact']!r} of {node['attribute']} is no training value"
            )
        same_print = [v for v in values if weka_double_to_string(v, 6) == node["threshold_text"]]
        if len(same_print) > 1:
            stats["ambiguous_printed_thresholds"] += 1
    return stats


# --------------------------------------------------------------------------- predictions (-p 0 -distribution)


def parse_predictions(stdout: str, class_values: list[str]) -> list[dict]:
    """Rows of ``-p 0 -distribution`` output, in test-file order.

    Columns are fixed width (inst# 6, actual 10, predicted 10; labels cut to
    fit), so the predicted class is read from the '*' in the distribution and
    checked against the index printed in the 'predicted' column.
    """
    lines = stdout.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.strip().startswith("inst#"))
    out = []
    for ln in lines[head + 1 :]:
        if not ln.strip():
            continue
        inst = int(ln[:6])
        actual = re.match(r"\s*(\d+):", ln[7:17])
        predicted = re.match(r"\s*(\d+):", ln[18:28])
        rest = ln[28:].split()
        dist_text = rest[-1]
        error = rest[:-1] == ["+"]
        dist = [float(x.lstrip("*")) for x in dist_text.split(",")]
        star = [k for k, x in enumerate(dist_text.split(",")) if x.startswith("*")]
        if len(dist) != len(class_values) or len(star) != 1 or predicted is None:
            raise GoldenError(f"cannot parse prediction line {ln!r}")
        if int(predicted.group(1)) - 1 != star[0]:
            raise GoldenError(f"predicted column and '*' disagree in {ln!r}")
        actual_index = int(actual.group(1)) - 1 if actual else None
        if error != (actual_index is not None and actual_index != star[0]):
            raise GoldenError(f"error flag inconsistent in {ln!r}")
        if inst != len(out) + 1:
            raise GoldenError(f"instance numbers out of order at {ln!r}")
        out.append({"predicted": class_values[star[0]], "predicted_index": star[0], "distribution": dist})
    return out


# --------------------------------------------------------------------------- one model


def build_model(weka: Weka, data: ArffData, train: Path, options: list[str], train_rows: list[int],
                predict_on: Path | None = None, test: Path | None = None) -> dict:
    """Train J48 on ``train``; parse tree, counts and (optionally) predictions.

    ``test``: evaluate on this file too (Weka's ``-T``), giving ``test_correct``.
    ``predict_on``: file whose per-instance predictions are recorded.
    """
    eval_args = ["-T", str(test)] if test else ["-no-cv"]
    info = split_j48_output(weka.j48(["-t", str(train), *eval_args, *options]))
    tree = parse_tree_text(info["text"], data)
    leaves, size = tree_counts(tree)
    if (leaves, size) != (info["n_leaves"], info["tree_size"]):
        raise GoldenError(f"parsed tree has {leaves}/{size} leaves/nodes, J48 says "
                          f"{info['n_leaves']}/{info['tree_size']}")
    total_weight = sum(n["weight"] for n in iter_nodes(tree) if n["type"] == "leaf")
    if abs(total_weight - len(train_rows)) > 0.005 * leaves + 1e-9:
        raise GoldenError(f"leaf weights add up to {total_weight}, not {len(train_rows)}")
    src = weka.j48(["-t", str(train), "-no-cv", "-z", SOURCE_CLASS, *options])
    attach_exact_thresholds(tree, parse_source_tree(src), data)
    model = {
        "options": options,
        "options_line": info["options_line"],
        "text": info["text"],
        "parsed": tree,
        "n_leaves": info["n_leaves"],
        "tree_size": info["tree_size"],
        "build_time_seconds": info["build_time_seconds"],
        "build_time_text": info["build_time_text"],
        "training_correct": info["training_correct"],
        "training_total": info["training_total"],
    }
    if test:
        model["test_correct"] = info["test_correct"]
        model["test_total"] = info["test_total"]
    model["_threshold_stats"] = check_thresholds(tree, data, train_rows)
    if predict_on:
        preds = parse_predictions(
            weka.j48(["-t", str(train), "-T", str(predict_on), "-p", "0", "-distribution", *options]),
            data.attributes[-1].values,
        )
        model["predictions"] = [p["predicted"] for p in preds]
        model["distributions"] = [p["distribution"] for p in preds]
    return model


# --------------------------------------------------------------------------- folds


def make_folds(class_column: list[str | None], class_values: list[str], k: int = N_FOLDS,
               seed: int = FOLD_SEED) -> list[int]:
    """Stratified fold ids, one per row; the rule is FOLD_RULE."""
    rng = random.Random(seed)
    groups = [[i for i, c in enumerate(class_column) if c == v] for v in class_values]
    groups.append([i for i, c in enumerate(class_column) if c is None])
    order: list[int] = []
    for group in groups:
        rng.shuffle(group)
        order.extend(group)
    folds = [0] * len(class_column)
    for position, row in enumerate(order):
        folds[row] = position % k
    return folds


def cross_validate(weka: Weka, data: ArffData, tmp: Path) -> tuple[dict, list[dict]]:
    class_values = data.attributes[-1].values
    class_column = data.column(data.n_attributes - 1)
    folds = make_folds(class_column, class_values)
    predictions: list[str | None] = [None] * data.n_rows
    distributions: list[list[float] | None] = [None] * data.n_rows
    fold_correct, fold_total, fold_models, stats = [], [], [], []
    for k in range(N_FOLDS):
        train_rows = [i for i, f in enumerate(folds) if f != k]
        test_rows = [i for i, f in enumerate(folds) if f == k]
        train_path, test_path = tmp / f"fold{k}-train.arff", tmp / f"fold{k}-test.arff"
        write_arff_subset(data, train_rows, train_path)
        write_arff_subset(data, test_rows, test_path)
        model = build_model(weka, data, train_path, PRUNED_OPTIONS, train_rows,
                            predict_on=test_path, test=test_path)
        correct = sum(1 for i, p in zip(test_rows, model["predictions"], strict=True) if p == class_column[i])
        if correct != model["test_correct"] or len(test_rows) != model["test_total"]:
            raise GoldenError(f"fold {k}: predictions give {correct}/{len(test_rows)}, Weka says "
                              f"{model['test_correct']}/{model['test_total']}")
        for i, p, d in zip(test_rows, model.pop("predictions"), model.pop("distributions"), strict=True):
            predictions[i], distributions[i] = p, d
        stats.append(model.pop("_threshold_stats"))
        fold_correct.append(correct)
        fold_total.append(len(test_rows))
        fold_models.append(model)
    cv = {
        "n_folds": N_FOLDS,
        "seed": FOLD_SEED,
        "fold_rule": FOLD_RULE,
        "options": PRUNED_OPTIONS,
        "folds": folds,
        "fold_correct": fold_correct,
        "fold_total": fold_total,
        "correct": sum(fold_correct),
        "total": sum(fold_total),
        "accuracy": sum(fold_correct) / sum(fold_total),
        "predictions": predictions,
        "distributions": distributions,
        "fold_models": fold_models,
    }
    return cv, stats


# --------------------------------------------------------------------------- data files and summaries


def weka_summary(weka: Weka, arff: Path) -> dict:
    """What ``java weka.core.Instances file.arff`` reports (names cut to 25 characters by Weka)."""
    out = weka.run("weka.core.Instances", [str(arff)])
    summary = {
        "num_instances": int(re.search(r"^Num Instances:\s*(\d+)", out, re.M).group(1)),
        "num_attributes": int(re.search(r"^Num Attributes:\s*(\d+)", out, re.M).group(1)),
        "attributes": [],
    }
    att_re = re.compile(
        r"^\s*(\d+) (.*?)\s+(Num|Nom|Str|Dat|Rel)\s+(\d+)%\s+(\d+)%\s+(\d+)%\s+(\d+)\s*/\s*\d+%"
        r"\s+(\d+)\s*/\s*\d+%\s+(\d+)\s*$"
    )
    for ln in out.splitlines():
        if m := att_re.match(ln):
            summary["attributes"].append({
                "index": int(m.group(1)), "name": m.group(2).strip(), "type": m.group(3),
                "missing": int(m.group(7)), "unique": int(m.group(8)), "distinct": int(m.group(9)),
            })
    if len(summary["attributes"]) != summary["num_attributes"]:
        raise GoldenError(f"could not read Weka's summary of {arff}")
    return summary


def write_csv(data: ArffData, path: Path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow([a.name for a in data.attributes])
        for row in data.rows:
            writer.writerow(["" if v is None else v for v in row])


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ensure_data(name: str, source_dir: Path) -> Path:
    """Copy the ARFF from Weka's examples into the repo (if there) and write its CSV twin."""
    dest = DATA_DIR / f"{name}.arff"
    src = source_dir / DATASETS[name]
    if src.exists():
        if not dest.exists() or dest.read_bytes() != src.read_bytes():
            shutil.copyfile(src, dest)
    elif not dest.exists():
        raise GoldenError(f"{src} not found and no copy in {DATA_DIR}")
    write_csv(parse_arff(dest), DATA_DIR / f"{name}.csv")
    return dest


# --------------------------------------------------------------------------- JSON output


def dump_json(obj, indent: int = 0) -> str:
    """JSON with one key per line, but flat lists and flat dicts (leaves) kept on one line."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(obj, dict):
        if all(not isinstance(v, (dict, list)) for v in obj.values()):
            return json.dumps(obj)
        items = [f"{inner}{json.dumps(k)}: {dump_json(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(x, (dict, list)) for x in obj):
            return json.dumps(obj)
        if all(isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x) for x in obj):
            return "[\n" + ",\n".join(inner + json.dumps(x) for x in obj) + "\n" + pad + "]"
        return "[\n" + ",\n".join(inner + dump_json(x, indent + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj)


# --------------------------------------------------------------------------- per dataset


def make_golden(name: str, weka: Weka, versions: dict, source_dir: Path) -> dict:
    started = time.time()
    arff = DATA_DIR / f"{name}.arff"
    data = parse_arff(arff)

    def rel(path: Path) -> str:
        return str(path.relative_to(GOLDEN_DIR))

    all_rows = list(range(data.n_rows))
    pruned = build_model(weka, data, arff, PRUNED_OPTIONS, all_rows, predict_on=arff)
    unpruned = build_model(weka, data, arff, UNPRUNED_OPTIONS, all_rows, predict_on=arff)
    with tempfile.TemporaryDirectory(prefix=f"j48-{name}-") as tmp:
        cv, fold_stats = cross_validate(weka, data, Path(tmp))
    thr = [pruned.pop("_threshold_stats"), unpruned.pop("_threshold_stats"), *fold_stats]
    gold = {
        "dataset": name,
        "relation": data.relation,
        "arff_file": rel(arff),
        "csv_file": rel(DATA_DIR / f"{name}.csv"),
        "arff_sha256": sha256(arff),
        "source": f"Debian package weka {versions['weka']}: {source_dir / DATASETS[name]}",
        "weka_version": versions["weka"],
        "java_version": versions["java"],
        "classifier": "weka.classifiers.trees.J48",
        "options": PRUNED_OPTIONS,
        "n_instances": data.n_rows,
        "n_attributes": data.n_attributes,
        "class_attribute": data.attributes[-1].name,
        "class_values": data.attributes[-1].values,
        "attributes": [
            {"name": a.name, "kind": a.kind, **({"values": a.values} if a.is_nominal else {})}
            for a in data.attributes
        ],
        "weka_summary": weka_summary(weka, arff),
        "n_leaves": pruned["n_leaves"],
        "tree_size": pruned["tree_size"],
        "build_time_seconds": pruned["build_time_seconds"],
        "pruned_tree": pruned,
        "unpruned_tree": unpruned,
        "cv": cv,
    }
    if name in HOLDOUT:
        test_name = HOLDOUT[name]
        test_arff = DATA_DIR / f"{test_name}.arff"
        test_data = parse_arff(test_arff)
        if [(a.name, a.kind, a.values) for a in test_data.attributes] != \
                [(a.name, a.kind, a.values) for a in data.attributes]:
            raise GoldenError(f"{test_name} header differs from {name}")
        model = build_model(weka, data, arff, PRUNED_OPTIONS, all_rows, predict_on=test_arff, test=test_arff)
        model.pop("_threshold_stats")
        if model["text"] != pruned["text"]:
            raise GoldenError("holdout run built a different tree")
        truth = test_data.column(test_data.n_attributes - 1)
        correct = sum(1 for p, t in zip(model["predictions"], truth, strict=True) if p == t)
        if correct != model["test_correct"]:
            raise GoldenError(f"holdout: predictions give {correct}, Weka says {model['test_correct']}")
        gold["holdout"] = {
            "test_dataset": test_name,
            "test_arff_file": rel(test_arff),
            "options": PRUNED_OPTIONS,
            "correct": correct,
            "total": len(truth),
            "accuracy": correct / len(truth),
            "predictions": model["predictions"],
            "distributions": model["distributions"],
        }
    out = GOLDEN_DIR / f"{name}.json"
    out.write_text(dump_json(gold) + "\n", encoding="utf-8")
    numeric = sum(s["numeric_splits"] for s in thr)
    ambiguous = sum(s["ambiguous_printed_thresholds"] for s in thr)
    return {
        "dataset": name, "rows": data.n_rows, "attributes": data.n_attributes,
        "leaves": pruned["n_leaves"], "size": pruned["tree_size"],
        "unpruned": f"{unpruned['n_leaves']}/{unpruned['tree_size']}",
        "cv": cv["accuracy"], "build": pruned["build_time_text"],
        "numeric_splits": numeric, "ambiguous": ambiguous,
        "holdout": gold.get("holdout", {}).get("accuracy"),
        "seconds": time.time() - started,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weka-jar", default=DEFAULT_JAR)
    ap.add_argument("--source-dir", default=DEFAULT_SOURCE_DIR, help="Weka's example ARFF directory")
    ap.add_argument("--only", default="", help="comma-separated dataset names (default: all)")
    ap.add_argument("--jobs", type=int, default=2, help="datasets processed in parallel")
    args = ap.parse_args(argv)
    if shutil.which("java") is None or not Path(args.weka_jar).exists():
        print("needs java and Weka: apt-get install weka", file=sys.stderr)
        return 2
    names = [n for n in args.only.split(",") if n] or list(DATASETS)
    unknown = set(names) - set(DATASETS)
    if unknown:
        print(f"unknown datasets: {sorted(unknown)}", file=sys.stderr)
        return 2
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    weka = Weka(args.weka_jar)
    versions = {"weka": weka.version(), "java": java_version()}
    source_dir = Path(args.source_dir)
    for name in sorted(set(names) | {HOLDOUT[n] for n in names if n in HOLDOUT}):
        ensure_data(name, source_dir)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda n: make_golden(n, weka, versions, source_dir), names))
    print(f"Weka {versions['weka']}, {versions['java']}")
    print(f"{'dataset':18s} {'rows':>5s} {'atts':>4s} {'leaves':>6s} {'size':>4s} {'unpruned':>9s} "
          f"{'cv acc':>7s} {'build s':>7s} {'num.splits':>10s} {'ambig.':>6s}")
    for r in results:
        extra = f"  holdout {r['holdout']:.4f}" if r["holdout"] is not None else ""
        print(f"{r['dataset']:18s} {r['rows']:5d} {r['attributes']:4d} {r['leaves']:6d} {r['size']:4d} "
              f"{r['unpruned']:>9s} {r['cv']:7.4f} {r['build']:>7s} {r['numeric_splits']:10d} "
              f"{r['ambiguous']:6d}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
