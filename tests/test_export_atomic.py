"""export/atomic.py: a file is replaced whole or not at all, a character device or a FIFO written
through and never replaced; export/destination.py: a path resolves where the kernel would write
(missing folders, '..', symbolic and hard links), for the check and for the write alike."""

from __future__ import annotations

import errno
import os
import socket
import stat
import threading

import pytest

import rootwise
from rootwise.export import atomic
from rootwise.export.atomic import open_atomic, record_interrupt, same_file, write_atomic
from rootwise.export.destination import resolve


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
    (tmp_path / "sub").mkdir()
    (tmp_path / "b").write_text("x", encoding="utf-8")  # same content, another file
    assert same_file(a, a) and same_file(tmp_path / "link", a) and same_file(tmp_path / "hard", a)
    assert same_file(tmp_path / "." / "a", a) and same_file(tmp_path / "sub" / ".." / "a", a)
    assert not same_file(a, tmp_path / "b") and not same_file(tmp_path / "missing", a)
    # the path that realpath turns into 'a' names no file at all: not writable, not "another file"
    with pytest.raises(FileNotFoundError, match="no such folder"):
        same_file(tmp_path / "nosuchdir" / ".." / "a", a)


def kernel_lands_on(path):
    """The kernel's own answer, the reference: (device, inode) of the file that opening ``path``
    for writing reaches or creates (following a dangling link to the file it names), and whether
    it had to create it; None when the kernel refuses the path."""
    try:
        existed = os.path.exists(path)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError:
        return None
    st = os.fstat(fd)
    os.close(fd)
    return (st.st_dev, st.st_ino), not existed


@pytest.fixture
def maze(tmp_path, monkeypatch):
    """Folders, files and links to name files by every kind of detour (relative to tmp_path)."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("sub/deep")
    for name in ("a.txt", "sub/b.txt", "sub/deep/c.txt"):
        with open(name, "w", encoding="utf-8") as f:
            f.write("old")
    os.symlink("sub/deep", "to_deep")  # a link to a folder: '..' after it goes to sub, not here
    os.symlink("a.txt", "to_a")
    os.symlink("to_a", "to_to_a")
    os.symlink("new_by_link.txt", "dangling")  # a write makes new_by_link.txt
    os.symlink("sub/deep/../new2.txt", "dangling_dots")
    os.symlink("nosuchdir/x.txt", "dangling_nowhere")
    os.symlink("../a.txt", "sub/up_link")
    os.link("a.txt", "hard_a")
    return tmp_path


DETOURS = ["a.txt", "./a.txt", "sub/../a.txt", "nosuchdir/../a.txt", "sub/nosuchdir/../b.txt",
           "a.txt/../a.txt", "to_deep/../b.txt", "to_deep/../../a.txt", "to_deep/c.txt",
           "to_a", "to_to_a", "hard_a", "sub/up_link", "dangling", "dangling_dots",
           "dangling_nowhere", "new.txt", "sub/deep/../new3.txt", "nosuchdir/new.txt",
           "to_deep/../nosuchdir/../b.txt", "sub/b.txt/"]


@pytest.mark.parametrize("path", DETOURS)
def test_resolve_lands_where_the_kernel_writes(maze, path):
    expected = kernel_lands_on(path)  # the reference, found before resolve sees the maze
    if expected is not None:
        identity, created = expected
        if created:  # resolve must name the file the kernel would make: remove it first
            os.unlink(os.path.realpath(path))
    try:
        dest = resolve(path)
    except OSError as e:
        assert expected is None, f"resolve refused {path}, the kernel writes there: {e}"
        assert e.filename == path
        return
    assert expected is not None, f"resolve accepts {path}, which the kernel refuses"
    identity, created = expected
    assert not dest.stream
    if created:
        assert dest.identity is None and not os.path.lexists(dest.target)
        fd = os.open(dest.target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.close(fd)
        # the kernel now reaches the file resolve named (it creates nothing new)
        assert kernel_lands_on(path)[1] is False
        assert os.path.samefile(path, dest.target)
    else:
        assert dest.identity == identity
        st = os.stat(dest.target)
        assert (st.st_dev, st.st_ino) == identity


def test_a_missing_folder_on_the_way_is_named_and_nothing_is_written(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("old", encoding="utf-8")
    path = tmp_path / "nosuchdir" / ".." / "a.txt"  # realpath says a.txt; the kernel: no file
    with pytest.raises(FileNotFoundError) as e:
        write_atomic(path, "new")
    assert e.value.filename == str(path)
    assert e.value.strerror == f"no such folder: {tmp_path / 'nosuchdir'}"
    assert a.read_text(encoding="utf-8") == "old" and leftovers(tmp_path) == []
    with pytest.raises(NotADirectoryError):  # a file is no folder to go up from
        write_atomic(tmp_path / "a.txt" / ".." / "a.txt", "new")
    assert a.read_text(encoding="utf-8") == "old"


def test_a_symlink_loop_is_an_error_naming_the_path(tmp_path):
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    with pytest.raises(OSError) as e:
        write_atomic(tmp_path / "loop_a", "x")
    assert e.value.errno == errno.ELOOP and e.value.filename == str(tmp_path / "loop_a")


# --------------------------------------------------------------------------- streams


class Reader(threading.Thread):
    """Reads a FIFO to its end in a thread, as the program at the other end would."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.data = path, None

    def run(self):
        with open(self.path, "rb") as f:
            self.data = f.read()


