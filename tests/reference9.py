"""Independent pure-Python reference of docs/rules.md section 9 (more players, more decks, Finding Friends).

The ground truth the generalized kernels will be checked against.  Written
from ``docs/rules.md`` (sections 1-9) and ``docs/decisions.md`` (its last
section, "More decks, more players, Finding Friends", decisions 9.1-9.11), on plain lists
of distinct-card ids (``tractor_sim.rules.cards``: ``suit * 13 + rank``, 52 = BJ,
53 = RJ; with ``D`` decks every id may appear ``D`` times).  From the package
it uses only the card naming helpers that ``tests/reference.py`` uses; it
does not import ``tests/reference.py`` either, so that the equivalence test at
4 players and 2 decks compares two separate readings of the rules.

A game size is a ``Game(players, decks, teams)``.  A trump spec is ``(rank,
suit)`` as in ``tests/reference.py``: rank 0..12 (2..A), suit 0..3 (S H D C)
or 4 = no trump suit.  ``rules`` is ``None`` or a dict of the option names of
``tractor_sim.rules.options.Rules`` (missing ones take their defaults).

Vocabulary: a *group* is all the copies of one distinct card in a set of
cards (a count 1..D).  A *tuple* is ``m`` identical cards, ``2 <= m <= D``.
A *unit* of a decomposition is a single, a tuple or a tractor; its *shape* is
``(size, length)``: a single ``(1, 1)``, a tuple ``(m, 1)``, a tractor of
``L`` tuples of size ``m`` ``(m, L)``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from tractor_sim.rules.cards import BJ, NO_SUIT, RJ, points, rank_of, suit_of

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
}

TEAM_MODES = ("tractor", "friends")


def _opt(rules, name):
    """The value of one option; unknown values are an error."""
    if rules is None:
        value = DEFAULTS[name]
    elif isinstance(rules, dict):
        value = rules.get(name, DEFAULTS[name])
    else:
        value = getattr(rules, name, DEFAULTS[name])
    if name in _CHOICES and value not in _CHOICES[name]:
        raise ValueError(f"option {name}={value!r}: expected one of {_CHOICES[name]}")
    return value


# ---------------------------------------------------------------------------
# Game size (section 9, "Size" and "Teams")


@dataclass(frozen=True)
class Game:
    """Players 4..8, decks 2..4 (default players // 2), team mode ``tractor`` or ``friends``."""

    players: int = 4
    decks: int | None = None
    teams: str = "tractor"

    def __post_init__(self):
        if self.decks is None:
            object.__setattr__(self, "decks", self.players // 2)
        if not 4 <= self.players <= 8:
            raise ValueError(f"players={self.players}: expected 4 to 8")
        if not 2 <= self.decks <= 4:
            raise ValueError(f"decks={self.decks}: expected 2 to 4")
        if self.teams not in TEAM_MODES:
            raise ValueError(f"teams={self.teams!r}: expected one of {TEAM_MODES}")
        if self.teams == "tractor" and self.players % 2:
            raise ValueError(f"teams='tractor' needs an even number of players, not {self.players}")

    @property
    def cards(self):
        return 54 * self.decks

    @property
    def kitty(self):
        """``k = 54 D mod N``; ``k = 0 -> N``; ``k < 5 -> k + N``."""
        k = self.cards % self.players
        if k == 0:
            k = self.players
        if k < 5:
            k += self.players
        return k

    @property
    def hand_size(self):
        return (self.cards - self.kitty) // self.players

    @property
    def total_points(self):
        return 100 * self.decks

    @property
    def level_step(self):
        """The step S of the level table: 20 D."""
        return 20 * self.decks

    @property
    def friends(self):
        """F, the number of friends the landlord calls (friends mode)."""
        return self.players // 2 - 1

    def team_of(self, seat):
        """Tractor mode: teams of alternating seats."""
        return seat % 2

    def partner_after(self, seat):
        """Tractor mode: the next member of ``seat``'s team in playing order."""
        return (seat + 2) % self.players

    def deck(self):
        """Every distinct card ``decks`` times, in id order."""
        return [c for c in range(54) for _ in range(self.decks)]


# ---------------------------------------------------------------------------
# Card order (sections 1-4, unchanged by section 9; the same positions as tests/reference.py)


def _rank_is_trump(trump, rules):
    rank, suit = trump
    return suit != NO_SUIT or bool(_opt(rules, "rank_trumps_in_no_trump"))


def _effective_suit(card, rank, suit, rank_trump):
    """0..3 for a plain suit, 4 for a trump."""
    if card >= BJ:
        return TRUMP
    if rank_of(card) == rank and rank_trump:
        return TRUMP
    if suit != NO_SUIT and suit_of(card) == suit:
        return TRUMP
    return suit_of(card)


def _position(card, rank, suit, rank_trump):
    """Dense place of the card in its effective suit (higher = stronger; one step = adjacent).

    With a trump suit: plain suits 0..11 (the trump rank skipped); trumps:
    the trump suit's cards 0..11, off-suit rank cards 12 (equal), the rank
    card of the trump suit 13, BJ 14, RJ 15.  No trump suit: plain suits
    0..12, BJ 0, RJ 1; with ``rank_trumps_in_no_trump`` the rank cards are
    trumps at 0 (BJ 1, RJ 2) and skipped in their suits.
    """
    r = rank_of(card)
    plain = r - 1 if (rank_trump and r > rank) else r
    if suit != NO_SUIT:
        if card == RJ:
            return 15
        if card == BJ:
            return 14
        if r == rank:
            return 13 if suit_of(card) == suit else 12
        return plain
    jokers_base = 1 if rank_trump else 0
    if card == RJ:
        return jokers_base + 1
    if card == BJ:
        return jokers_base
    if rank_trump and r == rank:
        return 0
    return plain


@lru_cache(maxsize=None)
def _card_order(rank, suit, rank_trump):
    """Every card's (effective suit, position) under one trump, worked out once: the legality runs
    ask millions of times."""
    return (tuple(_effective_suit(c, rank, suit, rank_trump) for c in range(54)),
            tuple(_position(c, rank, suit, rank_trump) for c in range(54)))


def _order(trump, rules):
    """(effective suits, positions), each indexed by card id."""
    rank, suit = trump
    return _card_order(rank, suit, _rank_is_trump(trump, rules))


def effective_suit(card, trump, rules=None):
    """0..3 for a plain suit, 4 for a trump."""
    return _order(trump, rules)[0][card]


def position(card, trump, rules=None):
    """Dense place of the card in its effective suit (``_position`` says the order)."""
    return _order(trump, rules)[1][card]


def suit_of_set(cards, trump, rules=None):
    """The one effective suit of ``cards`` (an error for none or several)."""
    if len(cards) == 0:
        raise ValueError("no cards")
    order = _order(trump, rules)[0]
    suits = {order[c] for c in cards}
    if len(suits) != 1:
        raise ValueError("cards of more than one effective suit")
    return suits.pop()


# ---------------------------------------------------------------------------
# Units: tuples and tractors of tuples (section 9, "Tuples and tractors")


def _unit(kind, size, cards, trump, rules):
    pos = _order(trump, rules)[1]
    cards = sorted(cards, key=lambda c: (-pos[c], c))
    return {
        "type": kind,
        "size": size,
        "length": len(cards) // size,
        "cards": cards,
        "top": pos[cards[0]],
        "tuples": 0 if size == 1 else len(cards) // size,
    }


def shape(unit):
    """``(size, length)``: a single (1, 1), a tuple (m, 1), a tractor (m, L)."""
    return (unit["size"], unit["length"])


def _runs(sorted_positions):
    """Maximal runs of consecutive positions, as (start, top)."""
    out = []
    i = 0
    while i < len(sorted_positions):
        j = i
        while j + 1 < len(sorted_positions) and sorted_positions[j + 1] == sorted_positions[j] + 1:
            j += 1
        out.append((sorted_positions[i], sorted_positions[j]))
        i = j + 1
    return out


def decompose(cards, trump, rules=None):
    """Tractors (largest tuple size, then longest, then highest), then tuples (largest first), then singles.

    Greedy, as decisions.md 9.2 says: repeatedly take, over every
    tuple size ``m``, the longest run of consecutive positions that each
    still hold ``m`` identical cards; the best run is the one with the
    largest ``m``, then the longest, then the highest top.  At a position
    with several distinct cards (off-suit trump-rank cards) the tractor
    takes the card with the fewest copies left that still has ``m``, then
    the lowest id.  A tractor may take part of a group (AS x4 and KS x2 give
    the tractor AS AS KS KS and the pair AS AS).  What is left: every group
    of 2 or more cards is one tuple of its whole count, the rest singles.
    """
    rank, suit = trump
    return list(_decomposition(tuple(sorted(cards)), rank, suit, _rank_is_trump(trump, rules)))


@lru_cache(maxsize=1 << 16)
def _decomposition(cards, rank, suit, rank_trump):
    """``decompose`` of sorted ``cards``, kept: a deal's plays and leads repeat (the same lead is
    judged for every follower).  The units are read, never changed, by every caller."""
    trump, rules = (rank, suit), {"rank_trumps_in_no_trump": rank_trump}
    suit_of_set(cards, trump, rules)
    left = Counter(cards)
    order = _order(trump, rules)[1]
    pos = {c: order[c] for c in left}

    tractors = []
    while True:
        best = None  # (size, length, top, start)
        for m in range(max(left.values()), 1, -1):
            held = sorted({pos[c] for c in left if left[c] >= m})
            for start, top in _runs(held):
                cand = (m, top - start + 1, top, start)
                if cand[1] >= 2 and (best is None or cand[:3] > best[:3]):
                    best = cand
        if best is None:
            break
        m, length, top, start = best
        chosen = []
        for p in range(start, top + 1):
            fits = [c for c in left if pos[c] == p and left[c] >= m]
            c = min(fits, key=lambda x: (left[x], x))
            left[c] -= m
            chosen += [c] * m
        tractors.append(_unit("tractor", m, chosen, trump, rules))

    tuples = [_unit("tuple", n, [c] * n, trump, rules) for c, n in left.items() if n >= 2]
    singles = [_unit("single", 1, [c], trump, rules) for c, n in left.items() if n == 1]
    tractors.sort(key=lambda u: (-u["size"], -u["length"], -u["top"], u["cards"]))
    tuples.sort(key=lambda u: (-u["size"], -u["top"], u["cards"][0]))
    singles.sort(key=lambda u: (-u["top"], u["cards"][0]))
    return tuple(tractors + tuples + singles)


TUPLE_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quadruple"}


def unit_names(info):
    """The led units of a classified play by name (``pair``, ``triple``, ``tractor of triples`` ...):
    what the legality runs count."""
    return [f"tractor of {TUPLE_NAMES[u['size']]}s" if u["type"] == "tractor" else TUPLE_NAMES[u["size"]]
            for u in info["units"]]


def classify(cards, trump, rules=None):
    """``kind``: single, tuple, tractor (one unit) or throw (several units)."""
    suit = suit_of_set(list(cards), trump, rules)
    units = decompose(cards, trump, rules)
    kind = units[0]["type"] if len(units) == 1 else "throw"
    return {"kind": kind, "suit": suit, "units": units}


def arrangement(units):
    """How many units of each shape: what a ruff of a throw must repeat."""
    return Counter(shape(u) for u in units)


def required_tuples(units):
    """``R_m``: the tuples of each size in a lead (a tractor counts its tuples)."""
    req = Counter()
    for u in units:
        if u["size"] >= 2:
            req[u["size"]] += u["length"]
    return req


# ---------------------------------------------------------------------------
# Throws (section 5 with section 9's parts)


def _groups_by_position(cards, trump, rules):
    """{position: [count of each distinct card there]}."""
    out = {}
    pos = _order(trump, rules)[1]
    for c, n in Counter(cards).items():
        out.setdefault(pos[c], []).append(n)
    return out


def can_beat(unit, hand, suit, trump, rules=None):
    """Whether ``hand`` holds a higher part of the unit's shape in the effective suit ``suit``.

    A single: a higher card; a tuple of m: m identical cards higher; a
    tractor (m, L): L consecutive positions, the top one higher, each with m
    identical cards.  Trumps are not "higher" in a plain suit here.
    """
    order = _order(trump, rules)[0]
    in_suit = [c for c in hand if order[c] == suit]
    m, length = shape(unit)
    holding = {p for p, counts in _groups_by_position(in_suit, trump, rules).items() if max(counts) >= m}
    return any(q > unit["top"] and all(q - d in holding for d in range(length)) for q in holding)


def check_throw(lead, hands, leader, declarers, trump, rules=None):
    """The throw check: ``{"ok", "blocked_by", "forced", "penalty", "taken_back"}``.

    ``hands`` holds every seat's cards (its length is the number of players);
    ``declarers`` the seats counted on the declaring side at this moment (for
    ``throw_check = "opponents_only"`` and the sign of the penalty).  The
    penalty is the change of the opponents' total: ``throw_penalty`` per card
    taken back, negative for an opponent thrower.
    """
    players = len(hands)
    info = classify(lead, trump, rules)
    ok_result = {"ok": True, "blocked_by": None, "forced": [], "penalty": 0, "taken_back": 0}
    if info["kind"] != "throw":
        return ok_result
    suit = info["suit"]
    units = info["units"]
    declarers = set(declarers)
    seats = [(leader + i) % players for i in range(1, players)]
    if _opt(rules, "throw_check") == "opponents_only":
        seats = [s for s in seats if (s in declarers) != (leader in declarers)]

    beatable = [(i, u) for i, u in enumerate(units) if any(can_beat(u, hands[s], suit, trump, rules) for s in seats)]
    if not beatable:
        return ok_result
    choice = _opt(rules, "throw_forced_part")
    if choice == "fewest_then_lowest":
        key = lambda iu: (len(iu[1]["cards"]), iu[1]["top"], iu[0])
    elif choice == "lowest":
        key = lambda iu: (iu[1]["top"], len(iu[1]["cards"]), iu[0])
    else:
        key = lambda iu: (-iu[1]["top"], len(iu[1]["cards"]), iu[0])
    forced = min(beatable, key=key)[1]
    blocked_by = next(s for s in seats if can_beat(forced, hands[s], suit, trump, rules))
    taken_back = len(lead) - len(forced["cards"])
    amount = int(_opt(rules, "throw_penalty")) * taken_back
    penalty = amount if leader in declarers else -amount
    return {"ok": False, "blocked_by": blocked_by, "forced": list(forced["cards"]), "penalty": penalty,
            "taken_back": taken_back}


# ---------------------------------------------------------------------------
# Following (section 9, "Following"; the counting is decisions.md 9.3, the tractor option 9.4)


def _is_submultiset(part, whole):
    have = Counter(whole)
    return all(have[c] >= n for c, n in Counter(part).items())


def owed_tuples(cards_of_suit, required):
    """How many tuples of each size ``cards_of_suit`` can answer the requirement ``{m: R_m}``.

    One group, one tuple: a group of c identical cards answers one tuple of
    any size up to c (a quadruple answers a triple or a pair, never two
    pairs).  From the largest size down: ``need = R_m + carry``; ``matched =
    min(need, groups of at least m cards not matched at a larger size)``;
    the unmatched ask for a tuple one size smaller (``carry``); unmatched
    pairs ask for nothing.  Returns ``{m: matched}`` for m from the lead's
    largest size down to 2.
    """
    counts = list(Counter(cards_of_suit).values())
    out = {}
    carry = 0
    used = 0
    for m in range(max(required, default=1), 1, -1):
        need = required.get(m, 0) + carry
        free = sum(1 for n in counts if n >= m) - used
        matched = min(need, free)
        out[m] = matched
        used += matched
        carry = need - matched
    return out


def tractor_cover(cards, shapes, trump, rules=None):
    """The most cards that disjoint tractors, one of each shape ``(m, L)`` in ``shapes`` (or fewer), take from ``cards``.

    A tractor (m, L) takes, at each of L consecutive positions, m cards of
    one group holding at least m; a group serves one tractor at most.
    Every placement (and every group at a position) is tried.
    """
    groups = {}  # position -> list of [count, used]
    pos = _order(trump, rules)[1]
    for c, n in Counter(cards).items():
        groups.setdefault(pos[c], []).append([n, False])

    def best(i):
        if i == len(shapes):
            return 0
        m, length = shapes[i]
        result = best(i + 1)  # tractor i left out
        for top in list(groups):
            span = [top - d for d in range(length)]
            if not all(any(n >= m and not used for n, used in groups.get(q, [])) for q in span):
                continue
            result = max(result, m * length + _place(span, m, lambda: best(i + 1)))
        return result

    def _place(span, m, rest):
        # try every choice of group at each position of the span
        if not span:
            return rest()
        q, more = span[0], span[1:]
        out = -1
        for g in groups[q]:
            if g[0] >= m and not g[1]:
                g[1] = True
                out = max(out, _place(more, m, rest))
                g[1] = False
        return out

    return best(0)


def legal_follow(hand, lead, play, trump, rules=None):
    """Whether ``play`` follows ``lead`` from ``hand`` (section 5 suit rule, section 9 tuples, ``follow_tractor``).

    Suit: holding at least n cards of the led suit S, all n are of S; else
    all of them are played.  Tuples: for every size m, the play's cards of S
    answer as many tuples as the hand's (``owed_tuples``).  ``follow_tractor``
    applies to a follower holding more cards of S than led: ``tractor``: to
    a tractor lead (m, L), the play's cards of S must cover as many cards in
    a tractor of that shape as the hand's; ``shape_first``: the same for
    every tractor of any lead, all the lead's tractor shapes together
    (``tractor_cover``).
    """
    mode = _opt(rules, "follow_tractor")
    n = len(lead)
    if len(play) != n or not _is_submultiset(play, hand):
        return False
    info = classify(lead, trump, rules)
    suit = info["suit"]
    order = _order(trump, rules)[0]
    hand_s = [c for c in hand if order[c] == suit]
    play_s = [c for c in play if order[c] == suit]
    if len(hand_s) >= n:
        if len(play_s) != n:
            return False
    elif len(play_s) != len(hand_s):
        return False

    required = required_tuples(info["units"])
    owed_hand = owed_tuples(hand_s, required)
    owed_play = owed_tuples(play_s, required)
    if any(owed_play[m] < owed_hand[m] for m in owed_hand):
        return False

    if mode == "none" or len(hand_s) <= n or info["kind"] not in ("tractor", "throw"):
        return True
    if info["kind"] == "throw" and mode != "shape_first":
        return True
    shapes = [shape(u) for u in info["units"] if u["type"] == "tractor"]
    return tractor_cover(play_s, shapes, trump, rules) >= tractor_cover(hand_s, shapes, trump, rules)


# ---------------------------------------------------------------------------
# Trick winner (section 9, "Winner")


def trick_winner(plays, leader, players, trump, rules=None):
    """The seat that wins the trick (partial tricks too: ``plays`` in playing order from ``leader``).

    Single, tuple, tractor leads: only a play of the same shape, all of the
    led suit or all trumps, competes: the highest in trumps, else in the
    suit.  A throw: the leader, unless the suit is plain and a follower
    plays it all in trumps with the same arrangement; among those the
    highest first unit of the decomposition (the largest tractor or tuple).
    Ties go to the earlier play.
    """
    lead = list(plays[0])
    info = classify(lead, trump, rules)
    suit, kind = info["suit"], info["kind"]

    order = _order(trump, rules)[0]

    def one_suit(play):
        suits = {order[c] for c in play}
        return suits.pop() if len(suits) == 1 else None

    best_i, best_key = 0, None
    if kind == "throw":
        if suit == TRUMP:
            return leader
        wanted = arrangement(info["units"])
        for i, play in enumerate(plays[1:], start=1):
            if len(play) == 0 or one_suit(play) != TRUMP:
                continue
            units = decompose(play, trump, rules)
            if arrangement(units) != wanted:
                continue
            key = units[0]["top"]
            if best_key is None or key > best_key:
                best_i, best_key = i, key
        return (leader + best_i) % players

    wanted = shape(info["units"][0])
    for i, play in enumerate(plays):
        play = list(play)
        s = one_suit(play) if play else None
        if s is None or s not in (suit, TRUMP):
            continue
        units = decompose(play, trump, rules)
        if len(units) != 1 or shape(units[0]) != wanted:
            continue
        key = (s == TRUMP, units[0]["top"])
        if best_key is None or key > best_key:
            best_i, best_key = i, key
    return (leader + best_i) % players


def trick_points(plays):
    return sum(points(p) for p in plays)


def kitty_bonus(kitty, last_lead, trump, rules=None):
    """The kitty's points times the multiplier (``pow2_pairs`` counts tuples of every size)."""
    mode = _opt(rules, "kitty_multiplier")
    if mode == "twice_lead_size":
        mult = 2 * len(last_lead)
    else:
        units = decompose(last_lead, trump, rules)
        if mode == "pow2_pairs":
            mult = 2 ** (sum(u["tuples"] for u in units) + 1)
        else:
            mult = 2 * max(len(u["cards"]) for u in units)
    return points(kitty) * mult


# ---------------------------------------------------------------------------
# Level table with step S = 20 D (section 9), levels, match end


def level_change(p, decks, rules=None):
    """The row of the table for the opponents' total ``p``."""
    step = 20 * decks
    if p <= 0:
        return {"winner": "declarers", "levels": 3, "declarers_keep": True}
    if p < step:
        return {"winner": "declarers", "levels": 2, "declarers_keep": True}
    if p < 2 * step:
        return {"winner": "declarers", "levels": 1, "declarers_keep": True}
    if p < 3 * step:
        return {"winner": "opponents", "levels": 0, "declarers_keep": False}
    return {"winner": "opponents", "levels": 1 + (p - 3 * step) // step, "declarers_keep": False}


def level_after(level, gain, as_declarers, rules=None):
    """A level after gaining ``gain`` levels, one at a time, stopped by ``must_defend`` levels."""
    stops = {"none": (), "ace": (12,), "ace_5_10_k": (3, 8, 11, 12)}[_opt(rules, "must_defend")]
    new = level
    for _ in range(gain):
        if new in stops and not (new == level and as_declarers):
            break
        new += 1
    return new


def past_the_end(level, rules=None):
    """Whether a level ends the match: above A (``pass_ace``) or A (``reach_ace``)."""
    return level >= (13 if _opt(rules, "match_end") == "pass_ace" else 12)


def tractor_round_result(team_levels, starter, p, game, rules=None):
    """Tractor mode (even N, teams of alternating seats): new team levels, next starter, match winner.

    The declarers are the starter's team.  Keeping: next starter = the next
    member of the starter's team (seat + 2); taking over: the player to the
    starter's right (seat + 1).
    """
    change = level_change(p, game.decks, rules)
    declaring = game.team_of(starter)
    gainer = declaring if change["declarers_keep"] else 1 - declaring
    levels = list(team_levels)
    levels[gainer] = level_after(levels[gainer], change["levels"], change["declarers_keep"], rules)
    nxt = game.partner_after(starter) if change["declarers_keep"] else (starter + 1) % game.players
    over = [t for t in (0, 1) if past_the_end(levels[t], rules)]
    return {"levels": levels, "next_starter": nxt, "winner_team": over[0] if over else None,
            "change": change}


# ---------------------------------------------------------------------------
# Finding Friends (section 9, "Teams", friends mode)


def call_allowed(card, copy, trump_rank, decks):
    """A friend call: a card that is neither a joker nor of the trump rank (the landlord's level), and a copy 1..D."""
    return 0 <= card < BJ and rank_of(card) != trump_rank and 1 <= copy <= decks


class FriendTeam:
    """The landlord's team during a round: calls, the copies of each called card played so far, joins.

    A call ``(card, copy)`` fires when the ``copy``-th copy of ``card`` is
    played (copies counted in the order played; copies in one play are
    counted in a row, so a pair of a card not seen before holds its first and
    second copies).  The player who plays it joins; if he is already in the
    team the call is used up and nobody joins.
    """

    def __init__(self, landlord, calls, trump_rank, game):
        if len(calls) != game.friends:
            raise ValueError(f"{len(calls)} calls: the landlord calls F = {game.friends}")
        for card, copy in calls:
            if not call_allowed(card, copy, trump_rank, game.decks):
                raise ValueError(f"call {(card, copy)} not allowed (trump rank {trump_rank}, {game.decks} decks)")
        self.landlord = landlord
        self.members = {landlord}
        self.calls = [tuple(c) for c in calls]
        self.state = ["open"] * len(calls)  # open, joined, wasted
        self.joined = []  # (call index, seat, event index)
        self.seen = Counter()

    def play(self, seat, cards, event=None):
        """Count the copies in a play; returns the seats that joined with it."""
        joined = []
        for c in cards:
            self.seen[c] += 1
            for i, (card, copy) in enumerate(self.calls):
                if self.state[i] == "open" and card == c and self.seen[c] == copy:
                    if seat in self.members:
                        self.state[i] = "wasted"
                    else:
                        self.state[i] = "joined"
                        self.members.add(seat)
                        self.joined.append((i, seat, event))
                        joined.append(seat)
        return joined


def friends_round_result(levels, landlord, members, p, game, rules=None):
    """Friends mode: every player's new level and the next landlord, from the opponents' total ``p``.

    The landlord's team (``members`` at the round's end) wins on the
    declarers' rows of the table; with fewer than F + 1 members each of
    them gains one more level.  Otherwise the opponents (everyone else) gain
    the row's levels (0 on the take-over row).  Each winner moves up from his
    own level.  Next landlord: the first player after the landlord in
    playing order on the winning side (the landlord himself if he won alone).
    """
    change = level_change(p, game.decks, rules)
    members = set(members)
    n = game.players
    if change["declarers_keep"]:
        winners = members
        gain = change["levels"] + (1 if len(members) < game.friends + 1 else 0)
    else:
        winners = set(range(n)) - members
        gain = change["levels"]
    new = [level_after(levels[s], gain, change["declarers_keep"], rules) if s in winners else levels[s]
           for s in range(n)]
    nxt = next(s for s in ((landlord + i) % n for i in range(1, n + 1)) if s in winners)
    over = [s for s in range(n) if past_the_end(new[s], rules)]
    return {"levels": new, "next_landlord": nxt, "winners": sorted(winners), "gain": gain,
            "match_over": bool(over), "past_the_end": over, "change": change}


# ---------------------------------------------------------------------------
# Declaring with D decks (section 9, "Declaring")


def _colour(card):
    """At equal counts: red jokers (2) beat black jokers (1) beat a suit (0)."""
    return {RJ: 2, BJ: 1}.get(card, 0)


def declare_options(hand, trump_rank, decks):
    """Every declaration ``(count, card)`` the hand can show: 1..D identical cards of the trump rank, 2..D identical jokers."""
    counts = Counter(hand)
    out = []
    for card in range(54):
        if card < BJ and rank_of(card) != trump_rank:
            continue
        low = 2 if card >= BJ else 1
        out += [(k, card) for k in range(low, min(counts[card], decks) + 1)]
    return sorted(out)


def overrides(new, old, decks, rules=None):
    """Whether declaration ``new = (count, card)`` overrides another player's ``old``.

    More cards beat fewer.  At equal counts: red jokers beat black jokers
    beat a suit; a suit never beats a suit (``pair_override = suit_order``:
    a higher suit, S > H > D > C, beats a lower one at counts of 2 or more).
    With 2 decks red jokers beat black jokers only with
    ``joker_pair_override`` (section 2 unchanged at D = 2; decisions.md 9.8).
    """
    (k, card), (k0, card0) = new, old
    if k != k0:
        return k > k0
    a, b = _colour(card), _colour(card0)
    if a == 2 and b == 1 and decks == 2:
        return bool(_opt(rules, "joker_pair_override"))
    if a != b:
        return a > b
    if a == 0 and k >= 2 and _opt(rules, "pair_override") == "suit_order":
        return suit_of(card) < suit_of(card0)
    return False


def declare_allowed(hand, current, seat, trump_rank, decks, rules=None):
    """The declarations ``(count, card)`` seat may make now, sorted.

    ``current`` is ``None`` or ``(seat, count, card)``.  On his own standing
    declaration a player may only strengthen it: the same card, more copies
    (``self_override = "any"``: his own is overridden like anybody else's).
    """
    options = declare_options(hand, trump_rank, decks)
    if current is None:
        return options
    cur_seat, cur_count, cur_card = current
    if cur_seat == seat and _opt(rules, "self_override") == "strengthen_only":
        return [o for o in options if o[1] == cur_card and o[0] > cur_count]
    return [o for o in options if overrides(o, (cur_count, cur_card), decks, rules)]


def declared_trump(declaration, trump_rank):
    """The trump spec a standing declaration ``(count, card)`` sets: jokers give no trump suit."""
    count, card = declaration
    return (trump_rank, NO_SUIT if card >= BJ else suit_of(card))


def kitty_flip_suit(kitty, trump_rank):
    """Suit set by turning up the kitty when nobody declared in a later round (section 2)."""
    for c in kitty:
        if c < BJ and rank_of(c) == trump_rank:
            return suit_of(c)
    best = None
    for c in kitty:
        if c < BJ and (best is None or rank_of(c) > rank_of(best)):
            best = c
    return NO_SUIT if best is None else suit_of(best)
