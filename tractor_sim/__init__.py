"""tractor-sim: a Monte Carlo strategy simulator for Tractor (Shengji).

``simulate`` is imported on first use, so ``import tractor_sim`` stays light.
"""

__version__ = "0.1.0"


def __getattr__(name):
    if name == "simulate":
        from tractor_sim.runs.runner import simulate

        return simulate
    raise AttributeError(f"module 'tractor_sim' has no attribute {name!r}")


__all__ = ["simulate", "__version__"]
