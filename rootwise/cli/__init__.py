"""Command line: rootwise fit | predict | show | explain | evaluate | cv | report | compile
(public API only).

    rootwise fit DATA --target COL [--ignore COL ...] [--algorithm ALG] [tree options]
                 [--out MODEL.json] [--decimals D] [--counts] [--show-depth N] [--node-ids]
    rootwise predict MODEL.json DATA [--proba] [--out FILE]
    rootwise show MODEL.json [--format text|rules|sql|dot|json|png|svg] [--out FILE]
                  [--counts] [--show-depth N] [--table NAME] [--proba]
    rootwise explain DATA --target COL [--ignore COL ...] [--algorithm ALG] [--node N]
    rootwise evaluate MODEL.json DATA [--target COL] [--json FILE]
    rootwise cv DATA --target COL [--folds K] [--random-state N] [tree options] [--json FILE]
    rootwise report DATA --target COL [tree options] --out REPORT.html [--title T]
    rootwise compile [--quiet]

DATA is a CSV, TSV, ARFF or Parquet file (by extension). ALG is id3, c4.5, j48 (C4.5 release
8), cart or cart-regressor in any case and spelling (``C4.5``, ``c45``, ``CART``); by default
(auto) the target decides as in rpart: cart-regressor for a numeric target holding a number with
a fraction or more than 10 distinct whole numbers, else cart (``rootwise.choose``), and a note on
stderr says which and why. Every estimator parameter is a tree option (``--max-depth``,
``--criterion``, ``--categorical COL ...``, ...), and one the chosen algorithm does not have is
an error. A fit that draws at random (CART's cross-validation folds, held-out validation rows)
uses seed 0 unless ``--seed`` / ``--random-state`` says otherwise, and a note names it. Lines on
stderr fit 80 columns; the tree text wraps at 80 columns (or a narrower terminal's width) and
wide tables are cut into blocks on a narrow terminal, unless ``--wide``. Each command is a module
of this package with ``add(commands)`` and ``run(args)``.

A user error prints one line starting ``rootwise: error:`` and exits with status 2 (set
ROOTWISE_DEBUG=1 to see the traceback). No output file may be one of the command's inputs
unless --force is given (compared as the file the write lands on, ``export.destination``), and
every output file is written atomically; a character device or a FIFO is written through, never
replaced. SIGINT and SIGTERM stop
a command with status 130 / 143, leaving every file as it was. While numba compiles kernels for
their first use, one line on stderr says so (``first_compile``); ``rootwise compile`` does it
ahead of time.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

import rootwise
from rootwise._interrupts import deferred
from rootwise.export.atomic import raise_recorded_interrupt, record_interrupt

from . import cv, evaluate, explain, fit, precompile, predict, report, show
from .common import Parser, UserError
from .first_compile import notice_while

COMMANDS = (fit, predict, show, explain, evaluate, cv, report, precompile)


def parser() -> Parser:
    p = Parser(prog="rootwise", description="Classic decision trees (ID3, C4.5, CART).",
               epilog="'rootwise COMMAND --help' lists a command's options and ends with an "
                      "example.")
    p.add_argument("--version", action="version", version=f"rootwise {rootwise.__version__}")
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add(commands)
    return p


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that files being written are cleaned up (a
    BaseException, like KeyboardInterrupt, so that no ``except Exception`` swallows it)."""


def _on_sigterm(signum, frame):
    error = Terminated()
    record_interrupt(error)  # C code may swallow it (``export.atomic``)
    raise error


def _on_sigint(signum, frame):
    error = KeyboardInterrupt()
    record_interrupt(error)
    raise error


@contextlib.contextmanager
def _signals_raise():
    """While the command runs, SIGTERM raises ``Terminated`` (its default would end the process
    at once, leaving a temporary file behind) and SIGINT ``KeyboardInterrupt`` (unless it is
    ignored, as in a shell's background job), each recorded so that one swallowed by C code still
    stops the command (``export.atomic.record_interrupt``). Only the main thread may set a
    handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    record_interrupt(None)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if previous_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_int)
        record_interrupt(None)


def main(argv=None) -> int:
    """Run the command line (``argv``: strings or paths; default: ``sys.argv[1:]``); returns the
    exit status."""
    if argv is not None:
        argv = [os.fspath(a) if isinstance(a, os.PathLike) else a for a in argv]
    try:
        with _signals_raise(), deferred():  # raised between kernels (``_interrupts``)
            args = parser().parse_args(argv)
            if getattr(args, "notice", True):
                status = notice_while(args.run, args)
            else:
                status = args.run(args)
            raise_recorded_interrupt()  # one that C code swallowed: the command still stops
            return status
    except SystemExit as e:  # --help and --version
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print("rootwise: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("rootwise: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:  # the reader of stdout went away (rootwise ... | head): stop quietly
        _silence_stdout()
        return 141
    except (UserError, OSError, ValueError, ImportError) as e:
        if os.environ.get("ROOTWISE_DEBUG"):
            raise
        print(f"rootwise: error: {_message(e)}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail a second time."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _message(e: Exception) -> str:
    if isinstance(e, OSError) and e.filename is not None and e.strerror:
        return f"{e.filename}: {e.strerror}"
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return "; ".join(lines) or type(e).__name__
