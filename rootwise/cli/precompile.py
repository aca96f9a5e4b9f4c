"""rootwise compile: compile every kernel into numba's on-disk cache ahead of first use."""

from __future__ import annotations

import sys

from .common import UserError, add_command, add_quiet

EXAMPLE = "rootwise compile        # e.g. in a Dockerfile, after pip install rootwise"


def add(commands) -> None:
    p = add_command(commands, "compile", help="compile every kernel ahead of first use",
                    example=EXAMPLE,
                    description="Compile every numba kernel rootwise uses into numba's on-disk "
                                "cache, so that no later process compiles (for container images "
                                "and CI), in one process per core. The cache goes where numba "
                                "puts it: NUMBA_CACHE_DIR when set, else beside the installed "
                                "package when writable, else a per-user directory. Prints how "
                                "many kernels it compiled (0: the cache was full already).")
    p.add_argument("--processes", type=int, default=None, metavar="N",
                   help="compile in at most N processes at once (default: one per core)")
    add_quiet(p)
    p.set_defaults(run=run, notice=False)


def run(args) -> int:
    from rootwise.precompile import compile_kernels

    if args.processes is not None and args.processes < 1:
        raise UserError(f"--processes must be at least 1, got {args.processes}")

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"rootwise: compiling: {message}", file=sys.stderr, flush=True)

    report = compile_kernels(progress, processes=args.processes)
    n = report["processes"]
    print(f"compiled {report['compiled']} kernels in {report['seconds']:.1f} s "
          f"({n} process{'es' if n > 1 else ''}); cache: " + ", ".join(report["cache"]))
    return 0
