"""A random whole-deal player on the section-9 reference (tests/reference9.py).

Plays a deal from the shuffle to the score with random legal decisions, for
any game size and both team modes, and asserts the invariants as it goes:
every card dealt once and played or buried once, hands of the right size
after the draw, after the kitty and after every trick (all equal), every
lead and follow legal by the reference's own checks, the points of the
tricks and the kitty adding up to ``100 D``.  The compiled kernels will be
compared with the same rules later; this module only needs Python's
``random`` (no kernel, no package rng), because it is not meant to replay
the kernel's streams but to exercise the reference on whole deals.

The random decisions are made to reach the interesting cases often:
declarations of every count, leads of singles, tuples, tractors of tuples
and throws (some of them top cards, some failing), follows that ruff in the
lead's arrangement when void.
"""

from __future__ import annotations

import random
from collections import Counter

try:
    from tests import reference9 as r9
except ImportError:  # tests/ on sys.path instead of the project root
    import reference9 as r9

from tractor_sim.rules.cards import points as card_points


class DealInvariantError(AssertionError):
    """A deal broke a rule or an invariant; the message says which."""


def _remove(cards, part):
    left = list(cards)
    for c in part:
        left.remove(c)
    return left


def _of_suit(cards, suit, trump, rules):
    return [c for c in cards if r9.effective_suit(c, trump, rules) == suit]


def _tuple_places(cards, m, trump, rules):
    """{position: [distinct cards held at least m times there]}."""
    out = {}
    for c, n in Counter(cards).items():
        if n >= m:
            out.setdefault(r9.position(c, trump, rules), []).append(c)
    return out


def _random_unit_of_shape(rng, cards, size, length, trump, rules):
    """Random cards of ``cards`` (one effective suit) forming a unit of shape (size, length), or None."""
    if size == 1:
        return [rng.choice(cards)] if cards else None
    places = _tuple_places(cards, size, trump, rules)
    tops = [q for q in places if all(q - d in places for d in range(length))]
    if not tops:
        return None
    top = rng.choice(tops)
    return [c for d in range(length) for c in [rng.choice(places[top - d])] * size]


def random_lead(rng, hand, game, trump, rules=None):
    """A single, a tuple, a tractor of tuples, or a throw (random or top cards of a suit)."""
    suits = {}
    for c in hand:
        suits.setdefault(r9.effective_suit(c, trump, rules), []).append(c)
    mode = rng.choices(["single", "tuple", "tractor", "throw", "throw_top"], weights=[3, 3, 3, 2, 2])[0]
    if mode == "tuple":
        groups = [(c, n) for c, n in Counter(hand).items() if n >= 2]
        if groups:
            c, n = rng.choice(groups)
            return [c] * rng.randint(2, n)
    if mode == "tractor":
        options = []
        for s, cards in suits.items():
            for m in range(2, game.decks + 1):
                places = _tuple_places(cards, m, trump, rules)
                for length in range(2, 6):
                    if any(all(q - d in places for d in range(length)) for q in places):
                        options.append((s, m, length))
        if options:
            s, m, length = rng.choice(options)
            return _random_unit_of_shape(rng, suits[s], m, length, trump, rules)
    if mode in ("throw", "throw_top"):
        big = [cards for cards in suits.values() if len(cards) >= 2]
        if big:
            cards = rng.choice(big)
            k = rng.randint(2, min(len(cards), 8))
            if mode == "throw":
                return rng.sample(cards, k)
            return sorted(cards, key=lambda c: -r9.position(c, trump, rules))[:k]
    return [rng.choice(hand)]


def _random_ruff(rng, trumps, units, trump, rules):
    """Trumps in the lead's arrangement, unit by unit (None when they run out)."""
    pool = list(trumps)
    out = []
    for u in units:
        part = _random_unit_of_shape(rng, pool, u["size"], u["length"], trump, rules)
        if part is None:
            return None
        pool = _remove(pool, part)
        out += part
    return out


def _random_placement(rng, cards, shapes, trump, rules):
    """Disjoint tractors of the given shapes placed at random (some left out when they do not fit): {card: count}."""
    taken = Counter()
    left = Counter(cards)
    for m, length in rng.sample(shapes, len(shapes)):
        free = [c for c in left if left[c] >= m and taken[c] == 0]
        places = _tuple_places([c for c in free for _ in range(left[c])], m, trump, rules)
        tops = [q for q in places if all(q - d in places for d in range(length))]
        if not tops:
            continue
        top = rng.choice(tops)
        for d in range(length):
            taken[rng.choice(places[top - d])] = m
    return taken


