"""The one numba decorator of soadyn (docs/architecture.md, Kernels).

Every kernel in :mod:`soadyn._kernels` is compiled lazily on first call and cached on disk; importing
soadyn compiles nothing.
"""

import numba

jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)
"""``numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False)``."""

parallel_jit = numba.njit(cache=True, nogil=True, error_model="numpy", fastmath=False, parallel=True)
"""The same options with ``parallel=True``, for the ``*_batch`` kernels that use ``prange``."""

prange = numba.prange
