"""Declare strategies: whether to reveal trump-rank cards or a joker pair during the draw.

The kernel asks only when some declaration is allowed (after each card I
draw, and once more after the last card).  Answer ``out[0]`` = kind (1
single, 2 pair, 3 joker pair), ``out[1]`` = card and return 1, or return 0
to pass; with more than two decks ``out[2]`` = the cards shown (decisions.md
9.8: a pair kind is 2..DECKS cards of the trump rank, a joker pair 2..DECKS
jokers), and these strategies show the most copies they may: more copies
override fewer and resist overriding.  A suit's *strength*
(``strategy_lib.suit_strength``) is how many of my cards would be trumps if
it were the trump suit.
"""

from numba import njit

from .. import lib as sl
from ..kernels.declare import ANS_COUNT, BJ, JOKER_PAIR, PAIR, SINGLE, kind_of
from ..kernels.dims import DECKS, DRAWN, RANKS, team_of
from ..kernels.dims import PAIR as PAIR_CARDS  # cards in a pair (PAIR here: the declaration kind)
from ..kernels.view import M_DECL_CARD, M_DECL_KIND, M_DECL_SEAT, M_DRAWN, M_ROUND1, M_SEAT, V_META
from ..registry import MAX_CARDS, MAX_POINTS, SWITCH, slots, strategy  # noqa: F401 - the ranges

LAST_CHANCE = DRAWN  # M_DRAWN once every card is drawn: the final round of chances


@njit(cache=True)
def _answer(out, kind, card, count):
    """Declare ``count`` copies of ``card`` (the count is written only with more than two decks,
    where the kernel reads it: view.py)."""
    if kind <= 0:
        return 0
    out[0] = kind
    out[1] = card
    if DECKS > PAIR_CARDS:
        out[ANS_COUNT] = count
    return 1


@strategy("declare", "never")
def never(view, params, rng, scratch, out):
    """Never declare: leave the trump to the others (or to the kitty).

    The baseline that shows what declaring is worth.
    """
    return 0


@strategy("declare", "eager")
def eager(view, params, rng, scratch, out):
    """Declare as soon as anything is allowed, the strongest option first.

    Idea: in round 1 the declarer's team takes the kitty and the lead, so grab
    the declaration before anyone else.  Strongest: the most cards (with more
    decks), jokers at equal counts (a joker pair cannot be overridden with two
    decks), then a pair, then a single; between suits, the one that would give
    me most trumps.
    """
    jokers, joker = sl.joker_declaration(view)
    kind, n, card, _st = sl.best_suit_declaration(view, 0)
    if joker >= 0 and jokers >= n:
        return _answer(out, JOKER_PAIR, joker, jokers)
    return _answer(out, kind, card, n)


THRESHOLD_PARAMS = {"min_cards": 7.0, "jokers": 1.0}
THRESHOLD = slots(THRESHOLD_PARAMS)


@strategy("declare", "threshold", params=THRESHOLD_PARAMS,
          ranges={"min_cards": (0.0, MAX_CARDS), "jokers": SWITCH})
def threshold(view, params, rng, scratch, out):
    """Declare a suit only with at least ``min_cards`` of its trumps in hand.

    Idea: a trump suit is worth choosing only when I am long in it (its cards,
    every trump-rank card, the jokers).  Never override my partner.  A joker
    pair (no trump suit) when ``jokers`` is on and no suit qualifies: to take
    the declaration from an opponent, or at the last chance when nobody
    declared (rather than a redeal or a kitty flip).
    """
    me = view[V_META, M_SEAT]
    cur_seat = view[V_META, M_DECL_SEAT]
    cur_kind = view[V_META, M_DECL_KIND]
    if cur_kind > 0 and cur_seat != me and team_of(cur_seat) == team_of(me):
        return 0
    kind, n, card, _st = sl.best_suit_declaration(view, params[THRESHOLD.min_cards])
    if kind > 0:
        return _answer(out, kind, card, n)
    if params[THRESHOLD.jokers] > 0:
        jokers, joker = sl.joker_declaration(view)
        if joker >= 0 and (cur_kind > 0 or view[V_META, M_DRAWN] >= LAST_CHANCE):
            return _answer(out, JOKER_PAIR, joker, jokers)
    return 0


OVERRIDE_PARAMS = {"min_cards": 6.0, "margin": 2.0, "jokers": 1.0}
OVERRIDE = slots(OVERRIDE_PARAMS)


@strategy("declare", "override", params=OVERRIDE_PARAMS,
          ranges={"min_cards": (0.0, MAX_CARDS), "margin": (0.0, MAX_CARDS), "jokers": SWITCH})
def override(view, params, rng, scratch, out):
    """Declare with a strong suit, strengthen my single, override when my option is stronger.

    Idea: a declaration is worth fighting for.  With nothing standing, declare
    a suit of at least ``min_cards`` trumps.  My own single becomes a pair as
    soon as I can (a pair resists overriding; with more decks: my declaration
    gets every copy I hold of its card).  My partner's stands.  An opponent's
    is overridden when my option is stronger for me: in round 1 (where the
    declaration makes the declaring team) any suit of ``min_cards``; later
    (only the suit is at stake) a suit at least ``margin`` trumps longer than
    theirs in my hand.  A joker pair when I am weak in their suit (``jokers``
    on), or at the last chance.  With two decks a joker pair stands; with more
    it is fought like a suit (more cards of the trump rank beat it), my
    strength under it being my jokers.
    """
    return override_answer(view, out, params[OVERRIDE.min_cards], params[OVERRIDE.margin], params[OVERRIDE.jokers])


@njit(cache=True)
def override_answer(view, out, min_cards, margin, use_jokers):
    """The override strategy's answer for its three parameters (the learned declaration starts from it)."""
    me = view[V_META, M_SEAT]
    cur_seat = view[V_META, M_DECL_SEAT]
    cur_kind = view[V_META, M_DECL_KIND]
    cur_card = view[V_META, M_DECL_CARD]
    jokers, joker = sl.joker_declaration(view) if use_jokers > 0 else (0, -1)
    if cur_kind == 0:
        kind, n, card, _st = sl.best_suit_declaration(view, min_cards)
        if kind > 0:
            return _answer(out, kind, card, n)
        if joker >= 0 and view[V_META, M_DRAWN] >= LAST_CHANCE:
            return _answer(out, JOKER_PAIR, joker, jokers)
        return 0
    if cur_seat == me:
        if DECKS == PAIR_CARDS:
            if cur_kind == SINGLE and sl.can_declare_now(view, PAIR, cur_card):
                return _answer(out, PAIR, cur_card, PAIR_CARDS)
            return 0
        n = sl.most_copies_now(view, cur_card)
        return _answer(out, kind_of(n, cur_card), cur_card, n) if n > 0 else 0
    if team_of(cur_seat) == team_of(me) or (DECKS == PAIR_CARDS and cur_kind == JOKER_PAIR):
        return 0
    standing = sl.suit_strength(view, cur_card // RANKS) if cur_card < BJ else sl.no_suit_strength(view)
    need = min_cards if view[V_META, M_ROUND1] == 1 else max(min_cards, standing + margin)
    kind, n, card, _st = sl.best_suit_declaration(view, need)
    if kind > 0:
        return _answer(out, kind, card, n)
    if joker >= 0 and standing < min_cards:
        return _answer(out, JOKER_PAIR, joker, jokers)
    return 0
