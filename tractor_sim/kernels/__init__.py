"""Numba kernels: plain arrays in, plain arrays out (see DESIGN.md).

Every function here is ``@njit(cache=True)`` and takes only numpy arrays and
ints, so it compiles once, caches across processes and runs unchanged under
``NUMBA_DISABLE_JIT=1`` for coverage.

Numba checks a cached function against its own source file only, not the
files of the functions it calls, so an edit to combos.py would leave a stale
compiled deal kernel in the cache.  On import we therefore hash all kernel
sources and drop this package's cache files when the hash changes.  Then
numba's compile is made faster (kernels.unowned.faster_compiles) before any
kernel, strategy or helper is compiled.
"""

import hashlib
from pathlib import Path


def _refresh_cache() -> None:
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for src in sorted(here.glob("*.py")):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    for mod in ("rules.py",):  # the kernels read its option indices as constants
        digest.update((here.parent / mod).read_bytes())
    stamp_dir = here / "__pycache__"
    stamp = stamp_dir / "kernels.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        stamp_dir.mkdir(exist_ok=True)
        for f in list(stamp_dir.glob("*.nbi")) + list(stamp_dir.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass


_refresh_cache()

from tractor_sim.kernels.unowned import faster_compiles  # noqa: E402  (numba's compile, patched before any kernel)

faster_compiles()
