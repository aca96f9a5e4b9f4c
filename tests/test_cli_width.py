"""80 columns: the tree text wraps long tests with an indent, lines on stderr fit, and wide
tables are cut into blocks on a narrow terminal (a real pseudo-terminal) but stay whole in a
file or with --wide."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
import time
from argparse import Namespace

import numpy as np
import pandas as pd
import pytest

import rootwise
from rootwise._layout import table, width, wrap
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE
from rootwise.cli.progress import Progress, note

MELON3 = str(rootwise.datasets.path("watermelon_3_0"))
GLYPHS = set("│├└─ ")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def long_category_table(n: int = 240) -> pd.DataFrame:
    """A column of 14 long category names whose class depends on a subset of them: CART's test
    lists seven names, far wider than 80 columns."""
    rng = np.random.default_rng(5)
    names = [f"district-with-a-long-name-{i:02d}" for i in range(14)]
    place = rng.choice(names, n)
    size = rng.uniform(0, 1, n).round(3)
    good = np.isin(place, names[::2]) ^ (size > 0.8)
    return pd.DataFrame({"place": place, "size": size, "class": np.where(good, "yes", "no")})


@pytest.fixture(scope="module")
def wide_model():
    frame = long_category_table()
    return rootwise.CARTClassifier(pruning=None, max_depth=4).fit(frame[["place", "size"]],
                                                                   frame["class"])


def words(text: str) -> list[str]:
    """The words of a tree text without its guide glyphs."""
    return [w for w in text.split() if not set(w) <= GLYPHS]


def test_tree_text_wraps_with_an_indent(wide_model):
    whole = rootwise.export_text(wide_model, show_counts=True)
    assert max(map(width, whole.splitlines())) > 160  # the test needs long lines
    wrapped = rootwise.export_text(wide_model, show_counts=True, width=80)
    lines = wrapped.splitlines()
    assert max(map(width, lines)) <= 80
    assert words(wrapped) == words(whole)  # nothing lost, nothing moved
    branches = [line for line in lines if "├── " in line or "└── " in line]
    assert len(branches) == len(whole.splitlines())  # one branch line each, as before
    # a continuation starts six columns right of the text of the branch it continues (two past
    # the text of its children)
    for before, line in zip(lines, lines[1:], strict=False):
        if "── " not in line:
            text_at = max(before.find("├── "), before.find("└── ")) + 4 if "── " in before else None
            start = len(line) - len(line.lstrip("│ "))
            if text_at is not None:
                assert start == text_at + 6, (before, line)


def test_wrap_keeps_spaces_and_cuts_long_words():
    assert wrap("  a  b", 80) == ["  a  b"]
    assert wrap("x" * 50, 30, "> ", "  ") == ["> " + "x" * 28, "  " + "x" * 22]
    # a CJK character takes two columns
    assert [width(line) for line in wrap("纹理" + " 纹理" * 19, 30)] == [29, 29, 29, 9]


def test_fit_fits_80_columns_in_a_file_and_is_whole_with_wide(wide_model, tmp_path, capsys):
    data = tmp_path / "places.csv"
    long_category_table().to_csv(data, index=False)
    argv = ["fit", data, "--target", "class", "--algorithm", "cart", "--pruning", "none",
            "--max-depth", "4", "--counts"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert max(map(width, out.splitlines())) <= 80
    assert out.startswith(rootwise.export_text(wide_model, show_counts=True, width=80))
    code, out, _ = run(capsys, *argv, "--wide")
    assert code == 0 and out.startswith(rootwise.export_text(wide_model, show_counts=True))


def test_show_out_file_fits_80_columns(wide_model, tmp_path, capsys):
    model, text = tmp_path / "m.json", tmp_path / "tree.txt"
    rootwise.save(wide_model, model)
    assert main(["show", str(model), "--out", str(text)]) == 0
    assert text.read_text(encoding="utf-8") == rootwise.export_text(wide_model, width=80)
    assert main(["show", str(model), "--out", str(text), "--wide"]) == 0
    assert text.read_text(encoding="utf-8") == rootwise.export_text(wide_model)


def test_table_blocks_hold_every_cell_once():
    rows = [["attribute", *[f"column_{i}" for i in range(12)]]]
    rows += [[f"a{r}", *[f"{r * 100 + i}" for i in range(12)]] for r in range(4)]
    text = table(rows, right=set(range(1, 13)), limit=50)
    assert max(map(width, text.splitlines())) <= 50
    blocks = text.split("\n\n")
    assert len(blocks) > 1
    cells = [w for block in blocks for line in block.splitlines() for w in line.split()[1:]]
    assert sorted(cells) == sorted(c for r in rows for c in r[1:])  # each once, none cut
    assert all(block.splitlines()[0].startswith("attribute") for block in blocks)
    assert table(rows, right=set(range(1, 13))) == table(rows, right=set(range(1, 13)), limit=500)


def test_note_wraps_to_80_columns():
    stream = io.StringIO()
    note(Namespace(quiet=False), "cart-regressor, as column 'a rather long column name that "
         "goes on' holds numbers with fractions, such as 24.5 (--algorithm to choose another)",
         stream=stream)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("rootwise: ") and lines[1].startswith("  ")
    stream = io.StringIO()
    note(Namespace(quiet=True), "anything", stream=stream)
    assert stream.getvalue() == ""


# --------------------------------------------------------------------------- a real terminal


def _terminal(columns: int):
    """(master, slave) of a pseudo-terminal ``columns`` wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return master, slave


