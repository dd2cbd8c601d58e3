"""The referee: card strings in, verdicts as plain data out.

It settles arguments about one trick with the same compiled kernels that play
the simulated deals, so what it says is what the simulator does: at any game
size of docs/rules.md section 9 (``game``: players, decks, teams) with that size's
kernels (tractor_sim.play.packages).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tractor_sim.rules.cards import (
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
from tractor_sim.rules import sizes
from tractor_sim.rules.fields import Shape, Table, Whole
from tractor_sim.play import packages
from tractor_sim.core.kernels import combos
from tractor_sim.core.kernels import declare
from tractor_sim.core.kernels.view import MAX_BID
from tractor_sim.core.kernels.order import TRUMP
from tractor_sim.rules.options import R_RANK_TRUMPS_NT, Rules, RulesError, as_rules

KIND_NAMES = {combos.KIND_SINGLE: "single", combos.KIND_PAIR: "pair", combos.KIND_TRACTOR: "tractor",
              combos.KIND_THROW: "throw"}
TUPLE_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quadruple"}
SUIT_NAMES = {0: "spades", 1: "hearts", 2: "diamonds", 3: "clubs", TRUMP: "trumps"}


class RefereeError(ValueError):
    """Input the referee cannot judge; the message names the field."""


def game_size(game=None) -> sizes.GameSize:
    """The game size of the input (``{"players": 6, "decks": 3, "teams": "friends"}`` or a table
    name; default the 4-player 2-deck game), errors naming the field."""
    if isinstance(game, sizes.GameSize):
        return game
    try:
        return sizes.GameSize.of({"table": game} if isinstance(game, str) else game)
    except sizes.GameSizeError as e:
        raise RefereeError(str(e)) from None


def _kernels(size: sizes.GameSize):
    """The size's compiled kernels (its package: tractor_sim.play.packages; the referee sits below
    the Game, which checks records with it)."""
    return packages.compiled_package(size).kernels


def parse_trump(trump) -> tuple[int, int]:
    """{"rank": "2", "suit": "H"} (suit None: no trump suit) -> (rank, suit)."""
    if not isinstance(trump, dict) or "rank" not in trump:
        raise RefereeError('trump: expected {"rank": "2", "suit": "H"} (suit null for no trump suit)')
    try:
        return parse_rank(trump["rank"]), parse_suit(trump.get("suit"))
    except CardError as e:
        raise RefereeError(f"trump: {e}") from None


def table_for(trump, rules: Rules, size=sizes.STANDARD):
    rank, suit = parse_trump(trump)
    return _kernels(size).order.trump_table(rank, suit, rules.encode()[R_RANK_TRUMPS_NT])


def _cards(value, field: str) -> list[int]:
    if not isinstance(value, (str, list, tuple)):
        raise RefereeError(f"{field}: expected a list of cards such as [\"AS\", \"KS\"], got {_json_name(value)}")
    try:
        return parse_cards(value)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


def _json_name(value) -> str:
    return "null" if value is None else repr(value)


SEAT = Whole("seat", 0, sizes.PLAYERS.stop - 2, "a seat, counted from 0", "a seat of the largest table")


def _seat(value, field: str, players: int = 4) -> int:
    """A seat 0..players-1 given as a whole number (not true/false, not 1.0), by its declaration."""
    return _seat_field(field, players).check(value, "field ", RefereeError)


def _seat_field(name: str, players: int) -> Whole:
    """SEAT named ``name``, up to the last seat of ``players``."""
    return SEAT.within(name=name, high=players - 1, why=f"the seats of {players} players are 0 to {players - 1}")


def _declarers(value, size: sizes.GameSize) -> int:
    """The declaring side as check_throw takes it: with tractor teams the team (the seats 0, 2, ..
    or 1, 3, ..), in Finding Friends the landlord's side of the moment as a bit mask of seats."""
    n = size.players
    seats = sorted(_seat(x, f"declarers[{i}]", n) for i, x in enumerate(value)) \
        if isinstance(value, (list, tuple)) else None
    if size.teams == "tractor":
        teams = [list(range(t, n, 2)) for t in (0, 1)]
        if seats not in teams:
            raise RefereeError(f"declarers: expected {teams[0]} or {teams[1]}, got {value!r}")
        return seats[0]
    if not seats or len(set(seats)) != len(seats) or len(seats) > size.players // 2:
        raise RefereeError(f"declarers: expected the landlord's side now, 1 to {size.players // 2} distinct "
                           f"seats 0..{n - 1} (Finding Friends), got {value!r}")
    return sum(1 << x for x in seats)


