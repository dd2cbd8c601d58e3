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

from tractor_sim.engine import SimulationError, run_chunk

DEFAULT_CHUNK_TIMEOUT = 600.0  # seconds without a finished chunk, for runs with user plug-ins


class PluginTimeout(SimulationError):
    """No chunk finished within the time limit: a plug-in in an endless loop, or chunks far too large."""


def plugins(spec) -> list[str]:
    """The user strategies a chunk plays, as 'decision strategy 'name' (file)' (empty: built-ins only)."""
    from tractor_sim import strategy as S
    from tractor_sim.kernels.view import DECISIONS

    out = []  # the modules are loaded: run_chunk, or the driver's check of the experiment, did it
    for pol in spec.policies:
        for d, name in zip(DECISIONS, S.resolve_policy(pol).strategies):
            info = S.get_strategy(d, name)
            text = f"{d} strategy {name!r} ({info.source})"
            if not S.is_builtin(info.module) and text not in out:
                out.append(text)
    return out


def run_checked(spec):
    """``engine.run_chunk``, with a plug-in's out-of-bounds access reported as a SimulationError naming it."""
    try:
        return run_chunk(spec)
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