def _read_all(master: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def _on_terminal(columns: int, *argv) -> tuple[int, str, str]:
    """Run the command with its stdout on a terminal ``columns`` wide."""
    master, slave = _terminal(columns)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    env.pop("COLUMNS", None)
    child = subprocess.Popen([sys.executable, "-m", "rootwise.cli", *map(str, argv)], stdout=slave,
                             stderr=subprocess.PIPE, env=env)
    os.close(slave)
    out = _read_all(master)
    err = child.stderr.read().decode("utf-8")
    return child.wait(timeout=600), out, err.replace(NOTICE + "\n", "").replace("\r", "")


def test_explain_table_on_a_narrow_terminal(tmp_path):
    argv = ["explain", MELON3, "--target", "好瓜", "--ignore", "编号", "--algorithm", "j48"]
    X = rootwise.read_data(MELON3)
    expected = rootwise.format_table(rootwise.explain(
        X.drop(columns=["好瓜", "编号"]), X["好瓜"], rootwise.C45Classifier(release8=True)))
    assert max(map(width, expected.splitlines())) > 100  # whole, the table is wide
    code, out, err = _on_terminal(60, *argv)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert max(map(width, lines)) <= 60
    blocks = out.strip("\n").split("\n\n")
    assert len(blocks) >= 3 and all(b.split()[0] == "attribute" for b in blocks)
    # every column of the whole table is in exactly one block
    heads = [h for b in blocks for h in b.splitlines()[0].split()[1:]]
    assert heads == expected.splitlines()[0].split()[1:]
    # into a file, and with --wide on the terminal: whole
    file = tmp_path / "table.txt"
    with open(file, "w", encoding="utf-8") as f:
        done = subprocess.run([sys.executable, "-m", "rootwise.cli", *argv], stdout=f,
                              stderr=subprocess.PIPE, timeout=600)
    assert done.returncode == 0 and file.read_text(encoding="utf-8") == expected + "\n"
    code, out, _ = _on_terminal(60, *argv, "--wide")
    assert code == 0 and out == expected + "\n"


def test_tree_wraps_to_a_narrow_terminal(wide_model, tmp_path):
    model = tmp_path / "m.json"
    rootwise.save(wide_model, model)
    code, out, _ = _on_terminal(50, "show", model)
    assert code == 0 and out == rootwise.export_text(wide_model, width=50)
    assert max(map(width, out.splitlines())) <= 50
    # a wider terminal: still 80 columns; --wide: whole
    code, out, _ = _on_terminal(130, "show", model)
    assert code == 0 and out == rootwise.export_text(wide_model, width=80)
    code, out, _ = _on_terminal(130, "show", model, "--wide")
    assert code == 0 and out == rootwise.export_text(wide_model)


def test_progress_line_fits_a_narrow_terminal():
    master, slave = _terminal(40)
    stream = open(slave, "w", encoding="utf-8", closefd=True)
    message = "fitting cart-regressor on 123,456 rows x 78 cols, alpha by 10-fold CV"
    with Progress(Namespace(quiet=False), message, stream=stream, delay=0.0, every=0.05):
        time.sleep(0.3)
    stream.close()
    drawn = [part for part in _read_all(master).split("\r") if part.strip()]
    assert drawn, "the progress line was never drawn"
    assert all(width(part) <= 39 for part in drawn)  # one column short of the width
    assert all(part.startswith("rootwise: fitting cart-regressor") and part.endswith(" s)")
               for part in drawn)
    assert "…" in drawn[0]


def test_progress_message_of_fit_fits_80_columns():
    from rootwise.cli.fit import progress_message

    X = Namespace(shape=(12_345_678, 120))  # the message reads only the shape
    text = "rootwise: " + progress_message("cart-regressor", rootwise.CARTRegressor(), X) + " (999 s)"
    assert text == "rootwise: fitting cart-regressor on 12,345,678 x 120 with 10-fold CV (999 s)"
    assert len(text) <= 79
    # what chose the algorithm, when the target did
    text = progress_message("cart", rootwise.CARTClassifier(), Namespace(shape=(768, 8)), "text")
    assert text == "fitting cart (target: text) on 768 x 8 with 10-fold CV"
