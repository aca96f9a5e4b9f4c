"""The command line never destroys an input: an output that is one of the command's inputs, by any
path or link, is refused unless --force, and so is a path the kernel cannot follow (a missing
folder before '..'); every output is written whole or not at all, also when the command fails or
is interrupted halfway; a character device or a FIFO is written through, never replaced."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from test_export_atomic import Reader  # the program at the other end of a FIFO

import rootwise
from rootwise.cli import main
from rootwise.cli.first_compile import NOTICE

WATERMELON = str(rootwise.datasets.path("watermelon_2_0"))


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    # the line while kernels compile for their first use (a cold numba cache) is not an error
    return code, out, err.replace("\r" + NOTICE + "\n", "")


def temporary_files(folder) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


@pytest.fixture
def files(tmp_path, capsys):
    """A data file (a copy of watermelon 2.0) and a model fitted on it, in tmp_path."""
    data = tmp_path / "data.csv"
    data.write_bytes(open(WATERMELON, "rb").read())
    model = tmp_path / "model.json"
    assert main(["fit", str(data), "--target", "好瓜", "--ignore", "编号", "--algorithm", "id3",
                 "--out", str(model)]) == 0
    capsys.readouterr()
    return data, model


def other_paths(path):
    """Ways to name ``path`` without its own spelling: through '..', a symbolic link, a hard
    link."""
    folder = path.parent
    (folder / "sub").mkdir(exist_ok=True)
    dotted = folder / "sub" / ".." / path.name
    symlink = folder / f"link-{path.name}"
    symlink.symlink_to(path)
    hardlink = folder / f"hard-{path.name}"
    os.link(path, hardlink)
    return {"same": path, "dotted": dotted, "symlink": symlink, "hardlink": hardlink}


COMMANDS = {  # command -> (argv with {data} / {model} / {out}, the input {out} stands for)
    "fit": (["fit", "{data}", "--target", "好瓜", "--ignore", "编号", "--out", "{out}"], "data"),
    "predict data": (["predict", "{model}", "{data}", "--out", "{out}"], "data"),
    "predict model": (["predict", "{model}", "{data}", "--out", "{out}"], "model"),
    "show": (["show", "{model}", "--format", "dot", "--out", "{out}"], "model"),
    "evaluate": (["evaluate", "{model}", "{data}", "--json", "{out}"], "data"),
    "evaluate model": (["evaluate", "{model}", "{data}", "--json", "{out}"], "model"),
    "cv": (["cv", "{data}", "--target", "好瓜", "--ignore", "编号", "--folds", "2",
            "--json", "{out}"], "data"),
    "report": (["report", "{data}", "--target", "好瓜", "--out", "{out}"], "data"),
    "show png": (["show", "{model}", "--format", "png", "--out", "{out}"], "model"),
}


@pytest.mark.parametrize("way", ["same", "dotted", "symlink", "hardlink"])
@pytest.mark.parametrize("command", COMMANDS, ids=COMMANDS.keys())
def test_an_input_as_output_is_refused(command, way, files, capsys):
    data, model = files
    argv, victim = COMMANDS[command]
    target = {"data": data, "model": model}[victim]
    out = other_paths(target)[way]
    before = {p: p.read_bytes() for p in (data, model)}
    argv = [a.format(data=data, model=model, out=out) for a in argv]
    code, stdout, err = run(capsys, *argv)
    assert code == 2 and stdout == ""
    assert err.startswith("rootwise: error: ") and err.count("\n") == 1, err
    assert f"{out} is an input of this command" in err and "--force" in err
    assert {p: p.read_bytes() for p in (data, model)} == before  # nothing touched
    assert temporary_files(data.parent) == []


@pytest.mark.parametrize("command", COMMANDS, ids=COMMANDS.keys())
def test_an_input_through_a_missing_folder_is_refused(command, files, capsys):
    """'nosuchdir/../data.csv' is data.csv to os.path.realpath, and no file at all to the kernel
    (which must enter nosuchdir to leave it): refused, with --force too, and nothing touched."""
    data, model = files
    argv, victim = COMMANDS[command]
    target = {"data": data, "model": model}[victim]
    out = target.parent / "nosuchdir" / ".." / target.name
    before = {p: p.read_bytes() for p in (data, model)}
    for force in ([], ["--force"]):
        code, stdout, err = run(capsys, *[a.format(data=data, model=model, out=out) for a in argv],
                                *force)
        option = "--json" if "--json" in argv else "--out"
        assert code == 2 and stdout == ""
        assert err == (f"rootwise: error: {option} {out}: no such folder: "
                       f"{target.parent / 'nosuchdir'}\n")
        assert {p: p.read_bytes() for p in (data, model)} == before
        assert temporary_files(data.parent) == []


def test_the_relative_path_through_a_missing_folder(files, capsys, monkeypatch):
    data, _ = files
    monkeypatch.chdir(data.parent)
    before = data.read_bytes()
    code, _, err = run(capsys, "fit", "data.csv", "--target", "好瓜", "--out", "nosuchdir/../data.csv")
    assert code == 2
    assert err == "rootwise: error: --out nosuchdir/../data.csv: no such folder: nosuchdir\n"
    assert data.read_bytes() == before


def test_dots_after_a_linked_folder_go_where_the_link_leads(files, tmp_path, capsys):
    """'deep_link/../data.csv' with deep_link -> sub/deep is sub/data.csv (the kernel goes up
    from sub/deep), not the input data.csv: written there, the input untouched."""
    data, model = files
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "deep_link").symlink_to(tmp_path / "sub" / "deep")
    before = data.read_bytes()
    code, _, err = run(capsys, "predict", model, data, "--out", tmp_path / "deep_link" / ".." / "data.csv")
    assert code == 0, err
    assert data.read_bytes() == before
    assert (tmp_path / "sub" / "data.csv").read_text(encoding="utf-8").startswith("prediction\n")




def test_a_fifo_gets_the_whole_output_and_stays_a_fifo(files, tmp_path, capsys):
    data, model = files
    code, expected, _ = run(capsys, "predict", model, data, "--proba")  # the peer: stdout
    assert code == 0
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = Reader(fifo)
    reader.start()
    code, stdout, err = run(capsys, "predict", model, data, "--proba", "--out", fifo)
    reader.join(timeout=120)
    assert code == 0 and stdout == "", err
    assert reader.data.decode("utf-8") == expected and expected.count("\n") == 18
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and temporary_files(tmp_path) == []


def test_a_fifo_gets_nothing_when_the_command_fails(files, tmp_path, capsys, monkeypatch):
    data, model = files
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = Reader(fifo)
    reader.start()

    def half_then_full_disk(self, f, **kwargs):
        f.write("prediction\n是\n")
        raise OSError(28, "No space left on device", str(fifo))

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full_disk)
    code, _, err = run(capsys, "predict", model, data, "--out", fifo)
    reader.join(timeout=120)
    assert code == 2 and err == f"rootwise: error: {fifo}: No space left on device\n"
    assert reader.data == b"" and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def device_node(path, minor: int):
    """A character device in tmp_path with the numbers of /dev/null (1, 3) or /dev/full (1, 7):
    the system's own are never touched. Skipped unless this process may make and open one."""
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        with open(path, "wb"):
            pass
    except OSError as e:
        pytest.skip(f"cannot make or open a device node here: {e}")
    return path