def default_declarers(size: sizes.GameSize) -> list[int]:
    """Seat 0's team, or in Finding Friends seat 0 as the landlord alone."""
    return list(range(0, size.players, 2)) if size.teams == "tractor" else [0]


GAME_FIELDS = ("players", "decks", "teams")
# ``tractor-sim judge``'s input, each field declared once (tractor_sim.rules.fields); the game size's own
# fields are the size's declarations (sizes.SIZE), and the leader's range depends on the players.
TRICK = Table("a trick (a JSON object)", (
    Shape("trump", (dict,), '{"rank": "2", "suit": "H"} (suit null: no trump suit)', "the trump rank and suit"),
    Shape("plays", (list, tuple), "card lists in playing order", "the trick so far, from the leader on", 1,
          sizes.PLAYERS.stop - 1),
    SEAT.within(name="leader", meaning="the seat that leads the trick (default 0)"),
    Shape("declarers", (list, tuple), "a list of seats",
          "the declaring team's seats (default seat 0's); in Finding Friends the landlord's side so far"),
    Shape("hands", (list, tuple, type(None)), "a card list per seat, or null",
          "the hands before the trick, by seat: with them throws and follows are checked", sizes.PLAYERS.start,
          sizes.PLAYERS.stop - 1),
    Shape("rules", (dict, type(None)), 'an object of rule options, e.g. {"preset": "standard"}', "the rule options"),
    *(sizes.SIZE[name] for name in GAME_FIELDS),
), required=("trump", "plays"))


def _narrowed(size: sizes.GameSize) -> dict:
    """The fields of TRICK whose range the game's size sets: the leader a seat, a card list per player."""
    n = size.players
    return {"leader": _seat_field("leader", n), "plays": TRICK["plays"].within(most=n),
            "hands": TRICK["hands"].within(least=n, most=n)}


def check_json(data) -> dict:
    """A trick given as JSON (``tractor-sim judge``), checked as a whole before it is judged.

    Every field by its declaration (TRICK: only known fields, ``trump``
    and ``plays`` present, each of its type and range, the leader a seat
    of the game's size), and no card played more often than the decks
    hold it, with or without hands.  Returns ``trick``'s keyword arguments.
    """
    TRICK.check_keys(data, "", RefereeError)
    size = game_size({k: data[k] for k in GAME_FIELDS if k in data})
    data = TRICK.check(data, "", RefereeError, **_narrowed(size))
    try:
        rules = as_rules(data.get("rules"))
    except RulesError as e:
        raise RefereeError(f"field 'rules': {e}") from None
    plays = data["plays"]
    total = sum(_counts(_cards(p, f"plays[{i}]"), f"plays[{i}]", size) for i, p in enumerate(plays))
    if isinstance(total, np.ndarray) and (total > size.decks).any():
        bad = int(np.argmax(total > size.decks))
        raise RefereeError(f"plays: card {card_str(bad)} is played {int(total[bad])} times in one trick; "
                           f"the {size.decks} decks hold it {'twice' if size.decks == 2 else f'{size.decks} times'}")
    return {"plays": plays, "trump": data["trump"], "hands": data.get("hands"), "leader": data.get("leader", 0),
            "declarers": data.get("declarers", default_declarers(size)), "rules": rules, "game": size}


