"""A fast log2 to within 1e-13, for screening: deciding that an exact value cannot reach a bound
without computing it.

libm's ``log`` is a call out of the compiled code, through a stub, for each logarithm; J48's
scan needs four per cut it considers. Screening with this one first leaves the exact logarithms
(``j48.xlog2x``, whose values decide the tree) to the few cuts that may matter.

    x = 2^e m, m in [1, 2);  c = 1 + (j + 1/2) / 128 for m's top 7 bits j, so |r| <= 1/256 with
    r = m / c - 1;  log2 x = e + log2 c + ln(1 + r) / ln 2,
    ln(1 + r) = r - r^2/2 + r^3/3 - r^4/4 + r^5/5 - ...  (the rest below r^6/6 < 1e-15)

log2 c and 1/c come from a table of 128; the error is a few units in the last place of the
result (below 1e-13 for any x of a fit).
"""

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

_STEPS = 128
_CENTRES = 1.0 + (np.arange(_STEPS) + 0.5) / _STEPS
_LOG2_CENTRE = np.log2(_CENTRES)
_INV_CENTRE = 1.0 / _CENTRES
_INV_LN2 = 1.0 / np.log(2.0)
_MANTISSA = (1 << 52) - 1
_ONE_BITS = 0x3FF << 52


@intrinsic
def _as(typingctx, x, like):
    """The 64 bits of ``x`` read as the type of ``like`` (float64 <-> int64; no conversion)."""
    source, target = types.unliteral(x), types.unliteral(like)
    if {source, target} != {types.float64, types.int64}:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(target))

    return target(source, target), codegen


@njit(cache=True, _nrt=False, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def near_log2(x):
    """log2 x within 1e-13, for a positive normal x."""
    b = _as(x, np.int64(0))
    e = ((b >> 52) & 0x7FF) - 1023
    j = (b >> 45) & (_STEPS - 1)
    r = _as((b & _MANTISSA) | _ONE_BITS, 0.0) * _INV_CENTRE[j] - 1.0
    ln1p = r * (1.0 - r * (0.5 - r * (1.0 / 3.0 - r * (0.25 - r * 0.2))))
    return e + _LOG2_CENTRE[j] + ln1p * _INV_LN2