@pytest.mark.parametrize("command", ["predict", "fit", "report", "show png", "evaluate"])
def test_a_character_device_is_written_through_never_replaced(command, files, tmp_path, capsys):
    data, model = files
    null = device_node(tmp_path / "null", 3)
    before = os.lstat(null)
    argv = {"predict": ["predict", model, data, "--out", null],
            "fit": ["fit", data, "--target", "好瓜", "--ignore", "编号", "--out", null],
            "report": ["report", data, "--target", "好瓜", "--out", null],
            "show png": ["show", model, "--format", "png", "--out", null],
            "evaluate": ["evaluate", model, data, "--json", null]}[command]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino,
                                                                            before.st_rdev)
    assert temporary_files(tmp_path) == []


def test_a_full_device_is_one_error_line(files, tmp_path, capsys):
    data, model = files
    full = device_node(tmp_path / "full", 7)
    code, stdout, err = run(capsys, "predict", model, data, "--out", full)
    assert code == 2 and stdout == ""
    assert err == f"rootwise: error: {full}: No space left on device\n"
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def test_force_replaces_an_input_atomically(files, capsys):
    data, model = files
    code, _, err = run(capsys, "predict", model, data, "--out", data, "--force")
    assert code == 0, err
    table = pd.read_csv(data)
    assert list(table.columns) == ["prediction"] and len(table) == 17
    assert temporary_files(data.parent) == []