def _counts(cards: list[int], field: str, size=sizes.STANDARD) -> np.ndarray:
    try:
        return to_counts(cards, size.decks)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


def _unit_size(combos, units, i) -> int:
    """Copies of the card at each position of unit i (1 single, 2 pair, 3 triple, 4 quadruple)."""
    if combos.DECKS > combos.PAIR:
        return int(units[i, combos.UNIT_SIZE])
    return 2 if units[i, combos.UNIT_PAIRS] > 0 else 1


def _decompose(counts, tt, combos=combos):
    units, ucards = combos.new_units()
    nu = combos.decompose(counts, tt, units, ucards)
    out = []
    for i in range(nu):
        k, m = int(units[i, combos.UNIT_PAIRS]), _unit_size(combos, units, i)
        cards = [int(ucards[i, j]) for j in range(max(k, 1)) for _ in range(m)]
        out.append({"type": "tractor" if k > 1 else TUPLE_NAMES[m], "cards": cards})
    return units, ucards, nu, out


def _kind_name(info) -> str:
    """The lead's kind; a one-tuple lead by its size (pair, triple, quadruple)."""
    return info["parts"][0]["type"] if info["kind"] == combos.KIND_PAIR else KIND_NAMES[info["kind"]]


def _lead_info(counts, tt, field="lead", combos=combos):
    suit = combos.combo_suit(counts, tt)
    if suit == -1:
        raise RefereeError(f"{field}: no cards")
    if suit == -2:
        raise RefereeError(f"{field}: a lead must be of one effective suit (all trumps or one plain suit)")
    units, ucards, nu, parts = _decompose(counts, tt, combos)
    kind = combos.kind_of(units, nu)
    largest = max(units[i, combos.UNIT_NCARDS] for i in range(nu))
    longest = max(units[i, combos.UNIT_PAIRS] for i in range(nu))
    return {
        "suit": int(suit),
        "kind": kind,
        "n": int(counts.sum()),
        "pairs": int(combos.total_pairs(units, nu)),
        "largest": int(largest),
        "longest_tractor": int(longest),
        "units": units,
        "ucards": ucards,
        "nu": nu,
        "parts": parts,
    }


def _strs(cards: Sequence[int]) -> list[str]:
    return [card_str(c) for c in cards]


def classify(cards, trump, rules=None, game=None) -> dict:
    """The kind of a lead and its units: {"kind", "suit", "units": [[cards], ...]}."""
    rules, size = as_rules(rules), game_size(game)
    tt = table_for(trump, rules, size)
    info = _lead_info(_counts(_cards(cards, "cards"), "cards", size), tt, "cards", _kernels(size).combos)
    return {
        "kind": _kind_name(info),
        "suit": "trump" if info["suit"] == TRUMP else SUITS[info["suit"]],
        "units": [_strs(u["cards"]) for u in info["parts"]],
    }


def legal_follow(hand, lead, play, trump, rules=None, game=None) -> bool:
    """Whether ``play`` follows ``lead`` legally from ``hand`` (the hand before playing)."""
    size = game_size(game)
    rules = as_rules(rules)
    tt = table_for(trump, rules, size)
    sized = _kernels(size).combos
    info = _lead_info(_counts(_cards(lead, "lead"), "lead", size), tt, "lead", sized)
    h = _counts(_cards(hand, "hand"), "hand", size)
    p = _counts(_cards(play, "play"), "play", size)
    return _follow_verdict(h, p, info, tt, rules, sized)[0]


def _follow_verdict(h, p, info, tt, rules, sized):
    """(legal, why) for the play ``p`` from the hand ``h`` (count vectors) to a lead of ``info``."""
    ok = bool((p <= h).all()) and bool(sized.follow_ok(h, p, int(p.sum()), info["suit"], info["n"], info["pairs"],
                                                    info["kind"], info["units"], info["nu"], tt, rules.encode()))
    if sized.DECKS > sized.PAIR:
        return ok, _why_follow_tuples(ok, h, p, info, tt, sized)
    return ok, _why_follow(ok, h, p, info, tt, rules)


