"""A Finding Friends call strategy (compiled): the landlord calls the Ace of his longest side suit.

    tractor-sim run strategies/friends.toml

In Finding Friends (5, 6 or 8 players: docs/decisions.md 9.11) the landlord, after burying, calls
``CALLS`` cards: ``out[i]`` the card of call i (not a joker, not of the trump rank) and
``out[CALLS + i]`` which copy of it (1..DECKS, in the order the copies are played).  Whoever
plays a called copy joins his team.  The sizes (CALLS, DECKS, ...) come from kernels.dims: the
same file is compiled again for each game size.
"""

from tractor_sim.core.kernels.dims import CALLS, DECKS, RANKS, SUITS
from tractor_sim.core.kernels.view import M_TRUMP_RANK, M_TRUMP_SUIT, V_BURIED, V_HAND, V_META
from tractor_sim.play.registry import policy, strategy


@strategy("call", "long_suit_ace", description="Call the highest cards I lack in my longest side suits.")
def long_suit_ace(view, params, rng, scratch, out):
    """Suits by my length in them (longest first, the trump suit last); in each, from the Ace down,
    the first card another player holds a copy of, at the copy after mine: I can lead the suit to
    find my friend, and he holds a high card of it."""
    rank = view[V_META, M_TRUMP_RANK]
    trump = view[V_META, M_TRUMP_SUIT]
    made = 0
    used = 0  # suits already called from, a bit per suit
    while made < CALLS:
        best, best_len = -1, -1
        for s in range(SUITS):
            if used & (1 << s):
                continue
            length = 0
            for r in range(RANKS):
                length += view[V_HAND, s * RANKS + r]
            if s == trump:
                length -= 100  # the trump suit last
            if length > best_len:
                best, best_len = s, length
        if best < 0:
            break
        used |= 1 << best
        for r in range(RANKS - 1, -1, -1):
            c = best * RANKS + r
            if r != rank and view[V_HAND, c] + view[V_BURIED, c] < DECKS:
                out[made] = c
                out[CALLS + made] = view[V_HAND, c] + 1
                made += 1
                break
    while made < CALLS:  # nothing left to call well: any card allowed (the call is used up)
        out[made] = 1 if rank == 0 else 0
        out[CALLS + made] = 1
        made += 1
    return CALLS


policy("long_caller", declare="threshold", discard="lowest", lead="top_cards", follow="smart",
       call="long_suit_ace", description="basic play, calling the Ace of its longest side suit")