def test_writing_through_a_symlink_keeps_the_link(files, tmp_path, capsys):
    data, model = files
    real = tmp_path / "real.csv"
    real.write_text("old\n", encoding="utf-8")
    os.chmod(real, 0o640)
    link = tmp_path / "out.csv"
    link.symlink_to(real)
    code, _, err = run(capsys, "predict", model, data, "--out", link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").startswith("prediction\n")
    assert os.stat(real).st_mode & 0o777 == 0o640  # the replaced file's permissions are kept


def test_an_error_halfway_leaves_the_old_file(files, tmp_path, capsys, monkeypatch):
    data, model = files
    out = tmp_path / "pred.csv"
    out.write_text("the previous predictions\n", encoding="utf-8")

    def half_then_full_disk(self, f, **kwargs):
        f.write("prediction\n是\n")  # some rows reach the temporary file, then the disk is full
        raise OSError(28, "No space left on device", str(out))

    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full_disk)
    code, stdout, err = run(capsys, "predict", model, data, "--out", out)
    assert code == 2 and err == f"rootwise: error: {out}: No space left on device\n"
    assert out.read_text(encoding="utf-8") == "the previous predictions\n"
    assert temporary_files(tmp_path) == []


def test_a_failed_save_leaves_the_old_model(files, capsys, monkeypatch):
    data, model = files
    before = model.read_bytes()

    def failing_disk(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_disk)  # the new model is written, then cannot be synced
    code, _, err = run(capsys, "fit", data, "--target", "好瓜", "--algorithm", "id3", "--max-depth", "1",
                       "--out", model)
    assert code == 2 and err == f"rootwise: error: {model}: Input/output error\n"
    assert model.read_bytes() == before and temporary_files(model.parent) == []


# --------------------------------------------------------------------------- interrupted


@pytest.fixture(scope="module")
def wide_predictions(tmp_path_factory):
    """A 20-class model on one column and 60,000 rows for it: ``predict --proba`` writes 21
    columns per row, about a second of writing."""
    folder = tmp_path_factory.mktemp("kill")
    rng = np.random.default_rng(0)
    x = rng.random(60_000).round(5)
    model = rootwise.CARTClassifier(pruning=None, max_depth=8).fit(
        pd.DataFrame({"x": x[:4000]}), (x[:4000] * 20).astype(int).astype(str))
    rootwise.save(model, folder / "model.json")
    pd.DataFrame({"x": x}).to_csv(folder / "rows.csv", index=False)
    return folder


