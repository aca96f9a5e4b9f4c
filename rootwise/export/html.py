"""The interactive report: one self-contained HTML page (``export_html``) and the notebook view of a
fitted model (``notebook_html``, its ``_repr_html_``).

The page needs no network: its script and styles are inline (``report.js``, ``report.css``, shipped
with rootwise), the tree is inline SVG, and a Content-Security-Policy forbids loading anything. The
tree is drawn whole in the markup, so it shows even where scripts do not run; the script makes it
collapsible (the button under a split folds its subtree away, and the tree is laid out again)
and shows, for the node clicked, its path of tests, its class distribution and, when the training
data is given, the textbook table of the node (``rootwise.explain``). Below the tree is the
pruning record (``report_pruning``).
"""

from __future__ import annotations

import json
import uuid
from html import escape
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from .._base import check_is_fitted
from .layout import text_width
from .picture import EDGE_LABEL_H, H_GAP, V_GAP, tree_picture
from .report_nodes import DEFAULT_MAX_TABLES, attribute_tables, node_records
from .report_pruning import pruning_record
from .svg import EM, MARGIN, tree_svg
from .text import TreeView, label

if TYPE_CHECKING:
    from .._typing import Labels, Model, Table

DEFAULT_MAX_NODES = 1000  # nodes drawn; deeper levels are cut with a note
OPEN_NODES = 150  # the tree opens showing at most this many nodes; the rest are folded


def export_html(model: Model, X: Table | None = None, y: Labels | None = None, *, title: str | None = None,
                decimals: int = 3, max_depth: int | None = None, max_nodes: int = DEFAULT_MAX_NODES,
                max_tables: int = DEFAULT_MAX_TABLES, show_missing: str = "auto") -> str:
    """The report of a fitted model as one self-contained HTML page (a string; write it to a
    ``.html`` file and open it in a browser).

    X, y: the model's training data; with them, clicking a node also shows its attribute table
    (``rootwise.explain(X, y, model, node=k)``: entropy, gain, rho, IV, gain ratio, Gini of every
    candidate attribute, the chosen one marked) for up to ``max_tables`` nodes, those nearest the
    root first. Classification trees only: a regression tree's nodes show value and spread.
    title: the page's heading (default: the model's class name). max_depth, max_nodes: as
    ``plot_tree``'s, for trees too big to draw whole (the cut is said on the page). show_missing:
    "auto" (default) shows missing-value routing and surrogates only for columns that had missing
    cells in training, "all" for every split. The tree opens fitted to the pane's width with its
    root in view; the toolbar zooms (Ctrl + wheel too) and dragging the background pans."""
    check_is_fitted(model, ["tree_", "schema_"])
    if (X is None) != (y is None):
        raise ValueError("export_html needs both X and y (the model's training data, for each "
                         "node's attribute table), or neither.")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}.")
    if isinstance(max_tables, bool) or not isinstance(max_tables, (int, np.integer)) or max_tables < 0:
        raise ValueError(f"max_tables must be an integer >= 0, got {max_tables!r}.")
    view = TreeView(model, decimals, show_missing)
    pic = tree_picture(model, max_depth=max_depth, decimals=decimals, max_nodes=max_nodes,
                       legend_band=False, show_missing=show_missing)
    data = _data(model, view, pic)
    notes = []
    if X is not None:
        if view.classes is None:
            notes.append("Attribute tables are shown for classification trees only.")
        else:
            data["tables"], note = attribute_tables(model, X, y, pic.order, int(max_tables), decimals)
            if note:
                notes.append(note)
    else:
        data["hint"] = ("Give the training data, rootwise.export_html(model, X, y), to see the "
                        "textbook table of each node here.")
    record, estimates = pruning_record(model, view, pic.order)
    if estimates is not None:
        data["estimates"] = estimates
    heading = title if title is not None else f"{type(model).__name__}: decision tree report"
    body = _widget(model, pic, data, "rw-report", heading, notes,
                   f'<section class="rw-pruning"><h2>Pruning record</h2>{record}</section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{escape(heading)}</title><style>{_asset('report.css')}</style></head>"
            f"<body>{body}</body></html>\n")