def _why_follow_tuples(ok, hand, play, info, tt, sized) -> str:
    """_why_follow with 3 or 4 decks: the suit rule, then docs/decisions.md 9.3's tuples as a whole."""
    name = SUIT_NAMES[info["suit"]]
    if (play > hand).any():
        return "plays cards it does not hold"
    if play.sum() != info["n"]:
        return f"plays {int(play.sum())} cards to a lead of {info['n']}"
    held, played = sized.suit_count(hand, tt, info["suit"]), sized.suit_count(play, tt, info["suit"])
    if played < min(held, info["n"]):
        return f"holds {held} {name} but plays only {played} of them"
    if not ok:
        return (f"must answer the lead's tuples and tractors with the matching tuples of {name} it holds "
                "(docs/decisions.md 9.3, 9.4)")
    if held == 0:
        return f"void in {name}, free to play anything"
    if held < info["n"]:
        return f"plays all {held} {name} held and fills up"
    return f"follows with {name}, the tuples the lead asks for as held"


def _why_follow(ok, hand, play, info, tt, rules) -> str:
    s = info["suit"]
    name = SUIT_NAMES[s]
    if (play > hand).any():
        return "plays cards it does not hold"
    if play.sum() != info["n"]:
        return f"plays {int(play.sum())} cards to a lead of {info['n']}"
    held, played = combos.suit_count(hand, tt, s), combos.suit_count(play, tt, s)
    if played < min(held, info["n"]):
        return f"holds {held} {name} but plays only {played} of them"
    need = min(info["pairs"], combos.suit_pairs(hand, tt, s))
    got = combos.suit_pairs(play, tt, s)
    if got < need:
        return f"must play {need} pair(s) of {name} but plays {got}"
    if not ok and info["kind"] == combos.KIND_THROW:
        return f"must answer the throw's tractors with tractors of {name} (shape first)"
    if not ok:
        return f"holds a tractor of {name} and must play it"
    if held == 0:
        return f"void in {name}, free to play anything"
    if held < info["n"]:
        return f"plays all {held} {name} held and fills up"
    return f"follows with {name}" + (f", {got} pair(s) as required" if need else "")


