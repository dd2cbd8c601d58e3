"""Plug-ins that cannot hurt the run: which strategies are a user's, and what their faults say.

A user's strategy is compiled with bounds checking (``strategy.strategy``),
so a write past its view, ``scratch`` or ``out`` raises IndexError inside the
kernel instead of changing another seat's game; here that becomes a
``SimulationError`` naming the plug-in.  The built-ins are compiled as
before (no check, no cost).  A run that plays a user's strategy keeps it out
of the driver process (``runner``: a worker, which can be killed) and gives
each chunk a time limit (``PluginTimeout``).
"""

from __future__ import annotations

import os

from tractor_sim.play.chunks import SimulationError
from tractor_sim.play.game import Game

DEFAULT_CHUNK_TIMEOUT = 600.0  # seconds without a finished chunk, for runs with user plug-ins


class PluginTimeout(SimulationError):
    """No chunk finished within the time limit: a plug-in in an endless loop, or chunks far too large."""


def plugins(spec) -> list[str]:
    """The plug-ins a chunk plays (chunks.plugin_strategies; empty: built-ins only)."""
    from tractor_sim.play import registry as S
    from tractor_sim.play.chunks import plugin_strategies

    # the modules are loaded: run_chunk, or the driver's check of the experiment, did it
    return plugin_strategies([S.resolve_policy(pol) for pol in spec.policies])


def run_checked(spec):
    """``Game.play_chunk`` (what ``engine.run_chunk`` does), with a plug-in's out-of-bounds access reported as a SimulationError naming it."""
    try:
        return Game.of(spec.game, spec.rules).play_chunk(spec)
    except IndexError as e:
        who = plugins(spec)
        culprit = " or ".join(who) if who else "a strategy"
        raise SimulationError(
            f"{culprit} read or wrote outside its arrays ({e}) in deals {spec.first_id}.."
            f"{spec.first_id + spec.count - 1} (seed {spec.seed}, half {spec.half}, matchup {spec.matchup}); "
            "nothing of this chunk was kept") from None


def timeout_message(specs, seconds: float) -> str:
    who = []
    for spec in specs:
        who += [p for p in plugins(spec) if p not in who]
    names = ", ".join(who) or "the strategies"
    ids = "; ".join(f"{s.matchup} half {s.half} ids {s.first_id}..{s.first_id + s.count - 1}" for s in specs[:3])
    return (f"no chunk finished within {seconds:g} s ({ids}): {names} may loop forever; the workers were "
            "stopped. Finished chunks are kept; raise --chunk-timeout or lower chunk_size if the chunks are "
            "just slow")


# --------------------------------------------------------------------------- Ctrl-C inside compiled code

_INTERRUPTED = b"\nerror: interrupted (finished chunks are kept: run the same command again to resume)\n"
_handler = None
_LOCK_PATH = bytearray(4097)  # the NUL-terminated path the handler unlinks before it exits (a run's .lock)


def remove_on_interrupt(path) -> None:
    """Let the C-level Ctrl-C handler remove ``path`` (a run's held .lock file) before it ends the
    process; None: nothing. A path too long for the buffer is left to the next run, which takes it over."""
    data = b"" if path is None else os.fsencode(path)
    if len(data) >= len(_LOCK_PATH):
        data = b""
    _LOCK_PATH[: len(data) + 1] = data + b"\0"


def _hard_handler():
    """A C-level SIGINT handler that removes the run's lock, writes a line and exits 130, needing no
    GIL; returns (its address, libc).

    Python runs its own SIGINT handler only between bytecodes, so Ctrl-C
    cannot stop a kernel call (a long chunk, a plug-in's endless loop) in
    this process.  While one runs, this handler takes over: the run
    directory stays consistent (parts are renamed into place whole; the
    lock dies with the process), only the chunk in flight is lost.

    It is three calls in LLVM IR holding this process's addresses (libc's functions, the text, the
    lock path's buffer), made into machine code by llvmlite, numba's own backend: 4 ms at each
    command's start, where the numba cfunc it was (which no cache can keep: the addresses change
    with each process) took 0.15 s of a warm quick start's 3.
    """
    global _handler
    if _handler is None:
        import ctypes

        import llvmlite.binding as llvm

        libc = ctypes.CDLL(None)
        text = ctypes.create_string_buffer(_INTERRUPTED, len(_INTERRUPTED))
        lock = (ctypes.c_char * len(_LOCK_PATH)).from_buffer(_LOCK_PATH)  # shares its memory: set at run time

        def address(thing):
            return ctypes.cast(thing, ctypes.c_void_p).value

        source = f"""
            define void @on_sigint(i32 %signum) {{
              %unlink = inttoptr i64 {address(libc.unlink)} to ptr
              %write = inttoptr i64 {address(libc.write)} to ptr
              %exit = inttoptr i64 {address(libc._exit)} to ptr
              %lock = inttoptr i64 {ctypes.addressof(lock)} to ptr
              %text = inttoptr i64 {ctypes.addressof(text)} to ptr
              %gone = call i32 %unlink(ptr %lock)
              %wrote = call i64 %write(i32 2, ptr %text, i64 {len(_INTERRUPTED)})
              call void %exit(i32 130)
              unreachable
            }}"""
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        module = llvm.parse_assembly(source)
        engine = llvm.create_mcjit_compiler(module, llvm.Target.from_default_triple().create_target_machine())
        engine.finalize_object()
        # "" in the lock path when no run holds a lock: unlink fails with ENOENT, harmless
        _handler = (engine.get_function_address("on_sigint"), libc, (engine, text, lock))  # kept alive
    return _handler[:2]


class interruptible:
    """``with interruptible():`` Ctrl-C ends the process at once, even inside compiled code (see above).

    Outside the block Python's own handler (KeyboardInterrupt) is back.
    """

    def __enter__(self):
        import ctypes
        import signal as sig

        if sig.getsignal(sig.SIGINT) is not sig.default_int_handler:
            self.old = None  # not the main thread, or someone else's handler: leave it alone
            return self
        on_sigint, libc = _hard_handler()
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        self.libc = libc
        self.old = libc.signal(int(sig.SIGINT), on_sigint)
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            self.libc.signal(2, self.old)  # Python's own C-level trampoline again
        return False
