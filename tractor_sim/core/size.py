"""The game size this compiled package plays (docs/rules.md section 9).

The one file that differs between the copies of ``core/``: this one is the
4-player 2-deck game's, and tractor_sim.play.packages writes each other
size's in its copy.  ``kernels/dims.py`` derives everything else from it.
"""

SEATS = 4  # players
DECKS = 2  # decks shuffled together
KITTY = 8  # cards left face down after the draw (docs/decisions.md 9.1)
FINDING_FRIENDS = False  # the landlord calls his friends (else two fixed teams of alternating seats)
