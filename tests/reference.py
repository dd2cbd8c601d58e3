"""Independent pure-Python reference of the Tractor rules (the test oracle).

Written straight from ``docs/rules.md`` and ``docs/decisions.md``, on plain
lists of distinct-card ids (``tractor_sim.rules.cards``: ``suit * 13 + rank``,
52 = BJ, 53 = RJ; every id may appear twice).  Nothing else of the package is
used, so the compiled kernels can be checked against it.

A trump spec is ``(rank, suit)``: rank 0..12 (2..A), suit 0..3 (S H D C) or
4 = no trump suit (a joker pair was declared).  ``rules`` is ``None`` or a
plain dict of option names (or an object with them as attributes); missing
options take their defaults.  Every option of ``tractor_sim.rules.options.Rules`` is
implemented (docs/decisions.md, "Variants"): ``follow_tractor`` in
legal_follow, the overrides in declare_allowed, ``must_defend`` in
level_after, the auction in bid_ok, auction_team, show_winner and
next_dealer.

Positions (the numbers are this module's own; only their order and the
"differs by one" steps matter):

* a plain suit with a trump suit: ranks 2..A without the trump rank, numbered
  0..11 (so the neighbours of the skipped rank are one step apart);
* the trumps with a trump suit ``s``: the cards of ``s`` without the rank
  0..11, the three off-suit rank cards 12 (equal to each other), the rank
  card of ``s`` 13, BJ 14, RJ 15;
* no trump suit: the plain suits 0..12 (2..A, the rank cards stay in place),
  BJ 0, RJ 1; with ``rank_trumps_in_no_trump`` the four rank cards leave
  their suits (which then number 0..11) and are trumps at 0, BJ 1, RJ 2.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from tractor_sim.rules.cards import BJ, NO_SUIT, RJ, card_id, points, rank_of, suit_of

TRUMP = NO_SUIT  # effective suit of all trumps

DEFAULTS = {
    "rank_trumps_in_no_trump": False,
    "throw_check": "all_others",
    "throw_forced_part": "fewest_then_lowest",
    "throw_penalty": 10,
    "kitty_multiplier": "twice_lead_size",
    "match_end": "pass_ace",
    "self_override": "strengthen_only",
    "follow_tractor": "none",
    "pair_override": "none",
    "joker_pair_override": False,
    "must_defend": "none",
    "declaring": "draw",
}

_CHOICES = {
    "throw_check": ("all_others", "opponents_only"),
    "throw_forced_part": ("fewest_then_lowest", "lowest", "highest"),
    "kitty_multiplier": ("twice_lead_size", "pow2_pairs", "twice_largest_unit"),
    "match_end": ("pass_ace", "reach_ace"),
    "self_override": ("strengthen_only", "any"),
    "follow_tractor": ("none", "tractor", "shape_first"),
    "pair_override": ("none", "suit_order"),
    "must_defend": ("none", "ace", "ace_5_10_k"),
    "declaring": ("draw", "auction"),
}


def _opt(rules, name):
    """The value of one option; unknown values are an error."""
    if rules is None:
        value = DEFAULTS[name]
    elif isinstance(rules, dict):
        value = rules.get(name, DEFAULTS[name])
    else:  # an object with attributes (e.g. a Rules instance)
        value = getattr(rules, name, DEFAULTS[name])
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ValueError(f"option {name}={value!r}: expected one of {_CHOICES[name]}")
    return value


# ---------------------------------------------------------------------------
# Card order


def _rank_is_trump(trump, rules):
    """Whether the cards of the trump rank are trumps in this round."""
    rank, suit = trump
    if suit != NO_SUIT:
        return True
    return bool(_opt(rules, "rank_trumps_in_no_trump"))


def _effective_suit(card, trump, rules):
    """0..3 for a plain suit, 4 for a trump."""
    rank, suit = trump
    if card >= BJ:
        return TRUMP
    if rank_of(card) == rank and _rank_is_trump(trump, rules):
        return TRUMP
    if suit != NO_SUIT and suit_of(card) == suit:
        return TRUMP
    return suit_of(card)


def _position(card, trump, rules):
    """Dense place of the card in its effective suit (higher = stronger)."""
    rank, suit = trump
    rank_trump = _rank_is_trump(trump, rules)

    def plain_place(r):
        # a rank that became trump is skipped in its printed suit
        if rank_trump and r > rank:
            return r - 1
        return r

    if suit != NO_SUIT:
        if card == RJ:
            return 15
        if card == BJ:
            return 14
        if rank_of(card) == rank:
            return 13 if suit_of(card) == suit else 12
        return plain_place(rank_of(card))
    # no trump suit
    if rank_trump:
        if card == RJ:
            return 2
        if card == BJ:
            return 1
        if rank_of(card) == rank:
            return 0
    else:
        if card == RJ:
            return 1
        if card == BJ:
            return 0
    return plain_place(rank_of(card))


@lru_cache(maxsize=None)
def _card_order(rank, suit, rank_trump):
    """Every card's (effective suit, position) under one trump, worked out once: the long legality
    run asks millions of times."""
    trump, rules = (rank, suit), {"rank_trumps_in_no_trump": rank_trump}
    return (tuple(_effective_suit(c, trump, rules) for c in range(54)),
            tuple(_position(c, trump, rules) for c in range(54)))


def _order(trump, rules):
    """(effective suits, positions), each indexed by card id."""
    rank, suit = trump
    return _card_order(rank, suit, _rank_is_trump(trump, rules))


def effective_suit(card, trump, rules=None):
    """0..3 for a plain suit, 4 for a trump."""
    return _order(trump, rules)[0][card]


def position(card, trump, rules=None):
    """Dense place of the card in its effective suit (higher = stronger)."""
    return _order(trump, rules)[1][card]


# ---------------------------------------------------------------------------
# Units


def _unit(kind, cards, trump, rules):
    pos = _order(trump, rules)[1]
    cards = sorted(cards, key=lambda c: (-pos[c], c))
    return {
        "type": kind,
        "cards": cards,
        "top": pos[cards[0]],
        "pairs": 0 if kind == "single" else len(cards) // 2,
    }


def _suit_of_set(cards, trump, rules):
    if len(cards) == 0:
        raise ValueError("no cards")
    order = _order(trump, rules)[0]
    suits = {order[c] for c in cards}
    if len(suits) != 1:
        raise ValueError("cards of more than one effective suit")
    return suits.pop()


def decompose(cards, trump, rules=None):
    """Tractors (longest, then highest), then pairs, then singles.

    Greedy as decisions.md says: repeatedly take the longest run of
    consecutive positions that each still hold a pair (ties: the highest
    top); at a position holding several pairs (off-suit trump-rank cards)
    the lowest card id is used.  Equal pairs/singles are listed by card id.
    """
    rank, suit = trump
    return list(_decomposition(tuple(sorted(cards)), rank, suit, _rank_is_trump(trump, rules)))


@lru_cache(maxsize=1 << 16)
def _decomposition(cards, rank, suit, rank_trump):
    """``decompose`` of sorted ``cards``, kept: a deal's plays and leads repeat (the same lead is
    judged for every follower).  The units are read, never changed, by every caller."""
    trump, rules = (rank, suit), {"rank_trumps_in_no_trump": rank_trump}
    _suit_of_set(cards, trump, rules)
    counts = Counter(cards)
    order = _order(trump, rules)[1]
    pos = {c: order[c] for c in counts}

    # available pairs per position, as a sorted list of ids (an id with
    # count 2 gives one entry)
    pairs_at = {}
    for c in sorted(counts):
        for _ in range(counts[c] // 2):
            pairs_at.setdefault(pos[c], []).append(c)

    tractors = []
    while True:
        held = sorted(p for p, ids in pairs_at.items() if ids)
        best = None  # (length, top, start)
        i = 0
        while i < len(held):
            j = i
            while j + 1 < len(held) and held[j + 1] == held[j] + 1:
                j += 1
            length = j - i + 1
            if length >= 2:
                cand = (length, held[j], held[i])
                if best is None or cand[:2] > best[:2]:
                    best = cand
            i = j + 1
        if best is None:
            break
        length, top, start = best
        chosen = []
        for p in range(start, top + 1):
            c = pairs_at[p].pop(0)  # lowest id at this position
            chosen += [c, c]
        tractors.append(_unit("tractor", chosen, trump, rules))

    pair_ids = sorted((c for ids in pairs_at.values() for c in ids), key=lambda c: (-pos[c], c))
    single_ids = sorted((c for c in counts if counts[c] % 2 == 1), key=lambda c: (-pos[c], c))
    # (greedy order is already longest-then-highest; the stable sort only
    # makes that explicit)
    tractors.sort(key=lambda u: (-u["pairs"], -u["top"]))
    return tuple(
        tractors
        + [_unit("pair", [c, c], trump, rules) for c in pair_ids]
        + [_unit("single", [c], trump, rules) for c in single_ids]
    )


def classify(cards, trump, rules=None):
    suit = _suit_of_set(list(cards), trump, rules)
    units = decompose(cards, trump, rules)
    if len(units) == 1:
        kind = units[0]["type"]
    else:
        kind = "throw"
    return {"kind": kind, "suit": suit, "units": units}


def _pair_count(units):
    return sum(u["pairs"] for u in units)


def _arrangement(units):
    """Counts of tractors of each length, pairs and singles."""
    return Counter((u["type"], u["pairs"]) for u in units)


# ---------------------------------------------------------------------------
# Throws


def _can_beat(unit, hand, suit, trump, rules):
    """Whether ``hand`` beats ``unit`` within the effective suit ``suit``."""
    in_suit = [c for c in hand if effective_suit(c, trump, rules) == suit]
    top = unit["top"]
    if unit["type"] == "single":
        return any(position(c, trump, rules) > top for c in in_suit)
    counts = Counter(in_suit)
    pair_positions = {position(c, trump, rules) for c, n in counts.items() if n >= 2}
    if unit["type"] == "pair":
        return any(p > top for p in pair_positions)
    k = unit["pairs"]
    for q in pair_positions:
        if q > top and all(q - d in pair_positions for d in range(k)):
            return True
    return False


def check_throw(lead, hands, leader, declarers, trump, rules=None):
    info = classify(lead, trump, rules)
    ok_result = {"ok": True, "blocked_by": None, "forced": [], "penalty": 0}
    if info["kind"] != "throw":
        return ok_result
    suit = info["suit"]
    units = info["units"]

    seats = [(leader + i) % 4 for i in (1, 2, 3)]
    if _opt(rules, "throw_check") == "opponents_only":
        seats = [s for s in seats if s % 2 != leader % 2]

    beatable = []  # (index in decomposition, unit)
    for idx, u in enumerate(units):
        if any(_can_beat(u, hands[s], suit, trump, rules) for s in seats):
            beatable.append((idx, u))
    if not beatable:
        return ok_result

    choice = _opt(rules, "throw_forced_part")
    if choice == "fewest_then_lowest":
        key = lambda iu: (len(iu[1]["cards"]), iu[1]["top"], iu[0])
    elif choice == "lowest":
        key = lambda iu: (iu[1]["top"], len(iu[1]["cards"]), iu[0])
    else:  # highest
        key = lambda iu: (-iu[1]["top"], len(iu[1]["cards"]), iu[0])
    forced = min(beatable, key=key)[1]

    blocked_by = next(s for s in seats if _can_beat(forced, hands[s], suit, trump, rules))
    taken_back = len(lead) - len(forced["cards"])
    amount = int(_opt(rules, "throw_penalty")) * taken_back
    penalty = amount if leader in tuple(declarers) else -amount
    return {"ok": False, "blocked_by": blocked_by, "forced": list(forced["cards"]), "penalty": penalty}


# ---------------------------------------------------------------------------
# Following


def _is_submultiset(part, whole):
    have = Counter(whole)
    for c, n in Counter(part).items():
        if have[c] < n:
            return False
    return True


def legal_follow(hand, lead, play, trump, rules=None):
    """Follow suit, then the pairs; with ``follow_tractor`` also the tractors.

    ``follow_tractor="tractor"``: to a tractor lead, a follower holding more
    cards of the suit than were led, and a tractor of the lead's length in
    it, must play such a tractor.  ``"shape_first"``: the same for every lead
    (throws too): the play's cards of the suit must hold as many pairs in
    disjoint tractors of the lead's tractor lengths (each length of the lead
    used once) as the hand's cards of the suit can (``_tractor_cover``).
    """
    mode = _opt(rules, "follow_tractor")
    n = len(lead)
    if len(play) != n or not _is_submultiset(play, hand):
        return False
    suit = _suit_of_set(list(lead), trump, rules)
    lead_pairs = _pair_count(decompose(lead, trump, rules))

    order = _order(trump, rules)[0]
    hand_s = [c for c in hand if order[c] == suit]
    play_s = [c for c in play if order[c] == suit]
    if len(hand_s) >= n:
        if len(play_s) != n:
            return False
    elif len(play_s) != len(hand_s):
        return False

    hand_pairs = sum(m // 2 for m in Counter(hand_s).values())
    play_pairs = sum(m // 2 for m in Counter(play_s).values())
    if play_pairs < min(lead_pairs, hand_pairs):
        return False
    kind = classify(lead, trump, rules)["kind"]
    if mode == "none" or len(hand_s) <= n or kind not in ("tractor", "throw"):
        return True
    if kind == "throw" and mode != "shape_first":
        return True
    lengths = [u["pairs"] for u in decompose(lead, trump, rules) if u["type"] == "tractor"]
    return _tractor_cover(play_s, lengths, trump, rules) >= _tractor_cover(hand_s, lengths, trump, rules)


def _tractor_cover(cards, lengths, trump, rules):
    """The most pairs of ``cards`` that disjoint tractors, one of each length in ``lengths``
    (or fewer), can take: every way of placing them is tried."""
    pairs = Counter()
    for c, m in Counter(cards).items():
        pairs[position(c, trump, rules)] += m // 2

    def best(i):
        if i == len(lengths):
            return 0
        k = lengths[i]
        result = best(i + 1)  # tractor i left out
        for top in [p for p in pairs if pairs[p] > 0]:
            span = [top - d for d in range(k)]
            if all(pairs[q] > 0 for q in span):
                for q in span:
                    pairs[q] -= 1
                result = max(result, k + best(i + 1))
                for q in span:
                    pairs[q] += 1
        return result

    return best(0)


# ---------------------------------------------------------------------------
# Trick winner


def trick_winner(plays, leader, trump, rules=None):
    lead = list(plays[0])
    info = classify(lead, trump, rules)
    suit = info["suit"]
    kind = info["kind"]

    def one_suit(play):
        suits = {effective_suit(c, trump, rules) for c in play}
        return suits.pop() if len(suits) == 1 else None

    best_i = 0
    best_key = None

    if kind == "throw":
        if suit == TRUMP:
            return leader
        shape = _arrangement(info["units"])
        for i, play in enumerate(plays[1:], start=1):
            if len(play) == 0 or one_suit(play) != TRUMP:
                continue
            units = decompose(play, trump, rules)
            if _arrangement(units) != shape:
                continue
            # tractors first (longest, then highest), then pairs, then
            # singles: the first unit is the one compared
            key = units[0]["top"]
            if best_key is None or key > best_key:
                best_i, best_key = i, key
        return (leader + best_i) % 4

    for i, play in enumerate(plays):
        play = list(play)
        s = one_suit(play) if play else None
        if s is None or s not in (suit, TRUMP):
            continue
        if kind == "single":
            if len(play) != 1:
                continue
            top = position(play[0], trump, rules)
        elif kind == "pair":
            if len(play) != 2 or play[0] != play[1]:
                continue
            top = position(play[0], trump, rules)
        else:  # tractor
            units = decompose(play, trump, rules)
            k = info["units"][0]["pairs"]
            if len(units) != 1 or units[0]["type"] != "tractor" or units[0]["pairs"] != k:
                continue
            top = units[0]["top"]
        key = (s == TRUMP, top)
        if best_key is None or key > best_key:
            best_i, best_key = i, key
    return (leader + best_i) % 4


def trick_points(plays):
    return sum(points(p) for p in plays)


# ---------------------------------------------------------------------------
# Scoring


def kitty_bonus(kitty, last_lead, trump, rules=None):
    mode = _opt(rules, "kitty_multiplier")
    if mode == "twice_lead_size":
        mult = 2 * len(last_lead)
    else:
        units = decompose(last_lead, trump, rules)
        if mode == "pow2_pairs":
            mult = 2 ** (_pair_count(units) + 1)
        else:  # twice_largest_unit
            mult = 2 * max(len(u["cards"]) for u in units)
    return points(kitty) * mult


def level_change(p, rules=None):
    if p <= 0:
        return {"winner": "declarers", "levels": 3, "declarers_keep": True}
    if p < 40:
        return {"winner": "declarers", "levels": 2, "declarers_keep": True}
    if p < 80:
        return {"winner": "declarers", "levels": 1, "declarers_keep": True}
    if p < 120:
        return {"winner": "opponents", "levels": 0, "declarers_keep": False}
    return {"winner": "opponents", "levels": 1 + (p - 120) // 40, "declarers_keep": False}


def level_after(level, gain, as_declarers, rules=None):
    """A team's level after gaining ``gain`` levels from ``level`` (``must_defend``).

    The team climbs one level at a time; it cannot climb from a must-defend
    level (``ace``: A; ``ace_5_10_k``: 5, 10, K, A) unless that is the level it
    played this deal from and it won as declarers.
    """
    stops = {"none": (), "ace": (12,), "ace_5_10_k": (3, 8, 11, 12)}[_opt(rules, "must_defend")]
    new = level
    for _ in range(gain):
        if new in stops and not (new == level and as_declarers):
            break
        new += 1
    return new


def next_starter(starter, declarers_keep):
    return (starter + 2) % 4 if declarers_keep else (starter + 1) % 4


def match_winner(levels, rules=None):
    """The team that has won the match, or None.

    ``pass_ace``: a level above A (> 12); ``reach_ace``: a level of A or more.
    If both teams qualify (not reachable in a match, where only one team
    gains per deal) the higher level wins, team 0 on a tie.
    """
    limit = 13 if _opt(rules, "match_end") == "pass_ace" else 12
    ok = [t for t in (0, 1) if levels[t] >= limit]
    if not ok:
        return None
    if len(ok) == 2:
        return 0 if levels[0] >= levels[1] else 1
    return ok[0]


# ---------------------------------------------------------------------------
# Declaring


def declare_allowed(hand, current, seat, trump_rank, rules=None):
    """Legal declarations ``(kind, card)``, sorted (kind 1 single, 2 pair, 3 joker pair).

    ``self_override="any"``: one's own declaration is overridden like anybody
    else's (a single by any pair or joker pair, a pair by a joker pair).
    """
    suit_order = _opt(rules, "pair_override") == "suit_order"
    red_over_black = _opt(rules, "joker_pair_override")
    self_any = _opt(rules, "self_override") == "any"
    counts = Counter(hand)
    options = []
    for s in range(4):
        c = card_id(s, trump_rank)
        if counts[c] >= 1:
            options.append((1, c))
        if counts[c] >= 2:
            options.append((2, c))
    for j in (BJ, RJ):
        if counts[j] >= 2:
            options.append((3, j))

    if current is None:
        return sorted(options)
    cur_seat, cur_kind, cur_card = current
    if cur_seat == seat and not self_any:
        if cur_kind == 1 and (2, cur_card) in options:
            return [(2, cur_card)]
        return []
    if cur_kind == 1:
        return sorted(o for o in options if o[0] in (2, 3))
    if cur_kind == 2:
        # pair_override: a pair of a higher suit (S > H > D > C: a lower suit number)
        return sorted(o for o in options if o[0] == 3 or (o[0] == 2 and suit_order
                                                           and suit_of(o[1]) < suit_of(cur_card)))
    if cur_kind == 3 and red_over_black and cur_card == BJ:
        return [o for o in options if o == (3, RJ)]
    return []


def kitty_flip_suit(kitty, trump_rank):
    """Suit set by turning up the kitty (nobody declared in a later round)."""
    for c in kitty:
        if c < BJ and rank_of(c) == trump_rank:
            return suit_of(c)
    best = None
    for c in kitty:
        if c >= BJ:
            continue
        if best is None or rank_of(c) > rank_of(best):
            best = c
    return NO_SUIT if best is None else suit_of(best)


# ---------------------------------------------------------------------------
# The auction (declaring = "auction")


def bid_ok(bid):
    """A bid is a whole number of points, a multiple of 5, from 0 to 200."""
    return isinstance(bid, int) and 0 <= bid <= 200 and bid % 5 == 0


def auction_team(bids, dealer):
    """The declaring team from the bids ``{team: points}``: the higher; a tie goes to the dealer's
    team, which bid first."""
    first, second = dealer % 2, 1 - dealer % 2
    return first if bids[first] >= bids[second] else second


def show_winner(shown, dealer):
    """The starter from the cards shown ``{seat: card}``: the highest (RJ, BJ, then A down to 2
    whatever the suit); between equal cards the one shown first, from the dealer on."""
    def height(card):
        return {RJ: 14, BJ: 13}.get(card, rank_of(card) if card < BJ else -1)

    order = [(dealer + i) % 4 for i in range(4)]
    best = order[0]
    for seat in order[1:]:
        if height(shown[seat]) > height(shown[best]):
            best = seat
    return best


def next_dealer(dealer):
    """The deal passes to the right, counterclockwise: the next seat to act."""
    return (dealer + 1) % 4
