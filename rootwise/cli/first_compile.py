"""The command line's side of the compile notice (``rootwise/_compile_notice.py``): a command
prints the notice's two lines while numba compiles kernels for their first use, unless run with
--quiet; ``rootwise compile`` reports its own progress instead."""

from __future__ import annotations

from rootwise._compile_notice import quiet, start_line

# the line a source install prints as its first compile starts
NOTICE = start_line(None)


def notice_while(run, args) -> int:
    """``run(args)``, with the compile notice silenced under --quiet."""
    if getattr(args, "quiet", False):
        with quiet():
            return run(args)
    return run(args)
