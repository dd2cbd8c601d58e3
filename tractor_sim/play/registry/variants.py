"""How a registered strategy is compiled, and when its cached machine code is stale.

Kept apart from the registry's tables because it is numba's side of the
story: a strategy is compiled in variants (lean, bounds-checked, for another
game size's package copy), each under its own cache name, and a user's cache
must be dropped when the compiled package it inlines has changed; none of
that concerns which names are registered.
"""

from __future__ import annotations

import glob
import os
import sys
import types
from typing import Any

import numba

from tractor_sim.core.kernels.view import STRATEGY_SIG


_LEAN: dict[Any, Any] = {}


def _lean(dispatcher):
    """The strategy compiled without reference counting (numba's ``_nrt=False``), or None if it
    cannot be (it allocates arrays: use ``kernels.unowned.stack_array`` for work arrays).

    Numba counts references at every array passed to an inlined helper, even
    when, as here, every array a strategy gets has no owner: without them the
    built-in follow and lead strategies run 2.5x faster per call (smart: 103 ->
    37 ns), a deal ~5% faster.  Only for strategies registered ``lean``: one
    calling a helper that returns a new array would leak it, and numba cannot
    tell when that helper was compiled before.  Compiled from a copy of the
    function under its own name, so the two versions keep separate disk cache
    entries (numba's cache key ignores compile options).
    """
    if dispatcher not in _LEAN:
        try:
            checked = {"boundscheck": True} if dispatcher.targetoptions.get("boundscheck") else {}
            lean = numba.njit(cache=True, _nrt=False, **checked)(_renamed(dispatcher.py_func, "_lean"))
            lean.compile(STRATEGY_SIG)
        except Exception:  # it needs reference counting (or this numba lacks the option): the ordinary compile
            lean = None
        _LEAN[dispatcher] = lean
    return _LEAN[dispatcher]


def _renamed(fn, suffix: str):
    """A copy of ``fn`` under its own qualified name: its own numba disk cache entries.

    numba's cache key ignores compile options, so a function compiled two
    ways (lean, bounds-checked) must be two functions to the cache.
    """
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return copy


_SIZED: dict = {}


def _sized_dispatcher(package, key):
    """The dispatcher of what ``package``'s registry recorded under ``key`` (decision, name), made
    as ``strategy`` makes it (a plug-in bounds-checked unless it says otherwise); None if nothing.

    A plug-in's copy is renamed for the size (``grab_points`` -> ``grab_points_p6d3``): numba
    names a disk cache entry by the source file's name, the function's and its line, and a
    compiled symbol by module, function and a per-process counter, so under its own name the copy
    would load, or link against, the machine code compiled for another size's view."""
    recorded = package.registry.STRATEGIES.get(key)
    if recorded is None:
        return None
    if (package.__name__, key) not in _SIZED:
        builtin = recorded.fn.__module__.startswith(package.__name__ + ".strategies")
        fn = recorded.fn if builtin else _renamed(recorded.fn, "_" + package.__name__.rsplit("_", 1)[-1])
        _SIZED[package.__name__, key] = _dispatcher(fn, builtin, recorded.boundscheck)
    return _SIZED[package.__name__, key]


def _dispatcher(fn, builtin: bool, boundscheck):
    """``fn`` under numba, compiled on first use; bounds-checked (under its own cache name) unless a
    built-in, or as ``boundscheck`` says."""
    checked = (not builtin) if boundscheck is None else bool(boundscheck)
    cache = _cacheable(fn)
    return numba.njit(cache=cache, boundscheck=True)(_renamed(fn, "_checked")) if checked \
        else numba.njit(cache=cache)(fn)


def _cacheable(fn) -> bool:
    """Whether numba may cache ``fn`` on disk: only a function of a real module, whose globals are
    that module's. numba names a cache entry by file, name and line, not by globals, so a copy of
    a function bound to another size's kernels (``types.FunctionType`` with new globals) would load
    the first copy's machine code (a module copied for a size is renamed: ``_sized_dispatcher``)."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    return module is not None and getattr(module, "__dict__", None) is fn.__globals__ \
        and getattr(module, "__file__", None) is not None


def _module_file(info) -> str | None:
    """The file of a strategy's module (a file loaded by path, or an importable module)."""
    if os.path.isfile(info.source):
        return info.source
    return getattr(sys.modules.get(info.module), "__file__", None)


_CHECKED: set[str] = set()


def drop_stale_cache(module_file: str) -> None:
    """Delete a user's module's numba cache files older than the compiled package's cache digest.

    numba's cache checks only the file of the cached function itself: after an
    edit of a helper or a kernel (inlined into the strategy), a strategy would
    keep running the old code from its cache.  The package's digest stamp
    (tractor_sim.core.STAMP) is rewritten whenever any of its sources change;
    a cache file older than it is stale.  The built-ins are the package's own
    and are dropped with it.
    """
    from tractor_sim import core

    module_file = os.path.abspath(module_file)
    if module_file in _CHECKED:
        return
    _CHECKED.add(module_file)
    try:
        newest = os.path.getmtime(core.STAMP)
    except OSError:
        return
    cache_dir = os.path.join(os.path.dirname(module_file), "__pycache__")
    stem = os.path.splitext(os.path.basename(module_file))[0]
    for index in glob.glob(os.path.join(glob.escape(cache_dir), glob.escape(stem) + ".*.nbi")):
        try:
            if os.path.getmtime(index) < newest:
                for f in [index, *glob.glob(glob.escape(index[:-4]) + ".*.nbc")]:
                    os.remove(f)
        except OSError:  # another process got there first
            pass
