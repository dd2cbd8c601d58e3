"""Numba kernels: plain arrays in, plain arrays out (see DESIGN.md).

Every function here is ``@njit(cache=True)`` and takes only numpy arrays and
ints, so it compiles once, caches across processes and runs unchanged under
``NUMBA_DISABLE_JIT=1`` for coverage.
"""
