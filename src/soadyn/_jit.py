"""The one numba decorator of soadyn (docs/architecture.md, Kernels).

Every kernel in :mod:`soadyn._kernels` is compiled lazily on first call and cached on disk; importing
soadyn compiles nothing.
"""

import numba

jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)
"""``numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)``."""

inline_jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False, inline="always")
"""The options of :data:`jit` with ``inline="always"``: the helper is compiled into each caller's body (no
call, and no reference-count update of its array arguments, which a call pays even for arrays that hold no
reference: a function call that checks for it). For the small helpers called per constraint row or node
in a hot loop (a row's world wrench: 79 ns a call, 58 ns inlined), and for the passes a kernel calls once
with twenty or more arrays, each passed as some ten machine words (docs/architecture.md, Kernels)."""

parallel_jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False, parallel=True)
"""The same options with ``parallel=True``, for the ``*_batch`` kernels that use ``prange``."""

prange = numba.prange


class EntryPoint:
    """A kernel called from Python through its compiled entry point: ``EntryPoint(kernel).call(*args)``.

    On every call numba's dispatcher resolves the type of each argument to pick the compiled signature
    (about 30 ns an array: 0.2 us of the 1.2 us of a kernel call with seven arrays). A public function whose
    kernel arguments always have the same types calls its kernel through an ``EntryPoint`` instead: the
    first call compiles the kernel for the types of its arguments, or loads it from the disk cache, as the
    dispatcher would (the dispatcher then lists that one signature), and later calls go to that machine code
    directly. An array argument's type is taken C-contiguous and aligned whatever the first call passes
    (:func:`kernel_type`; whether it is writeable is kept: the Model's buffers are read-only, and an entry
    kernel types the inner kernels it calls as their other callers do). The caller guarantees the rest:
    the entry point checks only that an array argument is an array with the compiled item size, and
    unboxes as many dimensions as the array has, so where it was compiled for a float64 vector it must
    never receive an int64 array or another number of dimensions; a kernel that may receive a vector of
    another length or stride checks them (``soadyn._kernels.kinematics.vector_ready``). The public
    functions pass the packed Model and Data buffers and inputs whose type, dtype and number of
    dimensions they checked (docs/architecture.md, Kernels)."""

    __slots__ = ("kernel", "call")

    def __init__(self, kernel):
        self.kernel = kernel
        self.call = self._first_call

    def _first_call(self, *args):
        self.call = self.kernel.compile(tuple(kernel_type(a) for a in args))
        return self.call(*args)


def kernel_type(a):
    """numba's type of the argument ``a``; an array's as if C-contiguous and aligned (the array form the kernels
    are compiled for)."""
    t = numba.typeof(a)
    if isinstance(t, numba.types.Array):
        return t.copy(layout="C")  # a copy is aligned and keeps the read-only flag
    return t


# ------------------------------------------------------------------------------------- flat-buffer views
from numba import types as _types  # noqa: E402
from numba.core import cgutils as _cgutils  # noqa: E402
from numba.core.imputils import impl_ret_borrowed as _impl_ret_borrowed  # noqa: E402
from numba.extending import intrinsic as _intrinsic  # noqa: E402
from numba.np.arrayobj import make_array as _make_array, populate_array as _populate_array  # noqa: E402


@_intrinsic
def view(typingctx, buf, offset, shape):
    """``view(buf, offset, shape)``: the C-contiguous array of ``shape`` (an int or a tuple of ints) that
    starts at ``buf[offset]`` of the 1-D C-contiguous ``buf``, sharing its memory (read-only if ``buf`` is).
    NumPy's ``buf[offset:offset + size].reshape(shape)`` without its run-time reshape call: a view costs a
    few instructions, which is what lets a kernel read a packed Model or Data under its field names
    (docs/architecture.md, Model and Data). No bounds check: the offsets come from the packing code.

    The view holds no reference of its own (a null meminfo): the buffer argument of the kernel call keeps
    the memory alive while the view is used, and no kernel returns a view to Python (entry kernels return
    status codes and numbers, tests/jit/test_jit.py). So passing a view to a function that is not inlined
    costs no atomic reference-count update on entry and exit; with the buffer's meminfo every kernel call
    paid two per view and per array argument of each inner pass (a 6-link ABA: 4.9 us inside the kernel,
    1.4 us without)."""
    if not (isinstance(buf, _types.Array) and buf.ndim == 1 and buf.layout == "C"):
        return None
    if isinstance(shape, _types.Integer):
        ndim = 1
    elif isinstance(shape, _types.BaseTuple) and all(isinstance(s, _types.Integer) for s in shape):
        ndim = len(shape)
    else:
        return None
    sig = _types.Array(buf.dtype, ndim, "C", readonly=not buf.mutable)(buf, offset, shape)

    def codegen(context, builder, sig, args):
        bufty, offty, shty = sig.args
        src = _make_array(bufty)(context, builder, args[0])
        if isinstance(shty, _types.Integer):
            dims = [context.cast(builder, args[2], shty, _types.intp)]
        else:
            dims = [context.cast(builder, v, t, _types.intp) for v, t in zip(_cgutils.unpack_tuple(builder, args[2]), shty)]
        itemsize = context.get_abi_sizeof(context.get_data_type(bufty.dtype))
        strides = [None] * ndim
        acc = context.get_constant(_types.intp, itemsize)
        for d in range(ndim - 1, -1, -1):
            strides[d] = acc
            acc = builder.mul(acc, dims[d])
        data = builder.gep(src.data, [context.cast(builder, args[1], offty, _types.intp)])
        out = _make_array(sig.return_type)(context, builder)
        intp_t = context.get_value_type(_types.intp)
        _populate_array(out, data=data, shape=_cgutils.pack_array(builder, dims, intp_t),
                        strides=_cgutils.pack_array(builder, strides, intp_t),
                        itemsize=context.get_constant(_types.intp, itemsize),
                        meminfo=_cgutils.get_null_value(src.meminfo.type), parent=src.parent)
        return _impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())

    return sig, codegen


@_intrinsic
def borrow(typingctx, arr):
    """``borrow(a)``: the array ``a`` itself (the same memory, shape and strides) holding no reference of its
    own, as :func:`view`'s arrays. An array that a kernel receives from Python (or allocates) carries its
    meminfo, and numba updates its reference count atomically on entry to and exit from every function it
    is passed to that is not inlined, and for every view of it (``Dinv[i]``) such a function receives. An
    entry kernel that takes many arrays from Python therefore borrows them at its top, and its passes and
    per-body helpers pay no atomic update (the contact rollout of a standing quadruped spent 39 % of its
    time in them). ``a`` must outlive the borrowed array: borrow only arguments of the calling function (its
    caller holds them), never an array the function allocates (numba releases it after its last use, which
    may come before the borrowed array's), and never return a borrowed array."""
    if not isinstance(arr, _types.Array):
        return None
    sig = arr(arr)

    def codegen(context, builder, sig, args):
        src = _make_array(sig.args[0])(context, builder, args[0])
        out = _make_array(sig.return_type)(context, builder)
        _populate_array(out, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
                        meminfo=_cgutils.get_null_value(src.meminfo.type), parent=src.parent)
        return _impl_ret_borrowed(context, builder, sig.return_type, out._getvalue())

    return sig, codegen
