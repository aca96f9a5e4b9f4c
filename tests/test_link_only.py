"""Kernels only other kernels call are compiled link-only (rootwise/_link_only.py): linked into
their callers' libraries, never optimized alone, turned into machine code or cached on disk."""

import numpy as np
import pytest
from numba import njit

from rootwise import _link_only, _shipped
from rootwise.engine import arrays


@njit
def _sum_through_kernel(t):
    """A user's function (not rootwise's) calling a kernel that has no CPython wrapper."""
    return arrays.table_total(t)


def test_this_numba_has_the_internals():
    _link_only.check_internals()
    assert _shipped.STATE.link_only


def test_a_kernel_only_kernel_is_linked_not_compiled_alone():
    t = np.arange(12, dtype=np.float32).reshape(3, 4) / 7  # a signature no fit compiles
    assert _sum_through_kernel(t) == pytest.approx(float(t.astype(np.float64).sum()), rel=1e-6)
    callee = arrays.table_total.overloads[arrays.table_total.signatures[-1]]
    assert getattr(callee.library, "_rootwise_link_only", False)
    # not handed to the execution engine: no machine code, nothing numba could cache
    assert callee.library._compiled_object is None
    assert type(arrays.table_total._cache).__name__ == "NullCache"
    # the caller is an ordinary library that holds the kernel's code, optimized once
    caller = _sum_through_kernel.overloads[_sum_through_kernel.signatures[-1]]
    assert not getattr(caller.library, "_rootwise_link_only", False)
    assert callee.library in caller.library._linking_libraries


def test_a_kernel_python_calls_is_compiled_as_before():
    a = np.linspace(0.0, 1.0, 5, dtype=np.float32)  # a new signature of a kernel with a wrapper
    assert arrays.total(a) == pytest.approx(2.5)
    compiled = arrays.total.overloads[arrays.total.signatures[-1]]
    assert not getattr(compiled.library, "_rootwise_link_only", False)
    assert type(arrays.total._cache).__name__ == "ShippedFirstCache"


def test_a_numba_without_the_internals_is_left_as_it_is(monkeypatch):
    from numba.core import codegen

    class OlderLibrary:  # a numba whose code library has other internals
        finalize = codegen.CPUCodeLibrary.finalize

    monkeypatch.setattr(_link_only.codegen, "CPUCodeLibrary", OlderLibrary)
    with pytest.raises(RuntimeError, match="_get_module_for_linking"):
        _link_only.check_internals()
    assert _link_only.install() is False
