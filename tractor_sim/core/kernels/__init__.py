"""Numba kernels: plain arrays in, plain arrays out (docs/design.md).

Every function here is ``@njit(cache=True)`` and takes only numpy arrays and
ints, so it compiles once, caches across processes and runs unchanged under
``NUMBA_DISABLE_JIT=1`` for coverage.  The package above keeps their cache
fresh (``tractor_sim.core``).
"""