def notebook_html(model, show_missing: str = "auto") -> str:
    """A fitted model in a notebook: its summary and the collapsible tree, without data."""
    check_is_fitted(model, ["tree_", "schema_"])
    view = TreeView(model, show_missing=show_missing)
    pic = tree_picture(model, max_nodes=DEFAULT_MAX_NODES, legend_band=False,
                       show_missing=show_missing)
    data = _data(model, view, pic)
    data["hint"] = ("rootwise.export_html(model, X, y) writes a report that also shows the "
                    "textbook table of each node and the pruning record.")
    # a random id: outputs of an earlier kernel session stay on the notebook's page
    widget = _widget(model, pic, data, f"rw-{uuid.uuid4().hex[:12]}", type(model).__name__, [], "")
    return f"<div class=\"rw-notebook\"><style>{_asset('report.css')}</style>{widget}</div>"


def _data(model, view: TreeView, pic) -> dict:
    """What the script needs: the drawn nodes, the class colours and the layout's constants."""
    depth = model.tree_.depth
    drawn = np.sort(depth[pic.order])
    open_depth = int(depth.max()) + 1
    if len(drawn) > OPEN_NODES:  # fold the levels below the deepest that keeps it small
        open_depth = max(int(drawn[OPEN_NODES]) - 1, 1)
    note_width = text_width(pic.note) + 1 if pic.note else 0.0  # the svg is never narrower
    return {
        "nodes": node_records(view, pic),
        "classes": [] if view.classes is None else [label(c) for c in view.classes],
        "colours": [colour for _, colour in pic.legend],
        "openDepth": open_depth,
        "layout": {"hGap": H_GAP * EM, "vGap": V_GAP * EM, "top": pic.top * EM, "margin": MARGIN,
                   "labelOffset": (EDGE_LABEL_H / 2 + 0.15) * EM, "minWidth": note_width * EM},
    }


def _widget(model, pic, data: dict, element_id: str, heading: str, notes: list[str],
            extra: str) -> str:
    payload = (json.dumps(data, ensure_ascii=False, separators=(",", ":"))
               .replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))
    legend = "".join(f'<span class="rw-key"><span class="rw-swatch" style="background:{c}"></span>'
                     f"{escape(name)}</span>" for name, c in pic.legend)
    note_html = "".join(f'<p class="rw-note-line">{escape(n)}</p>' for n in notes)
    return (f'<div class="rootwise-report" id="{element_id}">'
            f"<header><h1>{escape(heading)}</h1>{summary_html(model)}</header>{note_html}"
            '<div class="rw-main"><div class="rw-tree-pane"><div class="rw-toolbar">'
            '<button type="button" class="rw-expand">Expand all</button>'
            '<button type="button" class="rw-collapse">Collapse all</button>'
            '<span class="rw-zoom"><button type="button" class="rw-zoom-out" title="Zoom out">'
            '−</button><span class="rw-zoom-level"></span><button type="button" '
            'class="rw-zoom-in" title="Zoom in">+</button><button type="button" class="rw-fit" '
            'title="The whole width, the root in view">Fit</button></span>'
            f'{_legend_html(legend, len(pic.legend))}</div>'
            f'<div class="rw-scroll">{tree_svg(pic)}</div></div>'
            '<aside class="rw-details" aria-live="polite"><p class="rw-help">Click a node to see '
            "its path of tests and its class distribution. The button under a split folds its "
            f"subtree away.</p></aside></div>{extra}"
            f'<script type="application/json" class="rw-data">{payload}</script>'
            f"<script>{_asset('report.js')}\nrootwiseReport(document.getElementById("
            f'"{element_id}"));</script></div>')


def _legend_html(keys: str, n: int) -> str:
    """The class colours; folded behind "n classes" on a narrow screen (the script closes it)."""
    if not n:
        return ""
    return (f'<details class="rw-legend-box" open><summary>{n} class{"es" if n != 1 else ""}'
            f'</summary><span class="rw-legend">{keys}</span></details>')


def summary_html(model) -> str:
    """The model in a few lines: parameters, training data, classes, size, pruning."""
    tree = model.tree_
    schema = model.schema_
    items = [("model", repr(model)),
             ("training data", f"{int(tree.n_node_samples[0])} rows (weight "
                               f"{float(tree.weighted_n_node_samples[0]):g}), "
                               f"{len(schema.feature_names)} features")]
    classes = getattr(model, "classes_", None)
    if classes is None:
        items.append(("target", "regression (leaves hold the mean)"))
    else:
        items.append(("classes", ", ".join(label(c) for c in classes)))
    items.append(("tree", f"{_count(tree.node_count, 'node')}, {_count(tree.n_leaves, 'leaf', 'leaves')}, "
                          f"depth {tree.max_depth}"))
    items.append(("pruning", repr(getattr(model, "pruning", None))))
    return '<dl class="rw-summary">' + "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items) + "</dl>"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