def _constructed_follow(rng, hand_s, info, n, trump, rules):
    """Cards of the led suit meeting the tractor and tuple obligations, filled up at random (None if over n)."""
    mode = r9._opt(rules, "follow_tractor")
    play = Counter()
    if mode != "none" and (info["kind"] == "tractor" or (info["kind"] == "throw" and mode == "shape_first")):
        shapes = [r9.shape(u) for u in info["units"] if u["type"] == "tractor"]
        play = _random_placement(rng, hand_s, shapes, trump, rules)
    held = Counter(hand_s)
    owed = r9.owed_tuples(hand_s, r9.required_tuples(info["units"]))
    assigned = set()
    for m in sorted(owed, reverse=True):
        ready = [c for c in play if play[c] >= m and c not in assigned]
        rng.shuffle(ready)
        chosen = ready[: owed[m]]
        more = [c for c in held if held[c] >= m and c not in assigned and c not in chosen]
        rng.shuffle(more)
        chosen += more[: owed[m] - len(chosen)]
        if len(chosen) < owed[m]:
            return None
        for c in chosen:
            play[c] = max(play[c], m)
            assigned.add(c)
    cards = list(play.elements())
    if len(cards) > n:
        return None
    return cards + rng.sample(_remove(hand_s, cards), n - len(cards))


def random_follow(rng, hand, lead, trump, rules=None):
    """A random legal follow (checked by ``reference9.legal_follow``); a ruff attempt when void."""
    n = len(lead)
    info = r9.classify(lead, trump, rules)
    suit = info["suit"]
    hand_s = _of_suit(hand, suit, trump, rules)
    if len(hand_s) <= n:
        rest = _remove(hand, hand_s)
        if not hand_s and suit != r9.TRUMP and rng.random() < 0.7:
            ruff = _random_ruff(rng, _of_suit(rest, r9.TRUMP, trump, rules), info["units"], trump, rules)
            if ruff is not None:
                return ruff
        return hand_s + rng.sample(rest, n - len(hand_s))
    for _ in range(300):
        play = _constructed_follow(rng, hand_s, info, n, trump, rules)
        if play is not None and r9.legal_follow(hand, lead, play, trump, rules):
            return play
    raise DealInvariantError(f"no legal follow found for hand {sorted(hand)} to lead {sorted(lead)}")


def _check(condition, message):
    if not condition:
        raise DealInvariantError(message)


def _clump(rng, deck, players, dealt, fraction):
    """Move the copies of a random ``fraction`` of the distinct cards to one seat's draws (swaps: still a permutation).

    Copies of a card land ``players`` places apart, so the seat that draws the
    first copy draws them all: tuples, and tractors of tuples, become common.
    """
    for card in rng.sample(range(54), round(54 * fraction)):
        at = [i for i, c in enumerate(deck) if c == card]
        first = at[0]
        for j, i in enumerate(at[1:], start=1):
            target = first + j * players
            if target >= dealt:
                break
            deck[i], deck[target] = deck[target], deck[i]
    return deck


def _draw_and_declare(rng, game, rules, trump_rank, first, round1, clump):
    """Shuffle, draw one card at a time from ``first`` with random declarations; None if round 1 has none (redeal)."""
    deck = game.deck()
    rng.shuffle(deck)
    n = game.players
    dealt = game.cards - game.kitty
    if clump:
        deck = _clump(rng, deck, n, dealt, clump)
    hands = [[] for _ in range(n)]
    current = None
    for k in range(dealt):
        seat = (first + k) % n
        hands[seat].append(deck[k])
        options = r9.declare_allowed(hands[seat], current, seat, trump_rank, game.decks, rules)
        if options and rng.random() < 0.2:
            current = (seat,) + rng.choice(options)
    for i in range(1, n + 1):  # the final chance, from the seat after the last drawer
        seat = (first + dealt - 1 + i) % n
        options = r9.declare_allowed(hands[seat], current, seat, trump_rank, game.decks, rules)
        if options and rng.random() < 0.3:
            current = (seat,) + rng.choice(options)
    _check(all(len(h) == game.hand_size for h in hands), "hand sizes after the draw")
    if round1 and current is None:
        return None
    return deck, hands, deck[dealt:], current


