"""How a run or a step fails: the errors the chunks, the step API and the players share (a module of
its own, so that the modules that raise them need not import each other)."""

from __future__ import annotations

from tractor_sim.rules import sizes
from tractor_sim.rules.options import Rules


class SimulationError(RuntimeError):
    """A run stopped: names the strategy, the deal and seed, and the situation."""


class IllegalAnswer(ValueError):
    """An answer the rules do not allow now; the message names the decision, the seat and why."""


def replay_command(spec, deal_id: int) -> str:
    """The ``tractor-sim replay`` command that plays deal ``deal_id`` of ``spec`` again, as it was played."""
    import json
    import shlex

    from tractor_sim.rules.cards import RANKS

    args = ["tractor-sim", "replay", "--seed", str(spec.seed), "--deal", str(deal_id)]
    for opt, pol in zip(("--a", "--b"), spec.policies):
        args += [opt, pol if isinstance(pol, str) else json.dumps(pol, sort_keys=True)]
    size = sizes.as_size(spec.game)
    if not size.standard:
        args += ["--players", str(size.players), "--decks", str(size.decks)]
        if size.teams != "tractor":
            args += ["--teams", size.teams]
    if spec.mode == "match":
        args += ["--mode", "match"]
    else:
        if tuple(spec.levels) != (0, 0):
            args += ["--levels", ",".join(RANKS[int(x)] for x in spec.levels)]
        if spec.declaring_team:
            args += ["--declaring-team", str(spec.declaring_team)]
    default = Rules().to_dict()
    rules = {k: v for k, v in spec.rules.items() if default.get(k) != v}
    if rules:
        args += ["--rules", json.dumps(rules, sort_keys=True)]
    for m in spec.modules:
        args += ["--module", m]
    return shlex.join(args)


__all__ = ["SimulationError", "IllegalAnswer", "replay_command"]
