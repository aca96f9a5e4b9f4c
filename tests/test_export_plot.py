"""plot_tree and plot_cp: what is drawn, read back from the artists of a rendered figure.

Each figure is rendered to PNG, then its artists are read by their gids ("node k", "title k",
"text k", "edge p-c", "label c", "bar k", "share k i"): every node's words, the boxes' places on the
page (no two overlap, the text inside its box), the edges joining parent and child, the proportion
bars. The expected trees are the seeds' (watermelon 2.0, figure 4.4 of seed 000; seed 001's loan
table) and small hand-made ones.

The textbook's labels are Chinese: every test here fails on a matplotlib "Glyph ... missing"
warning, and the font tests check which font file each character is taken from and that distinct
characters are drawn as distinct pictures (a missing glyph is the same box whatever the character),
once more in a fresh virtualenv that sees no system CJK font, only the ``plot`` extra's.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import textwrap
import warnings

import matplotlib

matplotlib.use("Agg")  # no display: before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hand_trees import chain_model  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

import rootwise  # noqa: E402
from rootwise import datasets  # noqa: E402
from rootwise._config import LEAF  # noqa: E402
from rootwise.export import fonts  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error:Glyph .* missing from font")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


class Drawing:
    """The artists of one rendered tree plot, by what they draw (display coordinates)."""

    def __init__(self, ax):
        fig = ax.figure
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80)
        assert buf.getvalue().startswith(b"\x89PNG")
        renderer = fig.canvas.get_renderer()
        self.ax = ax
        self.box, self.title, self.text, self.label, self.edge = {}, {}, {}, {}, {}
        self.text_extent, self.label_extent, self.patch, self.shares = {}, {}, {}, {}
        for p in ax.patches:
            kind, _, rest = (p.get_gid() or "").partition(" ")
            if kind == "node":
                self.box[int(rest)] = p.get_window_extent(renderer)
                self.patch[int(rest)] = p
            elif kind == "share":
                node, _ = rest.split()
                self.shares.setdefault(int(node), []).append(p)
            elif kind == "bar":
                self.shares.setdefault(int(rest), [])
        for t in ax.texts:
            kind, _, rest = (t.get_gid() or "").partition(" ")
            if kind in ("title", "text", "label"):
                getattr(self, kind)[int(rest)] = t.get_text()
                extents = self.label_extent if kind == "label" else self.text_extent
                extents.setdefault(int(rest), []).append(t.get_window_extent(renderer))
        for line in ax.lines:
            kind, _, rest = (line.get_gid() or "").partition(" ")
            if kind == "edge":
                p, c = map(int, rest.split("-"))
                self.edge[(p, c)] = ax.transData.transform(np.column_stack(line.get_data()))

    def lines(self, node: int) -> list[str]:
        return self.text.get(node, "").split("\n")


def overlap(a, b, slack=0.5) -> bool:
    return a.x0 + slack < b.x1 and b.x0 + slack < a.x1 and a.y0 + slack < b.y1 and b.y0 + slack < a.y1


def inside(inner, outer, slack=1.0) -> bool:
    return (inner.x0 >= outer.x0 - slack and inner.x1 <= outer.x1 + slack
            and inner.y0 >= outer.y0 - slack and inner.y1 <= outer.y1 + slack)


def check_layout(d: Drawing, tree) -> None:
    """Boxes apart, words inside their boxes, labels clear of boxes and of each other, and every
    edge running from the bottom middle of the parent's box to the top middle of the child's."""
    for a, b in itertools.combinations(d.box, 2):
        assert not overlap(d.box[a], d.box[b]), (a, b)
    for node, extents in d.text_extent.items():
        for e in extents:
            assert inside(e, d.box[node]), node
    labels = [e for extents in d.label_extent.values() for e in extents]
    for a, b in itertools.combinations(labels, 2):
        assert not overlap(a, b)
    for e in labels:
        assert not any(overlap(e, box) for box in d.box.values())
    for (p, c), ends in d.edge.items():
        assert tree.parent[c] == p
        top, bottom = d.box[p], d.box[c]
        # y grows upwards in display coordinates: the parent's bottom is its y0
        assert ends[0] == pytest.approx([(top.x0 + top.x1) / 2, top.y0], abs=1.5)
        assert ends[1] == pytest.approx([(bottom.x0 + bottom.x1) / 2, bottom.y1], abs=1.5)


# --------------------------------------------------------------------------- the seeds' trees


@pytest.fixture(scope="module")
def melon_id3():
    X, y = datasets.load_watermelon_2_0(return_X_y=True)
    return rootwise.ID3Classifier().fit(X, y)


# seed 000's figure 4.4 in the model's node numbers (children numbered together, depth first):
# node -> (title, branch label above it)
MELON = {0: ("纹理", None), 1: ("根蒂", "清晰"), 2: ("触感", "稍糊"), 3: ("否", "模糊"),
         4: ("是", "蜷缩"), 5: ("色泽", "稍蜷"), 6: ("否", "硬挺"), 7: ("是", "青绿"),
         8: ("触感", "乌黑"), 9: ("是", "浅白"), 10: ("是", "硬滑"), 11: ("否", "软粘"),
         12: ("否", "硬滑"), 13: ("是", "软粘")}


def test_watermelon_id3_every_node_its_words_and_edges(melon_id3):
    tree = melon_id3.tree_
    d = Drawing(rootwise.plot_tree(melon_id3))
    assert set(d.box) == set(range(14))
    assert {n: d.title[n] for n in MELON} == {n: t for n, (t, _) in MELON.items()}
    assert {c: d.label[c] for c in d.label} == {n: lab for n, (_, lab) in MELON.items() if lab}
    assert set(d.edge) == {(int(tree.parent[c]), c) for c in range(1, 14)}
    # 8 good melons (是) and 9 bad (否) at the root; 纹理 = 清晰 holds 7 good and 2 bad
    assert d.lines(0) == ["n = 17", "否: 9 · 是: 8"]
    assert d.lines(1) == ["n = 9", "否: 2 · 是: 7"]
    assert d.lines(4) == ["n = 5", "是: 5"]
    # 色泽 = 浅白 under 根蒂 = 稍蜷 holds no melon: it takes its parent's class (seed 000, case 3)
    assert d.lines(9) == ["n = 0 · empty branch", "(bar: parent's counts)"]
    assert d.patch[9].get_linestyle() == "--" and d.patch[4].get_linestyle() == "-"
    check_layout(d, tree)


def test_proportion_bars_and_class_colours(melon_id3):
    d = Drawing(rootwise.plot_tree(melon_id3))
    legend = {t.get_text(): h.get_facecolor() for t, h in
              zip(d.ax.get_legend().get_texts(), d.ax.get_legend().legend_handles, strict=True)}
    assert list(legend) == ["否", "是"]
    # the root's bar: 9/17 否 then 8/17 是, in the classes' colours
    bar = [p for p in d.ax.patches if p.get_gid() == "bar 0"][0]
    shares = d.shares[0]
    assert [s.get_width() / bar.get_width() for s in shares] == pytest.approx([9 / 17, 8 / 17])
    assert [s.get_facecolor() for s in shares] == [legend["否"], legend["是"]]
    # a pure leaf is tinted with its class's colour: nearer it than the other class's
    for node, cls in ((3, "否"), (4, "是")):
        fill = np.array(d.patch[node].get_facecolor()[:3])
        other = "是" if cls == "否" else "否"
        assert (np.abs(fill - legend[cls][:3]).sum() < np.abs(fill - legend[other][:3]).sum())
    # the purer node is the more strongly tinted (further from white)
    root_tint = 3 - sum(d.patch[0].get_facecolor()[:3])
    assert 3 - sum(d.patch[3].get_facecolor()[:3]) > root_tint


def test_c45_fractional_counts_and_missing_routing():
    X, y = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    model = rootwise.C45Classifier(pruning=None).fit(X, y)
    d = Drawing(rootwise.plot_tree(model))
    assert d.title[0] == "纹理" and [d.label[c] for c in (1, 2, 3)] == ["清晰", "稍糊", "模糊"]
    # 纹理 is known on 15 rows, 7 of them 清晰; the 2 rows missing it go down every branch with
    # weight 7/15 here (seed 000 §4.2): n = 7 + 14/15 = 7.933
    assert d.lines(1)[0] == "n = 7.933"
    assert "missing: every branch (r_v)" in d.lines(0)
    assert all("missing: every branch (r_v)" in d.lines(n) for n in range(9) if model.tree_.kind[n])
    check_layout(d, model.tree_)


def test_cart_subsets_thresholds_surrogates(loan_default):
    X, y = loan_default
    model = rootwise.CARTClassifier(pruning=None).fit(X, y)
    plain = Drawing(rootwise.plot_tree(model))  # no missing cell in training: no words on them
    assert not any("missing" in t for t in plain.label.values())
    assert not any("surrogate" in s for n in plain.title for s in plain.lines(n))
    d = Drawing(rootwise.plot_tree(model, show_missing="all"))
    # seed 001: the root splits 婚姻状况 {已婚} | {单身, 离婚}; rows missing it go with the larger
    # side, and 年收入 is its surrogate
    assert d.title[0] == "婚姻状况"
    assert sorted(d.label[c] for c in (1, 2)) == ["in {单身, 离婚} or missing", "in {已婚}"]
    assert "surrogate: 年收入" in d.lines(0)
    thresholds = [d.label[c] for c in d.label if d.label[c].lstrip("<=> ").startswith("77.5")]
    assert sorted(thresholds) == ["<= 77.5", "> 77.5 or missing"]
    check_layout(d, model.tree_)


def test_regression_tree_values_and_colours():
    X = np.arange(1.0, 7.0).reshape(-1, 1)
    y = np.array([1.0, 1.0, 1.0, 10.0, 10.0, 10.0])
    model = rootwise.CARTRegressor(pruning=None).fit(X, y)
    d = Drawing(rootwise.plot_tree(model))
    assert d.title == {0: "x0", 1: "1", 2: "10"}
    assert d.label == {1: "<= 3.5", 2: "> 3.5"}
    assert d.lines(0) == ["n = 6", "mean = 5.5"]
    assert d.lines(1) == ["n = 3 · sd = 0"] and d.lines(2) == ["n = 3 · sd = 0"]
    # the bar says where the value lies between the lowest and the highest leaf
    widths = {n: sum(p.get_width() for p in d.shares.get(n, [])) for n in (0, 1, 2)}
    bar = [p for p in d.ax.patches if p.get_gid() == "bar 2"][0].get_width()
    assert widths[1] == 0 and widths[2] == pytest.approx(bar)
    assert sum(d.patch[2].get_facecolor()[:3]) < sum(d.patch[0].get_facecolor()[:3]) < \
        sum(d.patch[1].get_facecolor()[:3])  # darker for higher values
    check_layout(d, model.tree_)


# --------------------------------------------------------------------------- big and deep trees


def descendants(tree, node: int) -> int:
    count, stack = 0, list(tree.children(node))
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(tree.children(n))
    return count


@pytest.fixture(scope="module")
def digits_tree():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return rootwise.CARTClassifier(pruning=None).fit(X, y)


def test_max_depth_cuts_with_counts_and_no_overlap(digits_tree):
    tree = digits_tree.tree_
    d = Drawing(rootwise.plot_tree(digits_tree, max_depth=3))
    assert set(d.box) == set(np.flatnonzero(tree.depth <= 3).tolist())
    for node in d.box:
        if tree.depth[node] == 3 and tree.kind[node] != LEAF:
            assert d.lines(node)[-1] == f"+{descendants(tree, node)} nodes below"
    assert {c for _, c in d.edge} == {n for n in d.box if n}
    check_layout(d, tree)


def test_a_tree_too_big_is_cut_with_a_note(digits_tree):
    tree = digits_tree.tree_
    per_level = np.cumsum(np.bincount(tree.depth))
    fits = int(np.flatnonzero(per_level <= 30)[-1])  # the deepest level within 30 boxes
    ax = rootwise.plot_tree(digits_tree, max_nodes=30)
    d = Drawing(ax)
    assert set(d.box) == set(np.flatnonzero(tree.depth <= fits).tolist())
    note = [t.get_text() for t in ax.texts if t.get_gid() == "note"]
    hidden = int(np.count_nonzero((tree.kind == LEAF) & (tree.depth > fits)))
    assert note == [f"Showing {fits + 1} of {tree.max_depth + 1} levels of the tree: "
                    f"{tree.max_depth - fits} levels and {hidden} leaves are hidden (boxes "
                    f"\"+k nodes below\").\nmax_depth=k draws k levels; node=n the subtree below "
                    f"node n (node_ids=True)."]


def test_very_deep_tree_is_drawn_without_recursion():
    model = chain_model(10_000)
    ax = rootwise.plot_tree(model, max_nodes=101, figsize=(60, 60))  # legible: all 51 levels
    drawn = {int(p.get_gid().split()[1]) for p in ax.patches if (p.get_gid() or "").startswith("node ")}
    assert drawn == set(range(101))  # depths 0..50: two nodes a level below the root
    note = [t.get_text() for t in ax.texts if t.get_gid() == "note"][0]
    assert note.startswith("Showing 51 of 10001 levels of the tree: 9950 levels and 9951 leaves "
                           "are hidden")
    texts = {t.get_gid(): t.get_text() for t in ax.texts}
    assert texts["text 100"].endswith(f"+{20000 - 100} nodes below")


# --------------------------------------------------------------------------- options and errors


def test_drawn_into_given_axes_with_the_font_scaled_to_fit(melon_id3):
    fig, (left, right) = plt.subplots(1, 2, figsize=(24, 6))
    ax = rootwise.plot_tree(melon_id3, ax=right, node_ids=True)
    assert ax is right and not left.patches
    d = Drawing(ax)
    assert d.title[0] == "[0] 纹理" and d.title[8] == "[8] 触感"
    check_layout(d, melon_id3.tree_)


def _font(ax) -> float:
    return next(t.get_fontsize() for t in ax.texts if (t.get_gid() or "").startswith("title"))


def test_fontsize_and_figsize_are_honoured(melon_id3):
    small, large = rootwise.plot_tree(melon_id3), rootwise.plot_tree(melon_id3, fontsize=12)
    assert _font(small) == 9 and _font(large) == 12
    w9, w12 = small.figure.get_size_inches()[0], large.figure.get_size_inches()[0]
    assert w12 == pytest.approx(w9 * 12 / 9)  # the figure grows with the text
    ax = rootwise.plot_tree(melon_id3, figsize=(30, 8))
    assert tuple(ax.figure.get_size_inches()) == (30, 8) and _font(ax) == 9
    ax = rootwise.plot_tree(melon_id3, figsize=(30, 8), fontsize=14)
    assert 8 <= _font(ax) <= 14


def test_a_real_tree_too_wide_to_read_shows_its_top_levels_and_says_what_is_hidden():
    """C4.5 on soybean (Weka's example; 19 classes, about 60 leaves): at 9 points in 20 inches
    only the top levels fit; the note names the hidden levels and leaves and the way to them."""
    frame = pd.read_csv(pathlib.Path(__file__).parent / "golden" / "j48" / "data" / "soybean.csv",
                        keep_default_na=False, na_values=[""])
    model = rootwise.C45Classifier().fit(frame.drop(columns="class"), frame["class"])
    tree = model.tree_
    ax = rootwise.plot_tree(model)
    assert _font(ax) >= 8 and ax.figure.get_size_inches()[0] <= 20
    d = Drawing(ax)
    shown = max(int(tree.depth[n]) for n in d.box) + 1
    assert 1 < shown < tree.max_depth + 1
    hidden = int(np.count_nonzero((tree.kind == LEAF) & (tree.depth >= shown)))
    note = next(t for t in ax.texts if t.get_gid() == "note")
    assert note.get_text().startswith(f"Showing {shown} of {tree.max_depth + 1} levels of the "
                                      f"tree: {tree.max_depth + 1 - shown} levels and {hidden} "
                                      f"leaves are hidden")
    assert "max_depth=" in note.get_text() and "node=" in note.get_text()
    assert note.get_fontsize() >= 8  # as large as the boxes' text, not a footnote
    # node=: the subtree below a cut node, its nodes only, drawn from its top
    cut = next(n for n in d.box if d.lines(n)[-1].endswith("nodes below"))
    sub = Drawing(rootwise.plot_tree(model, node=cut, max_depth=1))
    assert set(sub.box) == {cut, *tree.children(cut)}
    with pytest.raises(ValueError, match="node must be a node number from 0 to"):
        rootwise.plot_tree(model, node=tree.node_count)


def test_bad_input_gets_clear_errors(melon_id3, monkeypatch):
    with pytest.raises(NotFittedError):
        rootwise.plot_tree(rootwise.ID3Classifier())
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="max_depth"):
            rootwise.plot_tree(melon_id3, max_depth=bad)
    with pytest.raises(ValueError, match="max_nodes"):
        rootwise.plot_tree(melon_id3, max_nodes=0)
    with pytest.raises(ValueError, match="decimals"):
        rootwise.plot_tree(melon_id3, decimals=-1)
    with pytest.raises(ValueError, match="fontsize must be a positive number, got 0"):
        rootwise.plot_tree(melon_id3, fontsize=0)
    with pytest.raises(ValueError, match=r"figsize must be \(width, height\) in inches"):
        rootwise.plot_tree(melon_id3, figsize=12)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"pip install rootwise\[plot\]"):
        rootwise.plot_tree(melon_id3)


# --------------------------------------------------------------------------- plot_cp


def test_plot_cp_draws_rpart_plotcp():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    model = rootwise.CARTClassifier(random_state=0).fit(X, y)
    table = model.cp_table_
    ax = model.plot_cp()
    by_gid = {c.get_gid(): c for c in ax.get_children() if c.get_gid()}
    # simplest subtree first: CV error and one standard error either way
    order = np.argsort(table.n_leaves, kind="stable")
    points = ax.containers[0]
    x, y_drawn = points.lines[0].get_data()
    assert list(x) == list(range(len(order)))
    assert np.allclose(y_drawn, table.cv_error[order])
    bars = points.lines[2][0].get_segments()
    assert np.allclose([s[:, 1] for s in bars],
                       np.column_stack([table.cv_error - table.cv_std_error,
                                        table.cv_error + table.cv_std_error])[order])
    # the dashed line: the lowest CV error plus its own standard error
    best = int(np.argmin(table.cv_error))
    line = table.cv_error[best] + table.cv_std_error[best]
    assert by_gid["1-SE line"].get_ydata()[0] == pytest.approx(line)
    # 1-SE rule: the simplest subtree under the line is ringed
    under = [i for i in range(len(order)) if table.cv_error[order[i]] <= line]
    chosen_x, chosen_y = by_gid["chosen"].get_data()
    assert chosen_x[0] == under[0] and chosen_y[0] == table.cv_error[order[under[0]]]
    assert [t.get_text() for t in ax.get_xticklabels()][0] == f"{table.alpha[order[0]]:.3g}"
    buf = io.BytesIO()
    ax.figure.savefig(buf, format="png")


def test_plot_cp_needs_a_cp_table():
    X = np.arange(8.0).reshape(-1, 1)
    y = np.arange(8.0)
    with pytest.raises(NotFittedError):
        rootwise.CARTRegressor().plot_cp()
    for model in (rootwise.CARTRegressor(pruning=None), rootwise.CARTRegressor(ccp_alpha=0.1)):
        with pytest.raises(ValueError, match="no cp_table_.*ccp_alpha='cv-1se'"):
            model.fit(X, y).plot_cp()


# --------------------------------------------------------------------------- fonts

CJK_TEXT = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def fonts_used(text) -> dict[str, str]:
    """Each character of a Text artist -> the font file matplotlib takes it from: the first in the
    artist's family list whose face has a glyph for it ("" if none has)."""
    from matplotlib import font_manager, ft2font

    paths = font_manager.fontManager._find_fonts_by_props(text.get_fontproperties())
    faces = [(str(p), ft2font.FT2Font(str(p), face_index=getattr(p, "face_index", 0))) for p in paths]
    return {ch: next((path for path, face in faces if face.get_char_index(ord(ch))), "")
            for ch in text.get_text() if not ch.isspace()}


def glyph_picture(ch: str, prop) -> np.ndarray:
    """``ch`` alone, drawn large with these font properties: the dark pixels."""
    fig = plt.figure(figsize=(0.6, 0.6), dpi=100)
    fig.text(0.5, 0.5, ch, ha="center", va="center", fontproperties=prop.copy(), fontsize=30)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return plt.imread(io.BytesIO(buf.getvalue()))[..., :3].mean(axis=-1) < 0.5


def real_glyphs(text) -> bool:
    """The artist's characters are drawn as themselves: two distinct characters give distinct
    pictures, and none is the picture DejaVu Sans alone gives (its box for a missing glyph)."""
    from matplotlib.font_manager import FontProperties

    chars = sorted(set(CJK_TEXT.findall(text.get_text())))
    assert len(chars) >= 2, text.get_text()
    pictures = [glyph_picture(ch, text.get_fontproperties()) for ch in chars[:2]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        box = glyph_picture(chars[0], FontProperties(family="DejaVu Sans"))
    differ = [(a != b).sum() / max(a.sum(), b.sum()) for a, b in
              [(pictures[0], pictures[1]), (pictures[0], box), (pictures[1], box)]]
    return min(differ) > 0.2 and all(p.sum() > 20 for p in pictures)


def test_chinese_labels_are_drawn_with_glyphs(melon_id3, loan_default):
    X, y = loan_default
    for model in (melon_id3, rootwise.CARTClassifier(pruning=None).fit(X, y)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ax = rootwise.plot_tree(model)
            Drawing(ax)  # rendered
        assert [str(w.message) for w in caught] == []
        texts = [t for t in ax.texts + ax.get_legend().get_texts() if CJK_TEXT.search(t.get_text())]
        assert len(texts) > 10
        for t in texts:
            used = fonts_used(t)
            cjk = {used[ch] for ch in CJK_TEXT.findall(t.get_text())}
            assert "" not in cjk and not any("LastResort" in p or "DejaVu" in p for p in cjk), used
            latin = {used[ch] for ch in t.get_text() if ch.isascii() and not ch.isspace()}
            assert all("DejaVuSans" in p for p in latin), used  # Latin stays in DejaVu Sans
    title = next(t for t in ax.texts if t.get_gid() == "title 0")
    assert real_glyphs(title)


def test_latin_greek_cyrillic_keep_the_default_font():
    assert fonts.family_for(["Gain ρ = 14/17", "≤ 0.382 · α β γ", "Ωμέγα", "Кириллица", "n = 8.5…"]) is None
    chain = fonts.family_for(["纹理 = 清晰", "한국어", "ひらがな"])  # one CJK font has all three
    assert chain is not None and chain[0] == "DejaVu Sans" and len(chain) == 2


@pytest.fixture
def no_cjk_font(monkeypatch):
    """matplotlib as on a machine with no font for 西 and without the plot extra's font."""
    from matplotlib import font_manager, ft2font

    manager = font_manager.fontManager

    def covers(entry) -> bool:
        face = ft2font.FT2Font(entry.fname, face_index=getattr(entry, "index", 0))
        return face.get_char_index(ord("西")) != 0

    monkeypatch.setattr(manager, "ttflist", [f for f in manager.ttflist if not covers(f)])
    monkeypatch.setattr(fonts, "packaged_font", lambda: None)
    manager._findfont_cached.cache_clear()
    font_manager._get_font.cache_clear()
    yield
    monkeypatch.undo()
    manager._findfont_cached.cache_clear()
    font_manager._get_font.cache_clear()


def test_one_warning_naming_the_script_when_no_font_has_it(melon_id3, no_cjk_font):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = rootwise.plot_tree(melon_id3)
        ax.figure.savefig(io.BytesIO(), format="png")
        ax.figure.savefig(io.BytesIO(), format="svg")
    assert len(caught) == 1, [str(w.message) for w in caught]
    w = caught[0]
    assert w.category is fonts.MissingFontWarning and w.filename == __file__
    message = str(w.message)
    # the first eight in the order of the labels (titles first), then how many more
    more = len(set(CJK_TEXT.findall("".join(t.get_text() for t in ax.texts)))) - 8
    assert f"(CJK (Chinese, Japanese, Korean): 纹理根蒂触感否是 and {more} more)" in message
    assert "pip install 'rootwise[plot]'" in message and "fonts-noto-cjk" in message


def test_other_scripts_are_named_too():
    with pytest.warns(fonts.MissingFontWarning) as caught:
        fonts.family_for(["\U00013000 \U00013001"])  # Egyptian hieroglyphs: no font here has them
    assert "(Egyptian: \U00013000\U00013001)" in str(caught[0].message)
    assert "Install a font that covers them" in str(caught[0].message)


def test_plot_cp_of_a_chinese_table_warns_nothing(loan_default):
    X, y = datasets.load_watermelon_2_0_alpha(return_X_y=True)
    model = rootwise.CARTClassifier(random_state=0).fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = model.plot_cp()
        ax.set_title("西瓜数据集 2.0α")  # a user's own Chinese title, after plot_cp chose the fonts
        ax.title.set_fontfamily(fonts.family_for([ax.get_title()]))
        ax.figure.savefig(io.BytesIO(), format="png")
    assert [str(w.message) for w in caught] == []
    assert real_glyphs(ax.title)


FRESH = textwrap.dedent("""
    import json, os, sys, warnings
    warnings.simplefilter("always")
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import font_manager, ft2font
    import noto_cjk_sans_otc

    packaged = os.path.realpath(str(noto_cjk_sans_otc.FONT_PATH))
    manager = font_manager.fontManager
    def covers(f):
        return ft2font.FT2Font(f.fname, face_index=getattr(f, "index", 0)).get_char_index(ord("西"))
    # a machine without CJK fonts: hide the system's (the packaged one is not in the list yet)
    hidden = sorted({f.fname for f in manager.ttflist if covers(f)})
    manager.ttflist = [f for f in manager.ttflist if not covers(f)]
    manager._findfont_cached.cache_clear()

    import rootwise
    from rootwise.cli import main

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = rootwise.plot_tree(rootwise.load(sys.argv[1]))
        ax.figure.savefig(sys.argv[2] + ".png")
        code = main(["show", sys.argv[1], "--format", "svg", "--out", sys.argv[2] + ".svg"])
    texts = [t for t in ax.texts if t.get_text()]
    used = {}
    for t in texts:
        paths = manager._find_fonts_by_props(t.get_fontproperties())
        faces = [(os.path.realpath(str(p)), ft2font.FT2Font(str(p), face_index=getattr(p, "face_index", 0)))
                 for p in paths]
        for ch in t.get_text():
            used[ch] = next((p for p, face in faces if face.get_char_index(ord(ch))), "")
    print(json.dumps({"warnings": [str(w.message) for w in caught], "hidden": hidden, "code": code,
                      "used": used, "packaged": packaged, "home": os.path.expanduser("~"),
                      "rootwise": rootwise.__file__, "config": matplotlib.get_configdir()}))
""")


def test_fresh_virtualenv_draws_the_textbook_tree(melon_id3, tmp_path):
    """A new virtualenv whose only CJK font is the plot extra's: python -m venv, the test
    environment's packages on its path (no network), a new empty HOME and matplotlib config."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    source = pathlib.Path(rootwise.__file__).resolve().parent.parent
    # the source (rootwise, with its compiled kernels' cache) and this environment's packages:
    # the .pth files of the added folder (such as an editable install's) are not read
    pathlib.Path(site, "outer.pth").write_text(f"{source}\n{sysconfig.get_path('purelib')}\n")
    model = tmp_path / "melon.json"
    rootwise.save(melon_id3, model)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "MPLCONFIGDIR": str(home / "mpl"), "LANG": "C.UTF-8"}
    run = subprocess.run([python, "-c", FRESH, str(model), str(tmp_path / "melon")], env=env,
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["warnings"] == [] and out["code"] == 0, out["warnings"]
    assert out["home"] == str(home) and out["config"] == str(home / "mpl")
    assert pathlib.Path(out["rootwise"]).resolve().parent.parent == source
    chinese = {ch: path for ch, path in out["used"].items() if CJK_TEXT.match(ch)}
    assert len(chinese) > 20 and set(chinese.values()) == {out["packaged"]}
    assert all("DejaVuSans" in path for ch, path in out["used"].items() if ch.isascii() and not ch.isspace())
    assert (tmp_path / "melon.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the SVG's glyphs are paths named by font and glyph: Noto's, and no missing-glyph box
    svg = (tmp_path / "melon.svg").read_text(encoding="utf-8")
    glyphs = set(re.findall(r'id="([A-Za-z-]+)-([0-9a-f]+)"', svg))
    assert {g for g in glyphs if g[0].startswith("NotoSansCJK")} and ("DejaVuSans", "0") not in glyphs
    assert not any(g[0].startswith("LastResort") for g in glyphs)