def play_deal(game, seed, rules=None, levels=None, landlord=None, stats=None, clump=0.0):
    """One deal from the shuffle to the score, every decision random and legal.

    ``levels``: tractor mode two team levels, friends mode one per player
    (default: all at 2 = level 0, round 1).  ``landlord``: the starter
    known in advance, or None for round 1 (the draw's declarer starts;
    without a declaration the cards are dealt again).  ``stats`` (a Counter)
    collects what happened.  ``clump``: the fraction of distinct cards whose
    copies are all drawn by one seat (``_clump``).  Returns the round's record.
    """
    rng = random.Random(seed)
    stats = Counter() if stats is None else stats
    n = game.players
    friends = game.teams == "friends"
    if levels is None:
        levels = [0] * (n if friends else 2)
    round1 = landlord is None
    if round1:
        trump_rank = 0
        first = rng.randrange(n)
    else:
        trump_rank = levels[landlord] if friends else levels[game.team_of(landlord)]
        first = landlord
    redeals = 0
    while True:
        dealt = _draw_and_declare(rng, game, rules, trump_rank, first, round1, clump)
        if dealt is not None:
            break
        redeals += 1
        _check(redeals < 1000, "no declaration in 1000 deals")
    deck, hands, kitty, current = dealt
    if round1:
        landlord = current[0]
    if current is not None:
        trump = r9.declared_trump(current[1:], trump_rank)
        stats[f"declared {current[1]}"] += 1
    else:
        trump = (trump_rank, r9.kitty_flip_suit(kitty, trump_rank))
        stats["kitty flip"] += 1

    # the kitty: the landlord takes it and buries as many cards at random
    hands[landlord] += kitty
    buried = rng.sample(hands[landlord], game.kitty)
    hands[landlord] = _remove(hands[landlord], buried)
    _check(all(len(h) == game.hand_size for h in hands), "hand sizes after burying")

    if friends:
        allowed = [c for c in range(52) if c // 13 < 4 and c % 13 != trump_rank]
        calls = [(rng.choice(allowed), rng.randint(1, game.decks)) for _ in range(game.friends)]
        team = r9.FriendTeam(landlord, calls, trump_rank, game)
    else:
        calls = []
        team = None
    fixed_declarers = {s for s in range(n) if game.team_of(s) == game.team_of(landlord)} if not friends else None

    def declarers_now():
        return set(team.members) if friends else fixed_declarers

    won = [0] * n
    penalties = []  # (thrower, points per card x cards taken back), signed at the end by the thrower's side
    played = []
    leader = landlord
    tricks = 0
    last_lead, last_winner = None, None
    while hands[leader]:
        hand = hands[leader]
        lead = random_lead(rng, hand, game, trump, rules)
        info = r9.classify(lead, trump, rules)
        stats[f"lead {info['kind']}"] += 1
        stats.update(f"unit {r9.shape(u)}" for u in info["units"])
        if info["kind"] == "throw":
            verdict = r9.check_throw(lead, hands, leader, declarers_now(), trump, rules)
            if not verdict["ok"]:
                stats["failed throw"] += 1
                _check(Counter(verdict["forced"]) <= Counter(lead), "the forced part comes from the throw")
                penalties.append((leader, int(r9._opt(rules, "throw_penalty")) * verdict["taken_back"]))
                lead = verdict["forced"]
        hands[leader] = _remove(hand, lead)
        plays = [lead]
        if friends:
            team.play(leader, lead, tricks)
        for i in range(1, n):
            seat = (leader + i) % n
            play = random_follow(rng, hands[seat], lead, trump, rules)
            _check(r9.legal_follow(hands[seat], lead, play, trump, rules), f"illegal follow {play} to {lead}")
            hands[seat] = _remove(hands[seat], play)
            plays.append(play)
            if friends:
                team.play(seat, play, tricks)
        winner = r9.trick_winner(plays, leader, n, trump, rules)
        if winner != leader:
            stats["won by a follower"] += 1
        won[winner] += r9.trick_points(plays)
        played += [c for p in plays for c in p]
        _check(len({len(h) for h in hands}) == 1, "hands of equal size after every trick")
        last_lead, last_winner = lead, winner
        leader = winner
        tricks += 1

    _check(Counter(played + buried) == Counter(game.deck()), "every card played or buried exactly once")
    _check(sum(won) + card_points(buried) == game.total_points, "points of tricks and kitty add up to 100 D")
    members = set(team.members) if friends else fixed_declarers
    opponents_points = sum(won[s] for s in range(n) if s not in members)
    for thrower, amount in penalties:
        opponents_points += amount if thrower in members else -amount
    kitty_points = 0
    if last_winner not in members:
        kitty_points = r9.kitty_bonus(buried, last_lead, trump, rules)
        opponents_points += kitty_points
    if friends:
        result = r9.friends_round_result(levels, landlord, members, opponents_points, game, rules)
        stats.update(f"call {s}" for s in team.state)
        if len(members) < game.friends + 1 and result["change"]["declarers_keep"]:
            stats["smaller-team bonus"] += 1
        next_starter = result["next_landlord"]
    else:
        result = r9.tractor_round_result(levels, landlord, opponents_points, game, rules)
        next_starter = result["next_starter"]
    return {"game": game, "trump": trump, "landlord": landlord, "calls": calls, "members": sorted(members),
            "tricks": tricks, "won": won, "penalties": penalties, "kitty_points": kitty_points,
            "opponents_points": opponents_points, "levels_before": list(levels), "levels": result["levels"],
            "next_starter": next_starter, "result": result, "redeals": redeals, "buried": buried}


def play_match(game, seed, rules=None, max_rounds=300, stats=None, clump=0.0):
    """Deals until a player (friends) or a team (tractor) passes the Ace; returns the records."""
    records = []
    levels, landlord = None, None
    for i in range(max_rounds):
        rec = play_deal(game, seed * 100003 + i, rules, levels, landlord, stats, clump)
        records.append(rec)
        levels, landlord = rec["levels"], rec["next_starter"]
        res = rec["result"]
        if res.get("match_over") or res.get("winner_team") is not None:
            return records
    raise DealInvariantError(f"no match end in {max_rounds} deals")
