"""tractor-sim: a Monte Carlo strategy simulator for Tractor (Shengji).

``simulate`` is imported on first use, so ``import tractor_sim`` stays light.
"""

__version__ = "0.1.0"


def __getattr__(name):
    if name == "simulate":
        from tractor_sim.runs.runner import simulate

        return simulate
    raise AttributeError(f"module 'tractor_sim' has no attribute {name!r}")


def _register_with_gymnasium() -> None:
    """When gymnasium is already imported, register ``tractor_sim/Tractor-v0`` now (cheap: the entry
    point is imported only by ``gymnasium.make``); else ``import tractor_sim.env`` does it."""
    import sys

    gym = sys.modules.get("gymnasium")
    if gym is not None and hasattr(gym, "registry") and "tractor_sim/Tractor-v0" not in gym.registry:
        gym.register(id="tractor_sim/Tractor-v0", entry_point="tractor_sim.play.env:TractorEnv",
                     vector_entry_point="tractor_sim.play.vector:TractorVectorEnv")


_register_with_gymnasium()

__all__ = ["simulate", "__version__"]
