"""The referee: card strings in, verdicts as plain data out.

It settles arguments about one trick with the same compiled kernels that play
the simulated deals, so what it says is what the simulator does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tractor_sim.cards import (
    NO_SUIT,
    RANKS,
    SUITS,
    CardError,
    card_str,
    parse_cards,
    parse_rank,
    parse_suit,
    to_counts,
)
from tractor_sim.kernels import combos as K
from tractor_sim.kernels import declare as D
from tractor_sim.kernels.view import MAX_BID
from tractor_sim.kernels.order import TRUMP, trump_table
from tractor_sim.kernels.scoring import card_points, defended_gain, kitty_multiplier, level_change as _level_change
from tractor_sim.kernels.scoring import level_row
from tractor_sim.rules import R_RANK_TRUMPS_NT, Rules, as_rules

KIND_NAMES = {K.KIND_SINGLE: "single", K.KIND_PAIR: "pair", K.KIND_TRACTOR: "tractor", K.KIND_THROW: "throw"}
SUIT_NAMES = {0: "spades", 1: "hearts", 2: "diamonds", 3: "clubs", TRUMP: "trumps"}
ROW_LABELS = ("p<=0", "5-35", "40-75", "80-115", "120-155", "160-195", "200-235")


class RefereeError(ValueError):
    """Input the referee cannot judge; the message names the field."""


def parse_trump(trump) -> tuple[int, int]:
    """{"rank": "2", "suit": "H"} (suit None: no trump suit) -> (rank, suit)."""
    if not isinstance(trump, dict) or "rank" not in trump:
        raise RefereeError('trump: expected {"rank": "2", "suit": "H"} (suit null for no trump suit)')
    try:
        return parse_rank(trump["rank"]), parse_suit(trump.get("suit"))
    except CardError as e:
        raise RefereeError(f"trump: {e}") from None


def table_for(trump, rules: Rules):
    rank, suit = parse_trump(trump)
    return trump_table(rank, suit, rules.encode()[R_RANK_TRUMPS_NT])


def _cards(value, field: str) -> list[int]:
    if not isinstance(value, (str, list, tuple)):
        raise RefereeError(f"{field}: expected a list of cards such as [\"AS\", \"KS\"], got {_json_name(value)}")
    try:
        return parse_cards(value)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


def _json_name(value) -> str:
    return "null" if value is None else repr(value)


def _seat(value, field: str) -> int:
    """A seat 0..3 given as a whole number (not true/false, not 1.0)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise RefereeError(f"{field}: expected a seat 0..3, got {_json_name(value)}")
    return value


JSON_FIELDS = {"trump", "rules", "leader", "declarers", "hands", "plays"}


def check_json(data) -> dict:
    """A trick given as JSON (``tractor-sim judge``), checked as a whole before it is judged.

    Beyond ``trick``'s own checks: only known fields, ``trump`` and
    ``plays`` present, ``rules`` an object, and no card played more often
    than the two decks hold it, with or without hands.  Returns ``trick``'s
    keyword arguments.
    """
    if not isinstance(data, dict):
        raise RefereeError("input: expected a JSON object")
    for key in data:
        if key not in JSON_FIELDS:
            raise RefereeError(f"unknown field {key!r}; expected some of {', '.join(sorted(JSON_FIELDS))}")
    for key in ("trump", "plays"):
        if key not in data:
            raise RefereeError(f"missing field {key!r}")
    if not isinstance(data.get("rules", {}), (dict, type(None))):
        raise RefereeError('rules: expected an object of rule options, e.g. {"preset": "standard"}')
    plays = data["plays"]
    if isinstance(plays, list):
        total = sum(_counts(_cards(p, f"plays[{i}]"), f"plays[{i}]") for i, p in enumerate(plays))
        if isinstance(total, np.ndarray) and (total > 2).any():
            bad = int(np.argmax(total > 2))
            raise RefereeError(f"plays: card {card_str(bad)} is played {int(total[bad])} times in one trick; "
                               "the two decks hold it twice")
    return {"plays": plays, "trump": data["trump"], "hands": data.get("hands"), "leader": data.get("leader", 0),
            "declarers": data.get("declarers", [0, 2]), "rules": data.get("rules")}


