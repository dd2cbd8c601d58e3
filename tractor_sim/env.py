"""The environments under the names reinforcement-learning libraries expect (docs/environments.md).

PettingZoo's module convention: ``raw_env()`` is the AEC environment of every seat
(tractor_sim.play.env.TractorAEC), ``env()`` the same wrapped as PettingZoo's classic games are
(out-of-bounds and order checks; ``illegal="terminate"``: TerminateIllegalWrapper, an illegal
action ends the episode with ``illegal_reward`` for the actor).  Gymnasium: importing this module
registers ``tractor_sim/Tractor-v0`` (one seat against compiled policies, TractorEnv), so
``gymnasium.make("tractor_sim/Tractor-v0")`` works after ``import tractor_sim.env``, or without it
as ``gymnasium.make("tractor_sim.env:tractor_sim/Tractor-v0")``; its vector entry point is the batched
``TractorVectorEnv`` (N deals stepped by one compiled call: ``gymnasium.make_vec(ENV_ID, num_envs=N,
vectorization_mode="vector_entry_point")``).  ``parallel_env()``: PettingZoo's parallel API over the
same AEC environment through its turn-based conversion (the seats act one at a time: each step
applies the acting seat's action only; docs/environments.md).  Needs the optional extra ``rl``.
"""

from __future__ import annotations

import gymnasium
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from tractor_sim.play.env import (  # noqa: F401 - the environments' names, here too
    DONE, N_ACTIONS, TractorAEC, TractorEnv, observation_space, observation_size)
from tractor_sim.play.vector import TractorVectorEnv

ENV_ID = "tractor_sim/Tractor-v0"
ENTRY_POINT = "tractor_sim.play.env:TractorEnv"
VECTOR_ENTRY_POINT = "tractor_sim.play.vector:TractorVectorEnv"


def register() -> None:
    """Register ``tractor_sim/Tractor-v0`` with gymnasium (once)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT)


def raw_env(**kwargs) -> TractorAEC:
    """The AEC environment, unwrapped (arguments: TractorAEC's: rules, levels, declaring_team, render_mode,
    game)."""
    return TractorAEC(**kwargs)


def env(illegal: str = "raise", illegal_reward: float = -1.0, **kwargs):
    """The AEC environment wrapped as PettingZoo's classic games are.  ``illegal``: "raise" (a masked
    action raises IllegalAnswer, nothing changes) or "terminate" (TerminateIllegalWrapper: the episode
    ends, the actor gets ``illegal_reward``, the others 0)."""
    if illegal not in ("raise", "terminate"):
        raise ValueError(f"illegal: 'raise' or 'terminate', got {illegal!r}")
    e = raw_env(**kwargs)
    if illegal == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=illegal_reward)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def parallel_env(illegal: str = "raise", illegal_reward: float = -1.0, **kwargs):
    """PettingZoo's parallel API over ``env()`` by PettingZoo's ``turn_based_aec_to_parallel``: a step
    takes an action for every live seat and applies only the acting seat's (named by
    ``infos[agent]["active_agent"]``; the others' masks are all zero).  Not ``aec_to_parallel``: that
    one needs every seat to act once a cycle, in order, and Tractor's turn follows the tricks (the
    AEC environment's metadata says ``is_parallelizable: False``)."""
    return turn_based_aec_to_parallel(env(illegal=illegal, illegal_reward=illegal_reward, **kwargs))


register()

__all__ = ["env", "raw_env", "parallel_env", "register", "ENV_ID", "TractorAEC", "TractorEnv", "TractorVectorEnv"]
