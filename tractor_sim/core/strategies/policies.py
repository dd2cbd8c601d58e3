"""The built-in policies: one strategy per decision, as an experiment names them.

A policy that names no bid strategy (the auction's decision) plays ``strength``;
one that names no call strategy (Finding Friends) plays ``ace``.
"""

from ..registry import policy

policy(
    "random", declare="eager", discard="random", lead="random", follow="random", bid="random", call="random",
    description="random legal play everywhere, declaring as soon as allowed: the floor",
)
policy(
    "basic", declare="threshold", discard="lowest", lead="top_cards", follow="smart",
    description="declare long suits, bury low cards, cash top cards, win cheaply and feed a winning partner",
)
policy(
    "expert", declare="override", discard="expert", lead="expert", follow="expert",
    description="fights for the declaration, buries points when strong, safe throws, tracks voids to ruff and feed",
)
policy(
    "learned", declare="learned", discard="learned", lead="learned", follow="learned", bid="learned", call="learned",
    model="learned-{game}.json",
    description="declarations, burials, leads, follows, bids and calls scored by the shipped model of the game "
                "(learned-4x2.json, learned-5x2f.json: weights distilled from the search; the strategies' own "
                "defaults, all 0, play as expert)",
)
