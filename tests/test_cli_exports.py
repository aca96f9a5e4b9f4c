"""The command line over the other exporters: show --format rules / sql / png / svg and report
(issue 12 items 2-4, the CLI side). What they draw or write is tested with the exporters; here:
the command hands the model and options through, writes its file safely, and fails in one line."""

from __future__ import annotations

import re
import sqlite3

import pytest

import rootwise
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE

# the Chinese labels need a CJK font (the plot extra brings one): a missing glyph fails the test
pytestmark = [pytest.mark.filterwarnings("error:Glyph .* missing from font"),
              pytest.mark.filterwarnings("error::rootwise.export.fonts.MissingFontWarning")]
WATERMELON = str(rootwise.datasets.path("watermelon_2_0"))
ALPHA = str(rootwise.datasets.path("watermelon_2_0_alpha"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    # the line while kernels compile for their first use (a cold numba cache) is not an error
    return code, out, err.replace("\r" + NOTICE + "\n", "")


@pytest.fixture
def melon(tmp_path, capsys):
    path = tmp_path / "melon.json"
    assert main(["fit", WATERMELON, "--target", "好瓜", "--ignore", "编号", "--algorithm", "id3",
                 "--out", str(path)]) == 0
    capsys.readouterr()
    return path


def test_rules(melon, capsys):
    code, out, err = run(capsys, "show", melon, "--format", "rules", "--decimals", "2")
    assert code == 0, err
    assert out == rootwise.export_rules(rootwise.load(melon), decimals=2).rstrip("\n") + "\n"


def test_sql_runs_in_sqlite_and_predicts(melon, capsys):
    code, out, err = run(capsys, "show", melon, "--format", "sql", "--table", "melons")
    assert code == 0, err
    frame = rootwise.datasets.load("watermelon_2_0")
    db = sqlite3.connect(":memory:")
    frame.to_sql("melons", db, index=False)
    rows = db.execute(out).fetchall()
    model = rootwise.load(melon)
    assert [r[-1] for r in rows] == list(model.predict(frame[model.feature_names_in_]))


def test_sql_of_a_fractional_c45_model_needs_a_table(tmp_path, capsys):
    model = tmp_path / "alpha.json"
    assert main(["fit", ALPHA, "--target", "好瓜", "--ignore", "编号", "--algorithm", "c4.5",
                 "--pruning", "none", "--out", str(model)]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "show", model, "--format", "sql")
    assert code == 2 and out == "" and err.startswith("rootwise: error: export_sql: ")
    assert err.count("\n") == 1
    code, out, err = run(capsys, "show", model, "--format", "sql", "--proba")
    assert code == 0 and out.count(' AS "P(') == 2


def test_pictures(melon, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    png, svg = tmp_path / "melon.png", tmp_path / "melon.svg"
    code, out, err = run(capsys, "show", melon, "--format", "png", "--out", png)
    assert code == 0 and out == "" and err == ""
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "show", melon, "--format", "svg", "--out", svg, "--show-depth", "1")
    assert code == 0, err
    text = svg.read_text(encoding="utf-8")
    # plot_tree names its edges: cut after the root's three branches, three edges remain
    assert text.count('id="edge ') == 3 and 'id="edge 0-1"' in text
    # matplotlib's SVG writes each text as a comment, then its glyphs as paths named by font and
    # glyph: every distinct Chinese character has its own glyph from a CJK font, none is the box of a
    # missing glyph (DejaVu Sans' glyph 0) or matplotlib's Last Resort font
    chinese = set(re.findall(r"[\u4e00-\u9fff]", "".join(re.findall(r"<!-- (.*?) -->", text))))
    glyphs = set(re.findall(r'<path id="([^" ]+)-([0-9a-f]+)" d=', text))
    other = {g for g in glyphs if not g[0].startswith(("DejaVuSans", "LastResort"))}
    assert len(chinese) >= 8 and len(other) == len(chinese) and ("DejaVuSans", "0") not in glyphs
    assert [n for n in tmp_path.iterdir() if n.name.endswith(".tmp")] == []
    code, _, err = run(capsys, "show", melon, "--format", "png")
    assert code == 2 and err == "rootwise: error: --format png draws a picture: give --out FILE\n"
    code, _, err = run(capsys, "show", melon, "--format", "svg", "--out", melon)
    assert code == 2 and "is an input of this command" in err


def test_report_is_the_library_page(tmp_path, capsys):
    out = tmp_path / "melon.html"
    code, stdout, err = run(capsys, "report", WATERMELON, "--target", "好瓜", "--ignore", "编号",
                            "--algorithm", "c4.5", "--title", "西瓜", "--out", out)
    assert code == 0 and stdout == "" and err == "", err
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.C45Classifier().fit(X, y)
    assert out.read_text(encoding="utf-8") == rootwise.export_html(model, X, y, title="西瓜")


def test_report_errors(tmp_path, capsys):
    code, _, err = run(capsys, "report", WATERMELON, "--target", "好瓜")
    assert code == 2 and "the following arguments are required: --out" in err
    code, _, err = run(capsys, "report", WATERMELON, "--target", "好瓜", "--out", WATERMELON)
    assert code == 2 and "is an input of this command" in err
    code, _, err = run(capsys, "show", WATERMELON.replace(".csv", ".json"), "--format", "text",
                       "--table", "t")
    assert code == 2 and "--table and --proba belong to --format sql" in err
