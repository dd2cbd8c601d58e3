"""Source texts of plug-in strategy files that tests write to a temporary folder and load.

A plug-in is loaded from its own file, outside the package, as a user's would be.
"""


def illegal_follow(name: str, policy: str, preamble: str = "") -> str:
    """A module with follow strategy ``name``, which plays my first cards by id whatever the suit
    led (illegal as soon as I hold the led suit), and a policy ``policy`` that uses it.
    ``preamble``: lines run when the module loads."""
    return f'''
from tractor_sim.play.registry import strategy, policy
from tractor_sim.core.kernels.view import M_LEAD_N, V_HAND, V_META
{preamble}

@strategy("follow", "{name}", description="ignores the suit: illegal")
def {name}(view, params, rng, scratch, out):
    n = view[V_META, M_LEAD_N]
    k = 0
    for c in range(54):
        while k < n and out[c] < view[V_HAND, c]:
            out[c] += 1
            k += 1
    return n


policy("{policy}", declare="eager", discard="lowest", lead="random", follow="{name}")
'''


def out_of_bounds(name: str, policy: str, row_offset: int = 0) -> str:
    """A module with follow strategy ``name`` that plays like ``smart`` but first writes one row past its
    view (the write that changed 48 of 4,000 deals before plug-ins were bounds-checked)."""
    return f'''
from tractor_sim.play.registry import strategy, policy, get_strategy
from tractor_sim.core.kernels.view import V_ROWS

_smart = get_strategy("follow", "smart").dispatcher


@strategy("follow", "{name}", description="scribbles past its view")
def {name}(view, params, rng, scratch, out):
    view[V_ROWS + {row_offset}, 0] = 7
    return _smart(view, params, rng, scratch, out)


policy("{policy}", declare="threshold", discard="lowest", lead="top_cards", follow="{name}")
'''


def endless(name: str, policy: str) -> str:
    """A module with follow strategy ``name`` that never returns."""
    return f'''
from tractor_sim.play.registry import strategy, policy
from tractor_sim.core.kernels.view import V_HAND


@strategy("follow", "{name}", description="loops forever")
def {name}(view, params, rng, scratch, out):
    while view[V_HAND, 0] >= 0:
        scratch[0] += 1
    return 0


policy("{policy}", declare="threshold", discard="lowest", lead="top_cards", follow="{name}")
'''