def stopped(pid: int) -> bool:
    """Whether the process is stopped (SIGSTOP has taken effect), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")


def _interruptible():
    """In the child: SIGINT as at a terminal. A shell starts background jobs with SIGINT ignored,
    the child inherits that, and Python then installs no KeyboardInterrupt handler (so a test
    run in the background would see the signal ignored, not the CLI's handling of it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def freeze_mid_write(folder, out):
    """Run predict --proba --out ``out``; once its temporary file exists, stop the process
    (SIGSTOP) and return it if it is still writing (the temporary file still there), else None."""
    child = subprocess.Popen([sys.executable, "-m", "rootwise.cli", "predict",
                              str(folder / "model.json"), str(folder / "rows.csv"), "--proba",
                              "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=_interruptible)
    deadline = time.monotonic() + 120
    while not [n for n in temporary_files(folder) if n.startswith(f".{out.name}.")]:
        assert child.poll() is None, child.communicate()
        assert time.monotonic() < deadline, "the temporary file never appeared"
        time.sleep(0.002)
    child.send_signal(signal.SIGSTOP)
    while child.poll() is None and not stopped(child.pid):  # a signal takes effect a bit later
        time.sleep(0.001)
    if child.poll() is None and [n for n in temporary_files(folder) if n.startswith(f".{out.name}.")]:
        return child
    child.send_signal(signal.SIGCONT)  # it finished its write before it stopped: try again
    child.communicate(timeout=120)
    return None


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads process states in /proc")
@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)],
                         ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_a_large_write_leaves_the_old_file(sig, status, wide_predictions):
    folder = wide_predictions
    out = folder / f"pred-{sig.name}.csv"
    out.write_text("the previous predictions\n", encoding="utf-8")
    for _ in range(3):
        child = freeze_mid_write(folder, out)
        if child is not None:
            break
        out.write_text("the previous predictions\n", encoding="utf-8")
    assert child is not None, "the write never lasted long enough to be interrupted"
    try:
        # frozen mid-write: the temporary file is there and the old file untouched
        assert out.read_text(encoding="utf-8") == "the previous predictions\n"
        child.send_signal(sig)
        child.send_signal(signal.SIGCONT)
        _, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == status, err
    err = err.decode().replace("\r" + NOTICE + "\n", "")  # a cold numba cache says so first
    assert err.strip() == ("rootwise: terminated" if sig == signal.SIGTERM
                           else "rootwise: interrupted")
    assert out.read_text(encoding="utf-8") == "the previous predictions\n"
    assert temporary_files(folder) == []


@pytest.mark.parametrize("error, status", [("Terminated", 143), ("KeyboardInterrupt", 130)])
def test_an_interrupt_swallowed_during_a_command_still_stops_it(files, tmp_path, capsys,
                                                                monkeypatch, error, status):
    """A signal handler's exception that C code cleared (numpy does, inside pandas' to_csv) still
    stops the command: the handler recorded it, and the output file is not written."""
    import rootwise.cli as cli
    from rootwise.cli import predict
    from rootwise.export.atomic import record_interrupt

    data, model = files
    out = tmp_path / "pred.csv"
    write = predict.run
    raised = {"Terminated": cli.Terminated, "KeyboardInterrupt": KeyboardInterrupt}[error]

    def swallowed(args):
        record_interrupt(raised())  # what the handler does before raising; then C code clears it
        return write(args)

    monkeypatch.setattr(predict, "run", swallowed)
    code, _, err = run(capsys, "predict", model, data, "--out", out)
    assert code == status
    assert err.strip() == ("rootwise: terminated" if status == 143 else "rootwise: interrupted")
    assert not out.exists() and temporary_files(tmp_path) == []


def test_the_json_outputs_are_whole(files, tmp_path, capsys):
    data, model = files
    out = tmp_path / "scores.json"
    code, _, err = run(capsys, "evaluate", model, data, "--json", out)
    assert code == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["accuracy"] == 1.0


def test_a_closed_pipe_stops_quietly(files):
    """rootwise fit ... | head -1, when head has gone before the tree is printed: no traceback,
    no error line, status 141 (as a shell reports SIGPIPE)."""
    data, _ = files
    child = subprocess.Popen([sys.executable, "-m", "rootwise.cli", "fit", str(data), "--target",
                              "好瓜", "--ignore", "编号", "--algorithm", "id3"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the first write
    err = child.stderr.read()
    assert child.wait(timeout=120) == 141 and err == b""
