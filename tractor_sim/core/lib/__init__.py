"""Compiled helpers for strategy writers, one module per decision they serve.

Every function here is ``@njit(cache=True)`` and works on the player view
(``tractor_sim.core.kernels.view``) or on count vectors plus a trump table ``tt``
(``tractor_sim.core.kernels.order``; ``trump_table(view)`` gives the one inside a
view).  A strategy runs about a hundred times per deal against a budget of a
few hundred nanoseconds per call, so the helpers used while playing allocate
nothing: they loop over the cards of one effective suit (the sorted rows
``V_SUITS + s``) instead of all 54, and write their answers into the
caller's ``out`` vector.

Conventions: a *position* is a card's rank inside its effective suit (higher
wins, equal positions are equal cards); *others* are the three other players
taken together, so "highest left" means that no card the others may still
hold (two copies minus my hand, everything played and what I buried) beats
it.  Functions that answer a play write counts into ``out`` (which the
kernel zeroes before each call) and return the number of cards.

The modules, lowest first: ``cards`` (my hand, what a card costs), ``counting`` (what the others
may hold), ``trick`` (the current trick), ``tuples`` (following with 3 and 4 decks), ``follow``,
``lead``, ``declare``, ``voids``, ``auction``.  Strategies use the names below as
``lib.cheapest_follow`` (``from tractor_sim.core import lib``), whichever module holds them.
"""

# the lead's kinds and the points per card id, for strategies too
from ..kernels.combos import KIND_PAIR, KIND_SINGLE, KIND_THROW, KIND_TRACTOR, MAX_UNITS, MIN_TRACTOR, TUPLE_SIZES
from ..kernels.scoring import FIVE, KING, POINTS, TEN
from .cards import (
    COST_PER_POS, FEED_MAX, FEED_PER_POINT, NOT_ADJACENT, PAIR_BREAK, TRUMP_COST, add_cheapest, card_cost,
    cheapest_card, cheapest_pair, hand_size, nsuit, pair_card_at, pair_cards, points, refresh_suit_counts,
    suit_cards, suit_len, tractors, trump_table,
)
from .counting import (
    is_top_card, is_top_pair, is_top_tractor, is_top_unit, top_copies_pos, top_pair_pos, top_shape_pos,
    top_single_pos, top_tractor_pos, unseen,
)
from .trick import (
    RUFF, current_best, is_partner, is_top_lead_unit, lead_size, lead_tuples, opponent_after, partner_winning,
    play_key_of, put_shape, put_unit, tractors_asked, trick_points, trick_winner_seat, winning_follow,
    winning_follow_given,
)
from .tuples import RAISE_STEP, cheapest_tuple_follow, random_tuple_follow, required_tuple_tractors, tuple_need
from .follow import cheapest_follow, cheapest_follow_given, follow_need, random_follow, required_tractors
from .lead import random_lead, random_tuple_lead
from .declare import (
    best_suit_by_count, best_suit_declaration, best_suit_option, can_declare_count_now, can_declare_now,
    declare_options, joker_declaration, joker_option, most_copies_now, no_suit_strength, standing_count,
    strength_at, suit_strength,
)
from .voids import SCRATCH_LIB, S_LAST, S_MYPOS, S_N, S_SNAP, S_SUIT, S_VOID, shown_void, track_voids
from .auction import best_trump_suit, my_level, show_highest
