"""The compiled package: the rules kernels, the strategy helpers and the built-in strategies.

Everything here is compiled by numba and imports only from this folder
(relative imports) and the rule options' indices (``tractor_sim.rules.options``).
That is what lets a game size be a copy of this folder with its own
``size.py`` (tractor_sim.play.packages): the 4-player 2-deck game is this
folder itself.  ``registry`` holds what the built-in strategies' decorators
recorded, for the strategy registry above to compile.

Numba checks a cached function against its own source file only, not the
files of the functions it calls or inlines.  So on import the folder's
sources are hashed (``source_digest``, the one cache digest: the copies for
other sizes are named by it too) and this folder's numba cache is dropped
when it changed.  Then numba's compile is made faster (kernels.unowned)
before anything is compiled.
"""

import hashlib
from pathlib import Path

import numba

from tractor_sim.rules import options as _options

HERE = Path(__file__).resolve().parent
STAMP = HERE / "__pycache__" / "core.sha256"


def source_digest() -> str:
    """What every compiled function of the package depends on: its sources, the rule options'
    indices and numba's version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for src in sorted(HERE.rglob("*.py")):
        digest.update(src.relative_to(HERE).as_posix().encode())
        digest.update(src.read_bytes())
    digest.update(Path(_options.__file__).read_bytes())
    return digest.hexdigest()[:16]


def _refresh_cache() -> None:
    digest = source_digest()
    try:
        if STAMP.exists() and STAMP.read_text() == digest:
            return
        STAMP.parent.mkdir(exist_ok=True)
        with open(STAMP.with_suffix(".lock"), "a") as lock:  # test workers import at once: one clears
            try:
                import fcntl

                fcntl.flock(lock, fcntl.LOCK_EX)
            except ImportError:  # not POSIX: no lock
                pass
            if STAMP.exists() and STAMP.read_text() == digest:
                return
            for cache in HERE.rglob("__pycache__"):
                for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
                    f.unlink(missing_ok=True)
            STAMP.write_text(digest)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass


_refresh_cache()

from .kernels.unowned import faster_compiles  # noqa: E402  (numba's compile, patched before any kernel)

faster_compiles()
