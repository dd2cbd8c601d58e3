"""The built-in strategies and policies of tractor-sim.

One module per decision (declare, discard, lead, follow, bid, call), each strategy one
small compiled function registered under a name with
``tractor_sim.play.registry.strategy``; ``policies`` bundles them.  They see only
their player's view, so they play honestly; the helpers they share live in
``tractor_sim.core.lib``.  A user's own module plugs in the same way.
"""

from . import bid, call, declare, discard, follow, lead, learned, policies  # noqa: F401