@pytest.mark.parametrize("size", [10, 3 * 2**20])
def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path, monkeypatch, size):
    monkeypatch.setattr(atomic, "_STREAM_MEMORY", 2**20)  # the larger output spills to disk
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    payload = bytes(range(256)) * (size // 256 + 1)
    reader = Reader(fifo)
    reader.start()
    write_atomic(fifo, payload)
    reader.join(timeout=60)
    assert reader.data == payload
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []


def test_a_fifo_reader_gets_nothing_when_the_write_fails(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = Reader(fifo)
    reader.start()
    with pytest.raises(RuntimeError):
        with open_atomic(fifo) as f:
            f.write("prediction\n是\n")  # half the table, then the command fails
            raise RuntimeError("boom")
    reader.join(timeout=60)
    assert reader.data == b""  # end of file at once, never a truncated table
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []


def test_a_fifo_named_through_a_symlink(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "out.csv").symlink_to(fifo)
    reader = Reader(fifo)
    reader.start()
    write_atomic(tmp_path / "out.csv", "一\n")
    reader.join(timeout=60)
    assert reader.data == "一\n".encode()
    assert (tmp_path / "out.csv").is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def char_device(path, minor: int):
    """A character device node in tmp_path with the numbers of /dev/null (1, 3) or /dev/full
    (1, 7), so that the test never touches the system's own; skipped unless root may make one."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        with open(path, "wb") as f:  # a file system mounted nodev refuses to open it
            f.write(b"")
    except OSError as e:
        pytest.skip(f"cannot make or open a device node here: {e}")
    return path


def test_a_character_device_is_written_through_and_never_replaced(tmp_path):
    null = char_device(tmp_path / "null", 3)
    before = os.lstat(null)
    write_atomic(null, "x" * 10_000)
    rootwise.save(rootwise.ID3Classifier(max_depth=1).fit(
        *rootwise.datasets.load_watermelon_2_0(return_X_y=True)), null)
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino and leftovers(tmp_path) == []
    # a device read and written (a terminal as /dev/stdin and /dev/stdout) loses nothing
    assert resolve(null).stream and not same_file(null, null)


def test_a_full_device_is_an_error_naming_the_path(tmp_path):
    full = char_device(tmp_path / "full", 7)
    with pytest.raises(OSError) as e:
        write_atomic(full, "x" * 100_000)
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(full)
    assert stat.S_ISCHR(os.lstat(full).st_mode) and leftovers(tmp_path) == []


def test_a_socket_or_a_folder_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OSError) as e:
            write_atomic(path, "x")
    finally:
        server.close()
    assert e.value.filename == str(path)
    assert e.value.strerror.startswith("a socket; rootwise writes regular files")
    assert stat.S_ISSOCK(os.lstat(path).st_mode) and leftovers(tmp_path) == []
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path / "sub" / "..", "x")


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
