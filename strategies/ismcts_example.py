"""OpenSpiel's ISMCTS as a player (needs the optional extra openspiel: pip install open_spiel).

    tractor-sim compare ismcts_example expert --module strategies/ismcts_example.py --deals 20 --chunk-size 5

Leads and follows are searched by open_spiel.python.algorithms.ismcts over python_tractor
(tractor_sim/openspiel.py), 16 simulations per card, worlds sampled from the seat's knowledge,
rollouts by the compiled expert; the other decisions are expert's.  Slow: seconds per deal.
"""

from tractor_sim.openspiel import ismcts_policy

ismcts_policy("ismcts_example", simulations=16, base="expert")