def _counts(cards: list[int], field: str) -> np.ndarray:
    try:
        return to_counts(cards)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


def _decompose(counts, tt):
    units, ucards = K.new_units()
    nu = K.decompose(counts, tt, units, ucards)
    out = []
    for i in range(nu):
        k = units[i, K.UNIT_PAIRS]
        cards = [int(ucards[i, 0])] if k == 0 else [int(ucards[i, j]) for j in range(k) for _ in (0, 1)]
        out.append({"type": "single" if k == 0 else "pair" if k == 1 else "tractor", "cards": cards})
    return units, ucards, nu, out


def _lead_info(counts, tt, field="lead"):
    suit = K.combo_suit(counts, tt)
    if suit == -1:
        raise RefereeError(f"{field}: no cards")
    if suit == -2:
        raise RefereeError(f"{field}: a lead must be of one effective suit (all trumps or one plain suit)")
    units, ucards, nu, parts = _decompose(counts, tt)
    kind = K.kind_of(units, nu)
    largest = max(units[i, K.UNIT_NCARDS] for i in range(nu))
    longest = max(units[i, K.UNIT_PAIRS] for i in range(nu))
    return {
        "suit": int(suit),
        "kind": kind,
        "n": int(counts.sum()),
        "pairs": int(K.total_pairs(units, nu)),
        "largest": int(largest),
        "longest_tractor": int(longest),
        "units": units,
        "ucards": ucards,
        "nu": nu,
        "parts": parts,
    }