def trick(plays, trump, hands=None, leader=0, declarers=None, rules=None, explain=False, game=None) -> dict:
    """Judge one trick (complete or partial).

    ``plays`` are card lists in playing order from ``leader``; ``hands`` (the
    hands before the trick, by seat) enable throw and follow checks.  A
    failed throw is replaced by its forced part, which the followers answer.
    ``game``: the size (default 4 players, 2 decks); ``declarers``: the
    declaring team's seats, in Finding Friends the landlord's side so far.
    """
    rules, size = as_rules(rules), game_size(game)
    enc = rules.encode()
    tt = table_for(trump, rules, size)
    sized = _kernels(size).combos
    n_seats, copies = size.players, size.decks
    fields = _narrowed(size)  # the declarations check_json holds a JSON trick to
    plays = fields["plays"].check(plays, "field ", RefereeError)
    leader = fields["leader"].check(leader, "field ", RefereeError)
    side = _declarers(default_declarers(size) if declarers is None else declarers, size)
    seats = [(leader + i) % n_seats for i in range(len(plays))]
    play_counts = [_counts(_cards(p, f"plays[{i}]"), f"plays[{i}]", size) for i, p in enumerate(plays)]
    hand_counts = None
    if hands is not None:
        fields["hands"].check(hands, "field ", RefereeError)
        hand_counts = [_counts(_cards(h, f"hands[{i}]"), f"hands[{i}]", size) for i, h in enumerate(hands)]
        if (sum(hand_counts) > copies).any():
            bad = card_str(int(np.argmax(sum(hand_counts) > copies)))
            raise RefereeError(f"hands: card {bad} is held more than {'twice' if copies == 2 else f'{copies} times'} "
                               "in all")
        for i, seat in enumerate(seats):
            if (play_counts[i] > hand_counts[seat]).any():
                bad = card_str(int(np.argmax(play_counts[i] > hand_counts[seat])))
                raise RefereeError(f"plays[{i}]: seat {seat} plays {bad}, which is not in hands[{seat}]")
    info = _lead_info(play_counts[0], tt, "plays[0]", sized)
    result: dict = {"lead": None}
    notes: list[str] = []
    lead_counts = play_counts[0]
    if info["kind"] == combos.KIND_THROW:
        throw = {"ok": None, "blocked_by": None, "forced": [], "penalty": 0}
        if hand_counts is not None:
            others = np.array(hand_counts, dtype=np.int64)
            res = np.zeros(4, dtype=np.int64)
            sized.check_throw(lead_counts, others, leader, side, tt, enc, info["units"], info["ucards"], info["nu"], res)
            throw["ok"] = bool(res[0])
            if not res[0]:
                forced = np.zeros(54, dtype=np.int64)
                sized.unit_counts(info["units"], info["ucards"], int(res[2]), forced)
                # the forced part's cards high to low, as classify lists a unit
                throw.update(blocked_by=int(res[1]), penalty=int(res[3]),
                             forced=_strs(info["parts"][int(res[2])]["cards"]))
                notes.append(f"seat {leader}'s throw fails: seat {int(res[1])} can beat "
                             f"{' '.join(throw['forced'])}, which must be led instead; "
                             f"penalty {abs(int(res[3]))} points")
                lead_counts = forced
                info = _lead_info(forced, tt, "lead", sized)
        result["throw"] = throw
    result["lead"] = {"kind": _kind_name(info), "units": [_strs(u["cards"]) for u in info["parts"]]}
    legal: list = [True if hand_counts is not None else None]
    for i in range(1, len(plays)):
        seat = seats[i]
        if hand_counts is None:
            ok = False if play_counts[i].sum() != info["n"] else None
            why = "wrong number of cards" if ok is False else "no hand given: legality unknown"
        else:
            ok, why = _follow_verdict(hand_counts[seat], play_counts[i], info, tt, rules, sized)
        legal.append(ok)
        notes.append(f"seat {seat}: " + ("legal, " if ok else "illegal, " if ok is False else "") + why)
    all_plays = np.zeros((n_seats, 54), dtype=np.int64)
    all_plays[0] = lead_counts
    for i in range(1, len(plays)):
        all_plays[i] = play_counts[i]
    w = int(sized.trick_winner(all_plays, len(plays), tt))
    result["legal"] = legal
    result["winner"] = seats[w]
    points = _kernels(size).scoring.card_points
    result["points"] = int(sum(points(all_plays[i]) for i in range(len(plays))))
    if explain:
        notes.append(_why_winner(w, seats, info, all_plays, len(plays), tt))
        result["explain"] = notes
    return result


def _why_winner(w, seats, info, plays, nplays, tt) -> str:
    kind = _kind_name(info)
    lead_suit = SUIT_NAMES[info["suit"]]
    if w == 0:
        if info["kind"] == combos.KIND_THROW:
            return f"seat {seats[0]} wins: nobody ruffed the throw with the same arrangement in trumps"
        return f"seat {seats[0]} wins: no later play is a higher {kind} of {lead_suit} or of trumps"
    suit = combos.combo_suit(plays[w], tt)
    how = "ruffs with trumps" if suit == TRUMP and info["suit"] != TRUMP else f"plays the highest {kind}"
    return f"seat {seats[w]} wins: {how} ({' '.join(_strs(np.repeat(np.arange(54), plays[w])))})" + (
        "; equal cards go to the earlier play" if nplays > 2 else "")


