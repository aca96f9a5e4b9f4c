"""``prefetch(array, index)``: a hint, for the njit kernels, to bring the cache line of
``array[index]`` into the cache ahead of its load (LLVM's ``llvm.prefetch``; an x86
``prefetcht0``). It reads nothing and cannot fault, so an index computed ahead of the loop
that will load it needs no other check than staying inside the array."""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch the line of ``array[index]`` (for reading, kept in every cache level)."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                           wraparound=False, boundscheck=False)
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        # the i8* name: LLVM 14's (numba 0.60); later versions read it as their opaque "p0"
        hint = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0i8")
        # read (0), highest locality (3), data cache (1)
        builder.call(hint, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
