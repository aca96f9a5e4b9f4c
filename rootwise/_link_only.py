"""Kernels that only other kernels call are compiled once, as LLVM IR for their callers to link.

numba compiles every jitted function into a library of its own and finalizes it: the library
links in a copy of each callee's library, optimizes the whole at -O3 and generates machine code
for it. A kernel nested d calls deep is therefore optimized and turned into machine code d + 1
times, once in its own library and once in every library above it; and the machine code of a
kernel that no Python code calls (``no_cpython_wrapper=True``: about 200 of rootwise's kernels,
``tests/test_kernel_wrappers.py``) is never run: its callers run their own linked copy.

So such a kernel's library is finalized "link only": its callees are linked in as usual, but it
is neither optimized as a whole nor handed to the execution engine (no machine code); the one
library that runs, an entry kernel's (called from Python), optimizes all it links, once. The
function passes numba runs on each function as it is lowered still run, so an entry kernel's
optimizer starts from the same simplified IR. Such a kernel is not cached on disk either (numba
caches machine code): its callers' cached machine code holds it, and a process that loads them
never compiles it.

numba internals used, checked against numba 0.68.1 (``check_internals`` fails loudly on a numba
without them): ``CPUCodeLibrary.finalize`` and its ``_linking_libraries``, ``_final_module``,
``_reload_init``, ``_get_module_for_linking``, ``_finalized``; ``CPUContext.get_executable``.
"""

from __future__ import annotations

import numba
from numba.core import codegen, cpu

ROOTWISE_SYMBOL = "_ZN8rootwise"  # numba's mangled names start with the function's module path
WRAPPERS = ("_ZN7cpython", "cfunc.")  # the CPython wrapper's namespace; the cfunc wrapper's prefix


def check_internals() -> None:
    """Raise RuntimeError if this numba lacks what link-only libraries rely on."""
    needed = ((codegen.CPUCodeLibrary, "finalize"), (codegen.CPUCodeLibrary, "_get_module_for_linking"),
              (cpu.CPUContext, "get_executable"))
    missing = [name for owner, name in needed if not hasattr(owner, name)]
    if missing:
        raise RuntimeError(f"rootwise's link-only kernels need numba internals that numba "
                           f"{numba.__version__} lacks: {', '.join(missing)}")


def is_link_only(library) -> bool:
    """Whether ``library`` (not yet finalized: only its own functions) holds a rootwise kernel and
    no wrapper Python or C could call: its machine code would never run."""
    own = [f.name for f in library._final_module.functions if not f.is_declaration]
    return (any(name.startswith(ROOTWISE_SYMBOL) for name in own)
            and not any(name.startswith(WRAPPERS) for name in own))


def _finalize(self, _numba_finalize=codegen.CPUCodeLibrary.finalize):
    """CPUCodeLibrary.finalize; a link-only library is linked, not optimized nor compiled."""
    if not is_link_only(self):
        return _numba_finalize(self)
    codegen.require_global_compiler_lock()
    self._raise_if_finalized()
    seen = set()
    for library in self._linking_libraries:
        if library not in seen:
            self._reload_init.update(library._reload_init)
            seen.add(library)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
    self._rootwise_link_only = True
    self._finalized = True


def _get_executable(self, library, fndesc, env,
                    _numba_get_executable=cpu.CPUContext.get_executable):
    """CPUContext.get_executable; for a link-only library, a Python function that is never called
    (numba asks for one per compiled function), with no address in the execution engine."""
    library._ensure_finalized()  # decides whether it is link-only
    if not getattr(library, "_rootwise_link_only", False):
        return _numba_get_executable(self, library, fndesc, env)
    from numba import _dynfunc

    return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                  f"link-only kernel {fndesc.qualname!r}", 0, env, (library,))


def install() -> bool:
    """Finalize link-only libraries as such from now on; False (and numba as it is) on a numba
    without the internals."""
    try:
        check_internals()
    except RuntimeError:
        return False
    if codegen.CPUCodeLibrary.finalize is _finalize:  # installed already
        return True
    codegen.CPUCodeLibrary.finalize = _finalize
    cpu.CPUContext.get_executable = _get_executable
    return True