def kitty_bonus(kitty, last_lead, rules=None, trump=None, game=None) -> int:
    """The kitty's points times the multiplier set by the last lead (as played).

    ``trump`` is needed with ``kitty_multiplier = twice_largest_unit``
    (where tractors count as one unit), and with 3 or 4 decks for
    ``pow2_pairs`` (whose tuples are the lead's decomposition, 9.7).
    """
    rules, size = as_rules(rules), game_size(game)
    kc = _counts(_cards(kitty, "kitty"), "kitty", size)
    lc = _counts(_cards(last_lead, "last_lead"), "last_lead", size)
    if lc.sum() == 0:
        raise RefereeError("last_lead: no cards")
    pairs = int((lc // 2).sum())
    largest = 2 if pairs else 1
    if rules.kitty_multiplier == "twice_largest_unit" or (size.decks > 2 and rules.kitty_multiplier == "pow2_pairs"):
        if trump is None:
            raise RefereeError(f"trump: needed for kitty_multiplier = {rules.kitty_multiplier}"
                               + (f" with {size.decks} decks" if size.decks > 2 else ""))
        info = _lead_info(lc, table_for(trump, rules, size), "last_lead", _kernels(size).combos)
        pairs, largest = info["pairs"], info["largest"]
    scoring = _kernels(size).scoring
    return int(scoring.card_points(kc) * scoring.kitty_multiplier(int(lc.sum()), pairs, largest, rules.encode()))


def row_label(row: int, step: int) -> str:
    """The level table's row as the rule book writes it: p<=0, 5-35, 40-75 .. with two decks (the
    rows are ``step`` = 20 x decks points wide)."""
    return "p<=0" if row == 0 else f"{max(5, step * (row - 1))}-{step * row - 5}"


def level_change(opponents_points, rules=None, levels=None, declaring_team=0, game=None) -> dict:
    """The level-table verdict for the opponents' total.

    With ``levels`` (the two teams' levels before the deal, as ranks such as
    ["combos", "5"] or numbers 0..12) and ``declaring_team``, also the levels
    after it, where the rule ``must_defend`` may stop the winners' climb;
    ``levels`` then counts the levels really gained.  ``game``: the size,
    whose decks set the rows' width (docs/decisions.md 9.9); in Finding Friends see
    friends_level_change.
    """
    rules, size = as_rules(rules), game_size(game)
    if size.teams == "friends":
        raise RefereeError("game: Finding Friends has a level per player: use friends_level_change")
    scoring = _kernels(size).scoring
    if isinstance(opponents_points, bool) or not isinstance(opponents_points, (int, np.integer)):
        raise RefereeError(f"opponents_points: expected a whole number, got {opponents_points!r}")
    p = int(opponents_points)
    keep, gain = scoring.level_change(p)
    label = row_label(int(scoring.level_row(p)), int(scoring.LEVEL_STEP))
    out = {
        "row": label,
        "winner": "declarers" if keep else "opponents",
        "levels": int(gain),
        "declarers_keep": bool(keep),
        "next_starter": "partner of the starter" if keep else "player to the starter's right",
    }
    if levels is not None:
        if not isinstance(levels, (list, tuple)) or len(levels) != 2:
            raise RefereeError("levels: expected the two teams' levels, e.g. [\"combos\", \"5\"]")
        if declaring_team not in (0, 1):
            raise RefereeError(f"declaring_team: expected 0 or 1, got {declaring_team!r}")
        before = [_level(x, f"levels[{i}]") for i, x in enumerate(levels)]
        team = declaring_team if keep else 1 - declaring_team
        gained = int(scoring.defended_gain(before[team], gain, keep, rules.encode()))
        after = list(before)
        after[team] += gained
        out.update(levels=gained, levels_before=before, levels_after=after,
                   stopped=gained < gain)
    return out


def friends_level_change(opponents_points, levels, landlord_team, landlord=None, rules=None, game=None) -> dict:
    """Finding Friends' level table (decisions.md 9.11) for the opponents' total: ``levels`` by seat
    (ranks or 0..12), ``landlord_team`` the landlord's side at the round's end (seats, the landlord
    first unless ``landlord`` is given).  Returns the winners, every seat's levels after (must_defend
    per player, one more for a short team that wins) and the next landlord."""
    rules = as_rules(rules)
    if not isinstance(levels, (list, tuple)):
        raise RefereeError("levels: expected a level per seat, e.g. [\"2\", \"5\", \"2\", \"2\", \"combos\"]")
    size = game_size(game if game is not None else {"players": len(levels), "teams": "friends"})
    if size.teams != "friends":
        raise RefereeError('game: teams must be "friends" here; tractor teams: level_change')
    if isinstance(opponents_points, bool) or not isinstance(opponents_points, (int, np.integer)):
        raise RefereeError(f"opponents_points: expected a whole number, got {opponents_points!r}")
    if len(levels) != size.players:
        raise RefereeError(f"levels: expected {size.players} levels, one per seat")
    before = [_level(x, f"levels[{i}]") for i, x in enumerate(levels)]
    mask = _declarers(landlord_team, size)
    landlord = landlord_team[0] if landlord is None else _seat(landlord, "landlord", size.players)
    if not (mask >> landlord) & 1:
        raise RefereeError(f"landlord: seat {landlord} is not in landlord_team {landlord_team!r}")
    scoring = _kernels(size).scoring
    gains = np.zeros(size.players, dtype=np.int64)
    keep, gain, row, nxt = scoring.friends_outcome(int(opponents_points), np.array(before, dtype=np.int64), mask,
                                                   landlord, rules.encode(), gains)
    return {"row": row_label(int(row), int(scoring.LEVEL_STEP)), "winner": "landlord's team" if keep else "opponents",
            "levels": int(gain), "levels_before": before, "levels_after": [b + int(g) for b, g in zip(before, gains)],
            "next_landlord": int(nxt)}


def _level(x, field: str) -> int:
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x <= 12:
        return int(x)
    try:
        return parse_rank(x)
    except CardError as e:
        raise RefereeError(f"{field}: {e}") from None


DECL_KINDS = {"single": declare.SINGLE, "pair": declare.PAIR, "joker_pair": declare.JOKER_PAIR}


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
    cur = (-1, declare.NONE, -1)
    if current is not None:
        if not isinstance(current, dict) or current.get("kind") not in DECL_KINDS:
            raise RefereeError('current: expected {"seat": 1, "kind": "pair", "card": "2D"} or null')
        cc = _cards(current.get("card"), "current.card")
        cur = (int(current.get("seat", -1)), DECL_KINDS[current["kind"]], cc[0] if cc else -1)
    rank = _level(trump_rank, "trump_rank")
    return bool(declare.can_declare(h, DECL_KINDS[kind], c[0], seat, cur[0], cur[1], cur[2], rank, rules.encode()))


def auction(bids, shown, dealer=0) -> dict:
    """The auction's verdict: ``bids`` [the dealer's pair, the other pair] in points,
    ``shown`` the four cards shown from the dealer on.

    Returns {"declaring_team", "starter", "next_dealer"}; a bad bid is an error.
    """
    dealer = _seat(dealer, "dealer", 4)
    if not isinstance(bids, (list, tuple)) or len(bids) != 2:
        raise RefereeError("bids: expected two bids, the dealer's pair first")
    for i, b in enumerate(bids):
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not declare.valid_bid(int(b)):
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
        if declare.show_key(cards[i]) > declare.show_key(cards[best]):
            best = i
    return {"declaring_team": team, "starter": (dealer + best) % 4, "next_dealer": (dealer + 1) % 4}


__all__ = ["classify", "legal_follow", "trick", "kitty_bonus", "level_change", "friends_level_change",
           "declaration_allowed", "auction", "game_size",
           "RefereeError",
           "parse_trump", "RANKS", "SUITS", "NO_SUIT"]
