"""The compiled package of each game size: ``tractor_sim.core`` for 4 players and 2 decks, a copy
of its folder with its own ``size.py`` for every other size.

``core/`` imports only itself (relative imports) and the rule options, so a
copy needs no edit but its ``size.py``: numba reads the copy's constants at
compile time, and a 4/2 run holds no run-time size check.  The copies live
under the user's cache directory in a folder named by ``core.source_digest``
(the sources, the rule options, numba's version), so an edit or an upgrade
never loads a stale compile; the least recently used digests beyond
``KEEP`` are pruned.  A user's strategy module played at another size is
loaded again inside the copy with its imports of ``tractor_sim.core`` bound
to the copy (``load_plugin``).
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import time
import types
from pathlib import Path

from tractor_sim.rules.sizes import GameSize, as_size

SIZED_PREFIX = "tractor_sim_sized_"  # the copies' package names (kernels.unowned treats them as the package's)
KEEP = 3  # source digests whose copies are kept (the newest uses)
IDLE = 3600  # seconds since its last use before a copy beyond KEEP may be removed
SIZE_FILE = '''"""The game size this copy of tractor_sim.core plays: {label} (written by tractor_sim.play.packages)."""

SEATS = {players}
DECKS = {decks}
KITTY = {kitty}
FINDING_FRIENDS = {friends}
'''


def cache_root() -> Path:
    """Where the copies live: $TRACTOR_SIM_CACHE, else the user's cache directory."""
    base = os.environ.get("TRACTOR_SIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tractor-sim")
    return Path(base) / "packages"


def package_name(size: GameSize) -> str:
    """tractor_sim_sized_p6d2 (tractor teams), tractor_sim_sized_p5d2f (Finding Friends)."""
    return f"{SIZED_PREFIX}p{size.players}d{size.decks}{'f' if size.teams == 'friends' else ''}"


def size_file(size: GameSize) -> str:
    """The text of a copy's ``size.py``."""
    return SIZE_FILE.format(label=size.label, players=size.players, decks=size.decks, kitty=size.kitty,
                            friends=size.teams == "friends")


@contextlib.contextmanager
def _lock(path: Path):
    """An exclusive lock on ``path`` (a file beside what it guards) across processes: test workers
    and a run's worker processes share one copy instead of racing to write it.  Without fcntl (not
    POSIX) the rename in ``_write_copy`` alone keeps the copy whole."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def import_compiled(module: str):
    """Import a kernel module that compiles when imported (its functions have explicit signatures:
    the search, the drivers, the batched environment), under a lock shared by the processes of one
    cache: the first compiles, the others wait and load the numba cache it wrote, instead of
    compiling the same set at the same time (test workers, two runs at once)."""
    if module in sys.modules:
        return sys.modules[module]
    lock = cache_root() / f".{module}.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.touch()
    except OSError:  # a cache folder this process cannot write: no lock to share, import alone
        return importlib.import_module(module)
    with _lock(lock):
        return importlib.import_module(module)


def _write_copy(root: Path, package: str, size: GameSize) -> None:
    """Copy core/ into root/package with the size's own size.py, once: under a lock, written to a
    temporary folder and renamed (a reader never sees half a copy)."""
    import tractor_sim.core as core

    final = root / package
    if (final / "__init__.py").exists():
        return
    with _lock(root / f".{package}.lock"):
        if (final / "__init__.py").exists():  # another process wrote it while this one waited
            return
        tmp = root / f".{package}.{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(core.HERE, tmp, ignore=shutil.ignore_patterns("__pycache__"))
        (tmp / "size.py").write_text(size_file(size))
        os.rename(tmp, final)


def _prune(root: Path, keep: str) -> None:
    """Remove the copies of all but the KEEP most recently used source digests (``keep`` stays),
    sparing any used within the last IDLE seconds: another checkout's run may be loading it."""
    def used(d):
        return (d / ".used").stat().st_mtime if (d / ".used").exists() else 0

    digests = sorted((d for d in root.iterdir() if d.is_dir() and d.name != keep), key=used, reverse=True)
    for old in digests[KEEP - 1:]:
        if time.time() - used(old) > IDLE:
            shutil.rmtree(old, ignore_errors=True)


_LOADED: dict[GameSize, object] = {}


def compiled_package(size=None):
    """The compiled package of ``size`` (a GameSize, a table or None for 4/2): ``tractor_sim.core``
    or its copy, imported (its modules compile on first use)."""
    key = as_size(size)
    if key not in _LOADED:
        import tractor_sim.core as core  # numba's compile made faster first (core/__init__.py)

        if key.standard:
            module = core
        else:
            digest = core.source_digest()
            root = cache_root()
            here = root / digest
            here.mkdir(parents=True, exist_ok=True)
            (here / ".used").touch()
            _prune(root, digest)
            package = package_name(key)
            _write_copy(here, package, key)
            if str(here) not in sys.path:
                sys.path.insert(0, str(here))
            module = importlib.import_module(package)
        for sub in ("kernels.match", "kernels.deal", "strategies"):  # the deal's drivers compile here
            import_compiled(f"{module.__name__}.{sub}")
        _LOADED[key] = module
    return _LOADED[key]


def load_plugin(package, source: str, module: str):
    """A user's strategy module compiled for the game size of ``package`` (a copy from
    ``compiled_package``): its file executed again as a module of the copy, with every import of
    ``tractor_sim.core`` (its helpers, the view's constants) bound to the copy and its strategies
    recorded in the copy's registry.  ``source`` is the module's file; None when it has none (a
    strategy defined at the prompt cannot be copied)."""
    if not source or not os.path.isfile(source):
        return None
    text = Path(source).read_bytes()
    stem = "".join(ch if ch.isalnum() else "_" for ch in Path(source).stem)
    name = f"{package.__name__}.plugin_{stem}_{hashlib.sha256(text + module.encode()).hexdigest()[:12]}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, source)
    plugin = importlib.util.module_from_spec(spec)
    plugin.__builtins__ = {**vars(builtins), "__import__": _redirected_import(package)}
    sys.modules[name] = plugin
    try:
        spec.loader.exec_module(plugin)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return plugin


def _redirected_import(package):
    """``__import__`` with ``tractor_sim.core`` and its modules read from ``package``, and
    ``tractor_sim.play.registry``'s ``strategy`` recording into the copy's registry."""
    plain = builtins.__import__
    top = types.ModuleType("tractor_sim")  # what ``import tractor_sim.core.x`` binds: .core is the copy
    top.core = package

    def redirected(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "tractor_sim.core" or name.startswith("tractor_sim.core.")):
            module = plain(package.__name__ + name[len("tractor_sim.core"):], globals, locals, fromlist, 0)
            return module if fromlist else top
        if level == 0 and name == "tractor_sim.play.registry" and fromlist:
            return _registry_for(package)
        return plain(name, globals, locals, fromlist, level)

    return redirected


def _registry_for(package):
    """tractor_sim.play.registry as a plug-in loaded into ``package`` sees it: the same names, but
    ``strategy`` records into the copy (policies are the main registry's, registered already)."""
    registry = sys.modules["tractor_sim.play.registry"]  # loaded: it is what loads plug-ins
    view = types.ModuleType(registry.__name__)
    view.__dict__.update(vars(registry))
    view.strategy = importlib.import_module(f"{package.__name__}.registry").strategy
    view.policy = lambda *args, **kwargs: None
    return view
