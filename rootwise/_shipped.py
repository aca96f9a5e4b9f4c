"""Kernels shipped precompiled in the wheel: a read-only layer in front of numba's own cache.

A wheel built by ``make wheel`` carries in ``rootwise/_kernels/`` the cache files numba itself
writes (an index ``.nbi`` and data ``.nbc`` per kernel), compiled for the generic CPU of the
build's platform (``NUMBA_CPU_NAME=generic``: no instruction beyond the platform's baseline), and
a ``manifest.json`` saying for what they were built. A kernel is looked up there first; anything
not found there goes to numba's own cache and, failing that, compiles as before.

The layer is used only where its code is exactly valid:

* the manifest's numba version, Python version and target triple are this process's, and the
  manifest's fingerprint of every kernel source (``_jit.fingerprint``) is the installed
  sources' (numba itself re-validates a kernel against its own file only, not the files of the
  kernels it calls);
* numba's index then checks its own version and the kernel's source file hash, and each entry is
  keyed by the signature and the function's bytecode.

The lookup asks for the generic CPU whatever CPU this process compiles for, so a process whose
own numba code ran first (numba's CPU is then fixed to the host's), one with ``NUMBA_CACHE_DIR``
set, or one whose package folder is read-only all find the shipped kernels.

numba internals used, checked against numba 0.68.1 (``check_internals`` fails loudly on a numba
that no longer has them): ``Dispatcher.enable_caching``, ``caching.FunctionCache`` (``_impl``,
``_cache_file``, ``_cache_path``, ``_index_key``, ``_load_overload``) and
``caching.IndexDataCacheFile``, ``caching._CacheLocator.get_suitable_cache_subpath``.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from pathlib import Path

import numba
from numba.core import caching, dispatcher

PACKAGE = Path(__file__).resolve().parent
SHIPPED = PACKAGE / "_kernels"
MANIFEST = SHIPPED / "manifest.json"
# Set (to 1) while ``make wheel`` fills SHIPPED, in a process with NUMBA_CPU_NAME=generic.
BUILD_VARIABLE = "ROOTWISE_SHIP_KERNELS"
# Set to 0 to ignore the shipped kernels (everything compiles as in a source install).
SWITCH_VARIABLE = "ROOTWISE_PRECOMPILED"
GENERIC_CPU = ("generic", "")  # numba's (CPU name, features) for NUMBA_CPU_NAME=generic


def check_internals() -> None:
    """Raise RuntimeError if this numba lacks what the layer relies on."""
    missing = [name for owner, name in (
        (dispatcher.Dispatcher, "enable_caching"), (caching.FunctionCache, "_index_key"),
        (caching.FunctionCache, "_load_overload"), (caching, "IndexDataCacheFile"),
        (getattr(caching, "_CacheLocator", None), "get_suitable_cache_subpath"))
        if not hasattr(owner, name)]
    if missing:
        raise RuntimeError(f"rootwise's shipped kernels need numba internals that numba "
                           f"{numba.__version__} lacks: {', '.join(missing)}")


@functools.cache
def target_triple() -> str:
    """The LLVM target triple this process compiles for (numba's codegen module uses the same;
    asked of LLVM directly so as not to set up numba's CPU target, whose CPU stays the user's)."""
    import llvmlite.binding as llvm

    return llvm.get_process_triple()


def this_build() -> dict:
    """What a shipped kernel must have been built for, in this process."""
    from ._jit import current_fingerprint

    return {"numba": numba.__version__, "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
            "triple": target_triple(), "fingerprint": current_fingerprint()}


def _read_manifest() -> dict | None:
    try:
        return json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return None


def _why_not(manifest: dict | None, here: dict) -> str | None:
    """None if kernels built for ``manifest`` run in ``here``; else why not, in a few words."""
    if manifest is None:
        return "none precompiled in this install"
    for field, what in (("numba", "numba"), ("python", "Python")):
        if manifest.get(field) != here[field]:
            return f"precompiled for {what} {manifest.get(field)}"
    if manifest.get("triple") != here["triple"]:
        return "precompiled for another platform"
    if manifest.get("fingerprint") != here["fingerprint"]:
        return "sources differ from the precompiled"
    return None


class _State:
    """Whether the shipped layer is used in this process, and why not."""

    usable = False
    present = False  # the install has precompiled kernels (a manifest)
    reason = "not checked yet"
    building = False
    link_only = False  # kernels only kernels call are compiled link-only (``_link_only``)


STATE = _State()


def shipped_file(py_func, impl) -> caching.IndexDataCacheFile | None:
    """The shipped index and data files of ``py_func`` (None outside rootwise's package)."""
    try:
        relative = Path(inspect.getfile(py_func)).resolve().relative_to(PACKAGE)
    except ValueError:
        return None
    folder = SHIPPED.joinpath(*relative.parent.parts)
    return caching.IndexDataCacheFile(cache_path=str(folder), filename_base=impl.filename_base,
                                      source_stamp=impl.locator.get_source_stamp())


class ShippedFirstCache(caching.FunctionCache):
    """numba's per-function cache, looking in the shipped kernels first (see the module's
    docstring); while building them, it writes there instead of numba's own cache."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._shipped = None
        if STATE.building or STATE.usable:
            self._shipped = shipped_file(py_func, self._impl)
        if STATE.building and self._shipped is not None:
            # compiled for the generic CPU (the build sets NUMBA_CPU_NAME), saved and found there
            self._cache_file, self._shipped = self._shipped, None
            self._cache_path = self._cache_file._cache_path
            os.makedirs(self._cache_path, exist_ok=True)

    def _load_overload(self, sig, target_context):
        if self._enabled and self._shipped is not None:
            sig_key, _, code_key = self._index_key(sig, target_context.codegen())
            data = self._shipped.load((sig_key, (target_triple(), *GENERIC_CPU), code_key))
            if data is not None:
                return self._impl.rebuild(target_context, data)
        return super()._load_overload(sig, target_context)


def _enable_caching(self, _numba_enable_caching=dispatcher.Dispatcher.enable_caching):
    """Dispatcher.enable_caching, with ShippedFirstCache for rootwise's own kernels."""
    module = getattr(self.py_func, "__module__", "") or ""
    if module == "rootwise" or module.startswith("rootwise."):
        if STATE.link_only and self.targetoptions.get("no_cpython_wrapper"):
            return  # no machine code of its own to cache: its callers hold it (``_link_only``)
        self._cache = ShippedFirstCache(self.py_func)
    else:
        _numba_enable_caching(self)


def install() -> None:
    """Decide whether the shipped kernels apply here, and route rootwise's kernels through them.
    Runs on ``import rootwise``, before any kernel module is imported."""
    try:
        check_internals()
    except RuntimeError:  # a newer numba: compile as without the layer, and say why
        STATE.usable, STATE.present = False, MANIFEST.exists()
        STATE.reason = f"not loadable by numba {numba.__version__}"
        return
    STATE.building = os.environ.get(BUILD_VARIABLE) == "1"
    if STATE.building:
        from numba.core import config

        if (config.CPU_NAME or "").lower() != "generic":
            raise RuntimeError(f"{BUILD_VARIABLE}=1 needs NUMBA_CPU_NAME=generic")
        STATE.usable, STATE.reason = False, "building the precompiled kernels"
    else:
        manifest = _read_manifest()
        STATE.present = manifest is not None
        if os.environ.get(SWITCH_VARIABLE) == "0":
            STATE.reason = f"{SWITCH_VARIABLE}=0"
        else:
            STATE.reason = _why_not(manifest, this_build())
        STATE.usable = STATE.reason is None
    from . import _link_only

    STATE.link_only = _link_only.install()
    dispatcher.Dispatcher.enable_caching = _enable_caching


def manifest_of(kernels: int) -> dict:
    """The manifest of ``kernels`` kernels compiled here for the generic CPU."""
    return {**this_build(), "cpu": GENERIC_CPU[0], "kernels": kernels}


def cache_folder(cache_dir: Path, source_folder: Path) -> Path:
    """Where numba's own cache under ``cache_dir`` (NUMBA_CACHE_DIR) keeps the kernels of the
    sources in ``source_folder``: the folder's name and a hash of its absolute path
    (``caching._CacheLocator.get_suitable_cache_subpath``). Its index and data files are the
    shipped kernels' own format, so a cache filled with NUMBA_CPU_NAME=generic can be shipped."""
    subpath = caching._CacheLocator.get_suitable_cache_subpath(str(Path(source_folder) / "x.py"))
    return Path(cache_dir) / subpath


def write_manifest(kernels: int) -> dict:
    """After a build: record what the kernels in SHIPPED were compiled for."""
    manifest = manifest_of(kernels)
    SHIPPED.mkdir(exist_ok=True)
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


install()