def _strs(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


def classify(cards, trump, rules=None) -> dict:
    """The kind of a lead and its units: {"kind", "suit", "units": [[cards], ...]}."""
    rules = as_rules(rules)
    tt = table_for(trump, rules)
    info = _lead_info(_counts(_cards(cards, "cards"), "cards"), tt, "cards")
    return {
        "kind": KIND_NAMES[info["kind"]],
        "suit": "trump" if info["suit"] == TRUMP else SUITS[info["suit"]],
        "units": [_strs(u["cards"]) for u in info["parts"]],
    }


def legal_follow(hand, lead, play, trump, rules=None) -> bool:
    """Whether ``play`` follows ``lead`` legally from ``hand`` (the hand before playing)."""
    return _follow_verdict(hand, lead, play, trump, rules)[0]


def _follow_verdict(hand, lead, play, trump, rules=None, tt=None, info=None):
    rules = as_rules(rules)
    tt = table_for(trump, rules) if tt is None else tt
    if info is None:
        info = _lead_info(_counts(_cards(lead, "lead"), "lead"), tt)
    h = _counts(_cards(hand, "hand"), "hand")
    p = _counts(_cards(play, "play"), "play")
    ok = bool((p <= h).all()) and bool(K.follow_ok(h, p, int(p.sum()), info["suit"], info["n"], info["pairs"],
                                                   info["kind"], info["units"], info["nu"], tt, rules.encode()))
    return ok, _why_follow(ok, h, p, info, tt, rules)


def _why_follow(ok, hand, play, info, tt, rules) -> str:
    s = info["suit"]
    name = SUIT_NAMES[s]
    if (play > hand).any():
        return "plays cards it does not hold"
    if play.sum() != info["n"]:
        return f"plays {int(play.sum())} cards to a lead of {info['n']}"
    held, played = K.suit_count(hand, tt, s), K.suit_count(play, tt, s)
    if played < min(held, info["n"]):
        return f"holds {held} {name} but plays only {played} of them"
    need = min(info["pairs"], K.suit_pairs(hand, tt, s))
    got = K.suit_pairs(play, tt, s)
    if got < need:
        return f"must play {need} pair(s) of {name} but plays {got}"
    if not ok and info["kind"] == K.KIND_THROW:
        return f"must answer the throw's tractors with tractors of {name} (shape first)"
    if not ok:
        return f"holds a tractor of {name} and must play it"
    if held == 0:
        return f"void in {name}, free to play anything"
    if held < info["n"]:
        return f"plays all {held} {name} held and fills up"
    return f"follows with {name}" + (f", {got} pair(s) as required" if need else "")


def trick(plays, trump, hands=None, leader=0, declarers=(0, 2), rules=None, explain=False) -> dict:
    """Judge one trick (complete or partial).

    ``plays`` are card lists in playing order from ``leader``; ``hands`` (the
    four hands before the trick, by seat) enable throw and follow checks.  A
    failed throw is replaced by its forced part, which the followers answer.
    """
    rules = as_rules(rules)
    enc = rules.encode()
    tt = table_for(trump, rules)
    if not isinstance(plays, (list, tuple)) or not 1 <= len(plays) <= 4:
        raise RefereeError("plays: expected 1 to 4 card lists in playing order")
    leader = _seat(leader, "leader")
    decl = sorted(declarers) if isinstance(declarers, (list, tuple)) and not any(
        isinstance(x, bool) or not isinstance(x, int) for x in declarers) else None
    if decl not in ([0, 2], [1, 3]):
        raise RefereeError(f"declarers: expected [0, 2] or [1, 3], got {declarers!r}")
    declaring_team = decl[0]
    seats = [(leader + i) % 4 for i in range(len(plays))]
    play_counts = [_counts(_cards(p, f"plays[{i}]"), f"plays[{i}]") for i, p in enumerate(plays)]
    hand_counts = None
    if hands is not None:
        if not isinstance(hands, (list, tuple)) or len(hands) != 4:
            raise RefereeError("hands: expected 4 card lists, by seat")
        hand_counts = [_counts(_cards(h, f"hands[{i}]"), f"hands[{i}]") for i, h in enumerate(hands)]
        if (sum(hand_counts) > 2).any():
            bad = card_str(int(np.argmax(sum(hand_counts) > 2)))
            raise RefereeError(f"hands: card {bad} is held more than twice in all")
        for i, seat in enumerate(seats):
            if (play_counts[i] > hand_counts[seat]).any():
                bad = card_str(int(np.argmax(play_counts[i] > hand_counts[seat])))
                raise RefereeError(f"plays[{i}]: seat {seat} plays {bad}, which is not in hands[{seat}]")
    info = _lead_info(play_counts[0], tt, "plays[0]")
    result: dict = {"lead": None}
    notes: list[str] = []
    lead_counts = play_counts[0]
    if info["kind"] == K.KIND_THROW:
        throw = {"ok": None, "blocked_by": None, "forced": [], "penalty": 0}
        if hand_counts is not None:
            others = np.array([hand_counts[s] for s in range(4)], dtype=np.int64)
            res = np.zeros(4, dtype=np.int64)
            K.check_throw(lead_counts, others, leader, declaring_team, tt, enc,
                          info["units"], info["ucards"], info["nu"], res)
            throw["ok"] = bool(res[0])
            if not res[0]:
                forced = np.zeros(54, dtype=np.int64)
                K.unit_counts(info["units"], info["ucards"], int(res[2]), forced)
                # the forced part's cards high to low, as classify lists a unit
                throw.update(blocked_by=int(res[1]), penalty=int(res[3]),
                             forced=_strs(info["parts"][int(res[2])]["cards"]))
                notes.append(f"seat {leader}'s throw fails: seat {int(res[1])} can beat "
                             f"{' '.join(throw['forced'])}, which must be led instead; "
                             f"penalty {abs(int(res[3]))} points")
                lead_counts = forced
                info = _lead_info(forced, tt)
        result["throw"] = throw
    result["lead"] = {"kind": KIND_NAMES[info["kind"]], "units": [_strs(u["cards"]) for u in info["parts"]]}
    legal: list = [True if hand_counts is not None else None]
    for i in range(1, len(plays)):
        seat = seats[i]
        if hand_counts is None:
            ok = False if play_counts[i].sum() != info["n"] else None
            why = "wrong number of cards" if ok is False else "no hand given: legality unknown"
        else:
            ok, why = _follow_verdict(
                [card_str(c) for c in range(54) for _ in range(int(hand_counts[seat][c]))],
                None, [card_str(c) for c in range(54) for _ in range(int(play_counts[i][c]))],
                trump, rules, tt=tt, info=info)
        legal.append(ok)
        notes.append(f"seat {seat}: " + ("legal, " if ok else "illegal, " if ok is False else "") + why)
    all_plays = np.zeros((4, 54), dtype=np.int64)
    all_plays[0] = lead_counts
    for i in range(1, len(plays)):
        all_plays[i] = play_counts[i]
    w = int(K.trick_winner(all_plays, len(plays), tt))
    result["legal"] = legal
    result["winner"] = seats[w]
    result["points"] = int(sum(card_points(all_plays[i]) for i in range(len(plays))))
    if explain:
        notes.append(_why_winner(w, seats, info, all_plays, len(plays), tt))
        result["explain"] = notes
    return result


def _why_winner(w, seats, info, plays, nplays, tt) -> str:
    kind = KIND_NAMES[info["kind"]]
    lead_suit = SUIT_NAMES[info["suit"]]
    if w == 0:
        if info["kind"] == K.KIND_THROW:
            return f"seat {seats[0]} wins: nobody ruffed the throw with the same arrangement in trumps"
        return f"seat {seats[0]} wins: no later play is a higher {kind} of {lead_suit} or of trumps"
    suit = K.combo_suit(plays[w], tt)
    how = "ruffs with trumps" if suit == TRUMP and info["suit"] != TRUMP else f"plays the highest {kind}"
    return f"seat {seats[w]} wins: {how} ({' '.join(_strs(np.repeat(np.arange(54), plays[w])))})" + (
        "; equal cards go to the earlier play" if nplays > 2 else "")


def kitty_bonus(kitty, last_lead, rules=None, trump=None) -> int:
    """The kitty's points times the multiplier set by the last lead (as played).

    ``trump`` is needed only with ``kitty_multiplier = twice_largest_unit``
    (where tractors count as one unit).
    """
    rules = as_rules(rules)
    kc = _counts(_cards(kitty, "kitty"), "kitty")
    lc = _counts(_cards(last_lead, "last_lead"), "last_lead")
    if lc.sum() == 0:
        raise RefereeError("last_lead: no cards")
    pairs = int((lc // 2).sum())
    largest = 2 if pairs else 1
    if rules.kitty_multiplier == "twice_largest_unit":
        if trump is None:
            raise RefereeError("trump: needed for kitty_multiplier = twice_largest_unit")
        largest = _lead_info(lc, table_for(trump, rules), "last_lead")["largest"]
    return int(card_points(kc) * kitty_multiplier(int(lc.sum()), pairs, largest, rules.encode()))


def level_change(opponents_points, rules=None, levels=None, declaring_team=0) -> dict:
    """The level-table verdict for the opponents' total.

    With ``levels`` (the two teams' levels before the deal, as ranks such as
    ["K", "5"] or numbers 0..12) and ``declaring_team``, also the levels
    after it, where the rule ``must_defend`` may stop the winners' climb;
    ``levels`` then counts the levels really gained.
    """
    rules = as_rules(rules)
    if isinstance(opponents_points, bool) or not isinstance(opponents_points, (int, np.integer)):
        raise RefereeError(f"opponents_points: expected a whole number, got {opponents_points!r}")
    p = int(opponents_points)
    keep, gain = _level_change(p)
    row = int(level_row(p))
    label = ROW_LABELS[row] if row < len(ROW_LABELS) else f"{240 + 40 * (row - 7)}-{275 + 40 * (row - 7)}"
    out = {
        "row": label,
        "winner": "declarers" if keep else "opponents",
        "levels": int(gain),
        "declarers_keep": bool(keep),
        "next_starter": "partner of the starter" if keep else "player to the starter's right",
    }
    if levels is not None:
        if not isinstance(levels, (list, tuple)) or len(levels) != 2:
            raise RefereeError("levels: expected the two teams' levels, e.g. [\"K\", \"5\"]")
        if declaring_team not in (0, 1):
            raise RefereeError(f"declaring_team: expected 0 or 1, got {declaring_team!r}")
        before = [_level(x, f"levels[{i}]") for i, x in enumerate(levels)]
        team = declaring_team if keep else 1 - declaring_team
        gained = int(defended_gain(before[team], gain, keep, rules.encode()))
        after = list(before)
        after[team] += gained
        out.update(levels=gained, levels_before=before, levels_after=after,
                   stopped=gained < gain)
    return out


def _level(x, field: str) -> int:
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x <= 12:
        return int(x)
    try:
        return parse_rank(x)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


DECL_KINDS = {"single": D.SINGLE, "pair": D.PAIR, "joker_pair": D.JOKER_PAIR}


def declaration_allowed(hand, kind, card, trump_rank="2", current=None, seat=0, rules=None) -> bool:
    """Whether ``seat`` holding ``hand`` may declare (``kind``, ``card``) over ``current``.

    ``kind``: "single", "pair" or "joker_pair"; ``current``: None or
    {"seat": 1, "kind": "pair", "card": "2D"}, the standing declaration.
    """
    rules = as_rules(rules)
    if kind not in DECL_KINDS:
        raise RefereeError(f"kind: expected one of {', '.join(DECL_KINDS)}, got {kind!r}")
    h = _counts(_cards(hand, "hand"), "hand")
    c = _cards(card, "card")
    if len(c) != 1:
        raise RefereeError("card: expected one card")
    cur = (-1, D.NONE, -1)
    if current is not None:
        if not isinstance(current, dict) or current.get("kind") not in DECL_KINDS:
            raise RefereeError('current: expected {"seat": 1, "kind": "pair", "card": "2D"} or null')
        cc = _cards(current.get("card"), "current.card")
        cur = (int(current.get("seat", -1)), DECL_KINDS[current["kind"]], cc[0] if cc else -1)
    rank = _level(trump_rank, "trump_rank")
    return bool(D.can_declare(h, DECL_KINDS[kind], c[0], seat, cur[0], cur[1], cur[2], rank, rules.encode()))


def auction(bids, shown, dealer=0) -> dict:
    """The auction's verdict: ``bids`` [the dealer's pair, the other pair] in points,
    ``shown`` the four cards shown from the dealer on.

    Returns {"declaring_team", "starter", "next_dealer"}; a bad bid is an error.
    """
    if dealer not in (0, 1, 2, 3):
        raise RefereeError(f"dealer: expected a seat 0..3, got {dealer!r}")
    if not isinstance(bids, (list, tuple)) or len(bids) != 2:
        raise RefereeError("bids: expected two bids, the dealer's pair first")
    for i, b in enumerate(bids):
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not D.valid_bid(int(b)):
            raise RefereeError(f"bids[{i}]: expected a multiple of 5 from 0 to {MAX_BID}, got {b!r}")
    if not isinstance(shown, (list, tuple)) or len(shown) != 4:
        raise RefereeError("shown: expected four cards, from the dealer on")
    cards = []
    for i, x in enumerate(shown):
        c = _cards(x, f"shown[{i}]")
        if len(c) != 1:
            raise RefereeError(f"shown[{i}]: expected one card")
        cards.append(c[0])
    team = dealer % 2 if bids[0] >= bids[1] else 1 - dealer % 2
    best = 0
    for i in range(1, 4):
        if D.show_key(cards[i]) > D.show_key(cards[best]):
            best = i
    return {"declaring_team": team, "starter": (dealer + best) % 4, "next_dealer": (dealer + 1) % 4}


__all__ = ["classify", "legal_follow", "trick", "kitty_bonus", "level_change", "declaration_allowed", "auction",
           "RefereeError",
           "parse_trump", "RANKS", "SUITS", "NO_SUIT"]
