"""The shipped-kernel layer's hold on numba's internals (``rootwise/_shipped.py``), checked without
compiling: if a numba release moves what it relies on, these fail loudly here, not silently in a
user's first fit. The layer's behaviour end to end is tests/test_wheel.py's."""

from __future__ import annotations

import numba
from numba.core import caching, dispatcher
from numba.core.registry import cpu_target

from rootwise import _shipped
from rootwise.engine.arrays import total


def test_this_numba_has_what_the_layer_uses():
    _shipped.check_internals()  # raises on a numba without them
    assert dispatcher.Dispatcher.enable_caching is _shipped._enable_caching
    key = caching.FunctionCache._index_key.__code__.co_varnames[:3]
    assert key == ("self", "sig", "codegen")  # the key is made from the signature and codegen


def test_rootwise_kernels_look_in_the_shipped_layer_and_other_code_does_not():
    assert type(total._cache) is _shipped.ShippedFirstCache

    @numba.njit(cache=True)
    def users_own(x):  # a user's cached function keeps numba's own cache, untouched
        return x + 1

    assert type(users_own._cache) is caching.FunctionCache


def test_an_index_key_holds_the_cpu_where_the_layer_replaces_it():
    codegen = cpu_target.target_context.codegen()
    magic = codegen.magic_tuple()
    assert len(magic) == 3 and magic[0] == _shipped.target_triple()  # (triple, CPU, features)
    sig_key, cpu_key, code_key = total._cache._index_key((numba.float64[::1],), codegen)
    assert cpu_key == magic and len(code_key) == 2


def test_kernels_apply_only_where_they_were_built_for():
    here = {"numba": numba.__version__, "python": "3.11", "triple": "x86_64-unknown-linux-gnu",
            "fingerprint": "f" * 64}
    assert _shipped._why_not(dict(here), here) is None
    assert _shipped._why_not(None, here) == "none precompiled in this install"
    assert _shipped._why_not({**here, "numba": "0.1.0"}, here) == "precompiled for numba 0.1.0"
    assert _shipped._why_not({**here, "python": "3.99"}, here) == "precompiled for Python 3.99"
    assert _shipped._why_not({**here, "triple": "aarch64-unknown-linux-gnu"}, here) == \
        "precompiled for another platform"
    assert _shipped._why_not({**here, "fingerprint": "0" * 64}, here) == \
        "sources differ from the precompiled"
