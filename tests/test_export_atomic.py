"""export/atomic.py: a file is replaced whole or not at all; same_file sees through links."""

from __future__ import annotations

import os

import pytest

import rootwise
from rootwise.export.atomic import open_atomic, record_interrupt, same_file, write_atomic


def leftovers(folder) -> list[str]:
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


def test_write_creates_and_replaces(tmp_path):
    path = tmp_path / "a.txt"
    write_atomic(path, "一\n")
    assert path.read_bytes() == "一\n".encode()
    write_atomic(path, b"\x00\x01")
    assert path.read_bytes() == b"\x00\x01" and leftovers(tmp_path) == []


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt(), SystemExit(143)])
def test_an_exception_in_the_block_keeps_the_old_file(tmp_path, error):
    path = tmp_path / "a.txt"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(type(error)):
        with open_atomic(path) as f:
            f.write("new, half written")
            f.flush()
            assert len(leftovers(tmp_path)) == 1  # the new text is in a temporary file
            raise error
    assert path.read_text(encoding="utf-8") == "old" and leftovers(tmp_path) == []


def test_an_interrupt_that_c_code_swallowed_still_keeps_the_old_file(tmp_path):
    """A signal handler's exception can be cleared by C code that catches errors (numpy's dtype
    comparison, inside pandas' to_csv); the handler records it and the file is not replaced."""
    path = tmp_path / "a.txt"
    path.write_text("old", encoding="utf-8")
    try:
        with pytest.raises(KeyboardInterrupt):
            with open_atomic(path) as f:
                f.write("new")
                record_interrupt(KeyboardInterrupt())  # raised by a handler, then swallowed
    finally:
        record_interrupt(None)
    assert path.read_text(encoding="utf-8") == "old" and leftovers(tmp_path) == []
    write_atomic(path, "new")  # forgotten: the next write goes through
    assert path.read_text(encoding="utf-8") == "new"


def test_a_folder_or_a_missing_folder_is_an_os_error_naming_the_path(tmp_path):
    with pytest.raises(IsADirectoryError) as e:
        write_atomic(tmp_path, "x")
    assert e.value.filename == str(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        write_atomic(tmp_path / "no" / "a.txt", "x")
    assert e.value.filename == str(tmp_path / "no" / "a.txt")


def test_same_file(tmp_path):
    a = tmp_path / "a"
    a.write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(a)
    os.link(a, tmp_path / "hard")
    (tmp_path / "b").write_text("x", encoding="utf-8")  # same content, another file
    assert same_file(a, a) and same_file(a, tmp_path / "link") and same_file(tmp_path / "hard", a)
    assert same_file(a, tmp_path / "." / "a")
    assert not same_file(a, tmp_path / "b") and not same_file(a, tmp_path / "missing")


def test_save_writes_through_a_symlink(tmp_path):
    X, y = rootwise.datasets.load_watermelon_2_0(return_X_y=True)
    model = rootwise.ID3Classifier(max_depth=1).fit(X, y)
    real = tmp_path / "real.json"
    real.write_text("{}", encoding="utf-8")
    link = tmp_path / "model.json"
    link.symlink_to(real)
    rootwise.save(model, link)
    assert link.is_symlink() and rootwise.load(real).tree_ == model.tree_
    assert leftovers(tmp_path) == []


def test_an_interrupt_right_after_the_temporary_file_is_made(tmp_path, monkeypatch):
    """A signal handler's exception can come just after os.open has made the file, before its
    descriptor is stored (the window the kill test of test_cli_safety once hit)."""
    from rootwise.export import atomic

    path = tmp_path / "a.txt"
    path.write_text("old", encoding="utf-8")
    real_open = os.open

    def open_then_interrupted(*args, **kwargs):
        real_open(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "open", open_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "new")
    assert path.read_text(encoding="utf-8") == "old" and leftovers(tmp_path) == []


def test_someone_elses_file_with_the_temporary_name_is_left_alone(tmp_path, monkeypatch):
    from rootwise.export import atomic

    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: "f" * (2 * n))
    theirs = tmp_path / f".a.txt.{'f' * 12}.tmp"
    theirs.write_text("not ours", encoding="utf-8")
    with pytest.raises(FileExistsError) as e:
        write_atomic(tmp_path / "a.txt", "new")
    assert e.value.filename == str(tmp_path / "a.txt")
    assert theirs.read_text(encoding="utf-8") == "not ours" and not (tmp_path / "a.txt").exists()
