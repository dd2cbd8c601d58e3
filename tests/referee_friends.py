"""A referee for the kernels' event logs of Finding Friends, judged by the section-9 reference.

``FriendsReferee(players, decks, rules)`` replays the event log of a chunk
(``engine.run_chunk(spec, log_id=match.LOG_ALL)``) deal by deal and judges
every event with ``tests/reference9.py`` (docs/rules.md section 9, "Teams", and
docs/decisions.md 9.11): the draw and the declarations, the trump and the
landlord, the burial, the calls (``call_allowed``), every lead and follow,
throws checked with the sides of the moment (``check_throw``), the copies of
the called cards and who joins (``FriendTeam``), every trick's winner and
points, then the round by the final sides (the opponents' points, penalties
by each thrower's final side, the kitty, ``friends_round_result``: levels,
next landlord) against the deal's record, and in match mode the matches.

Independence: the rules come from ``reference9`` only.  From the package it
takes what is not a rule: the log's event kinds (``kernels.events``), the
random stream primitives (``kernels.rng``, for the documented streams of the
shuffle, the first drawer and the fixed-mode landlord), card names and
points, the option names.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

try:
    from tests import reference9 as r9
    from tests.referee9 import (
        RefereeError, cards_of, counts_of, declaration, decode_log, first_drawer, names, shuffled_deck, stream,
    )
except ImportError:  # tests/ on sys.path instead of the project root
    import reference9 as r9
    from referee9 import (RefereeError, cards_of, counts_of, declaration, decode_log, first_drawer, names,
                          shuffled_deck, stream)

from tractor_sim.rules.cards import BJ, card_str, points as card_points
from tractor_sim.core.kernels.events import (
    LOG_BURY, LOG_CALL, LOG_DECLARE, LOG_DRAW, LOG_FAILED_THROW, LOG_FOLLOW, LOG_HAND, LOG_JOIN, LOG_KITTY,
    LOG_LEAD, LOG_REDEAL, LOG_START, LOG_TRICK, LOG_TRUMP,
)
from tractor_sim.core.kernels.rng import randint
from tractor_sim.rules.options import as_rules

# The fixed-mode landlord's stream purpose (kernels.phases documents them; the others: referee9).
P_STARTER = 2
CARD_COLS = 54
SRC_SINGLE, SRC_PAIR, SRC_JOKERS, SRC_FLIP = 0, 1, 2, 3


def fixed_landlord(game, seed, deal_id):
    """Fixed levels in Finding Friends: the landlord is any seat, from the deal's stream (decisions.md)."""
    return int(randint(stream(seed, deal_id, 0, P_STARTER), np.int64(game.players)))


def mask(seats):
    return sum(1 << s for s in seats)


class FriendsReferee:
    """Judges the logs and records of a Finding Friends game of ``players``/``decks`` with reference9."""

    def __init__(self, players, decks=2, rules=None):
        self.game = r9.Game(players, decks, "friends")
        self.N, self.D = players, decks
        self.rules = as_rules(rules).to_dict()
        self.n = Counter()

    def fail(self, where, msg):
        raise RefereeError(f"{self.N} players {self.D} decks friends, {where}: {msg}")

    # -- one deal -------------------------------------------------------------------
    def check(self, events, rec, *, round1, levels, landlord, where, seed):
        """One deal against its record; ``landlord`` is ignored in round 1 (the declarer).
        Returns (levels after, next landlord)."""
        game, N, D, rules, n = self.game, self.N, self.D, self.rules, self.n
        pos = [0]

        def nxt():
            if pos[0] >= len(events):
                self.fail(where, "the log ends in the middle of the deal")
            pos[0] += 1
            return events[pos[0] - 1]

        def R(msg, ev=None):
            at = f" (event {pos[0] - 1}: kind {ev[0]} seat {ev[1]} a {ev[2]} b {ev[3]})" if ev is not None else ""
            self.fail(where, msg + at)

        ev = nxt()
        if ev[0] != LOG_START:
            R("the first event is not a start", ev)
        key_a, key_b = ev[2], ev[3]
        rank = 0 if round1 else levels[landlord]
        drawn_total = game.cards - game.kitty
        redeals = 0
        ev = nxt()
        # ---- the draw (redeals in round 1 while nobody declares) ----
        while True:
            deck = shuffled_deck(game, seed, key_a, key_b, redeals)
            hands = np.zeros((N, CARD_COLS), dtype=np.int64)
            drawn, first, current = 0, None, None
            while ev[0] in (LOG_DRAW, LOG_DECLARE):
                if ev[0] == LOG_DRAW:
                    seat, card = ev[1], ev[2]
                    if drawn == 0:
                        first = seat
                        want = first_drawer(game, seed, key_a, key_b, redeals) if round1 else landlord
                        if seat != want:
                            R(f"first drawer {seat}, expected {want}", ev)
                    if drawn >= drawn_total or seat != (first + drawn) % N or card != deck[drawn]:
                        R(f"draw {drawn}: seat {seat} drew {card_str(card)}; the deck says seat "
                          f"{(first + drawn) % N} draws {card_str(deck[drawn])}", ev)
                    hands[seat, card] += 1
                    drawn += 1
                else:
                    seat = ev[1]
                    decl = declaration(ev[2], ev[3], ev[4], D)  # with the cards shown (9.8)
                    allowed = r9.declare_allowed(cards_of(hands[seat]), current, seat, rank, D, rules)
                    if decl is None or decl not in allowed:
                        R(f"declaration {decl} not allowed; standing {current}", ev)
                    current = (seat,) + decl
                    n["declarations"] += 1
                ev = nxt()
            if drawn != drawn_total:
                R(f"{drawn} cards drawn, expected {drawn_total}")
            if ev[0] != LOG_REDEAL:
                break
            if not round1 or current is not None or ev[2] != redeals:
                R("unexpected redeal", ev)
            redeals += 1
            n["redeals"] += 1
            ev = nxt()
        # ---- trump and landlord ----
        if ev[0] != LOG_TRUMP:
            R("expected the trump", ev)
        if current is not None:
            suit = r9.declared_trump(current[1:], rank)[1]
            source = SRC_JOKERS if current[2] >= BJ else (SRC_SINGLE if current[1] == 1 else SRC_PAIR)
            if round1:
                landlord = current[0]
        else:
            if round1:
                R("round 1 played without a declaration", ev)
            suit, source = None, SRC_FLIP
        if ev[1] != landlord or ev[3] != source or (suit is not None and ev[2] != suit):
            R(f"expected landlord {landlord}, suit {suit}, source {source}", ev)
        suit = ev[2]
        for s in range(N):
            ev = nxt()
            if ev[0] != LOG_HAND or ev[1] != s or not np.array_equal(hands[s], ev[4]):
                R(f"expected seat {s}'s hand as drawn", ev)
        ev = nxt()
        kitty = ev[4]
        if ev[0] != LOG_KITTY or ev[1] != landlord or kitty != deck[drawn_total:]:
            R("expected the deck's last cards as the kitty, to the landlord", ev)
        if source == SRC_FLIP and r9.kitty_flip_suit(kitty, rank) != suit:
            R(f"kitty flip suit {suit}, reference {r9.kitty_flip_suit(kitty, rank)}")
        trump = (rank, suit)
        hands[landlord] += counts_of(kitty)
        ev = nxt()
        bury = np.asarray(ev[4], dtype=np.int64)
        if ev[0] != LOG_BURY or ev[1] != landlord or bury.sum() != game.kitty or (bury < 0).any() or (
                bury > hands[landlord]).any():
            R("expected the landlord's burial of kitty-many cards of his hand", ev)
        hands[landlord] -= bury
        buried = cards_of(bury)
        # ---- the calls (9.11) ----
        calls = []
        for _ in range(game.friends):
            ev = nxt()
            if ev[0] != LOG_CALL or ev[1] != landlord:
                R(f"expected the landlord's {game.friends} calls", ev)
            if not r9.call_allowed(ev[2], ev[3], rank, D):
                R(f"call of copy {ev[3]} of {ev[2]} is not allowed (trump rank {rank})", ev)
            calls.append((ev[2], ev[3]))
            n["calls"] += 1
            if ev[2] < BJ and ev[2] // 13 == suit:
                n["calls of the trump suit"] += 1
            if hands[landlord, ev[2]] > 0:
                n["calls of a card the landlord holds"] += 1
        if len(set(calls)) < len(calls):
            n["deals with two calls of one copy"] += 1
        team = r9.FriendTeam(landlord, calls, rank, game)
        joined_trick = {}
        ev = nxt()

        def play(seat, cards, t):
            """Count a play's called copies with the reference and judge the JOIN events after it."""
            nonlocal ev
            before = list(team.state)
            team.play(seat, cards)
            fired = sorted((i, 1 if team.state[i] == "joined" else 0) for i in range(len(calls))
                           if before[i] == "open" and team.state[i] != "open")
            got = []
            while ev[0] == LOG_JOIN:
                got.append((ev[2], ev[3]))
                if ev[1] != seat:
                    R(f"a join by seat {ev[1]} after seat {seat}'s play", ev)
                ev = nxt()
            if sorted(got) != fired:
                R(f"trick {t}: seat {seat} played [{names(cards)}]: the reference fires calls {fired} "
                  f"(call, joined), the kernel {sorted(got)}")
            for i, joins in fired:
                n["joins" if joins else "calls used up"] += 1
                if joins:
                    joined_trick[seat] = t

        # ---- the tricks ----
        leader, t, winner, lead = landlord, 0, landlord, []
        won_points = [0] * N
        tricks = [0] * N
        penalties = []  # (thrower, amount taken back x penalty)
        failed = 0
        while hands[leader].sum() > 0:
            if ev[0] != LOG_LEAD or ev[1] != leader or ev[2] != t:
                R(f"trick {t}: expected seat {leader}'s lead", ev)
            out = np.asarray(ev[4], dtype=np.int64)
            if (out < 0).any() or (out > hands[leader]).any() or out.sum() == 0:
                R(f"trick {t}: a lead not from the hand", ev)
            lead = cards_of(out)
            try:
                info = r9.classify(lead, trump, rules)
            except ValueError as e:
                R(f"trick {t}: illegal lead [{names(lead)}]: {e}", ev)
            n[f"lead {info['kind']}"] += 1
            n.update(f"led {name}" for name in r9.unit_names(info))
            ev = nxt()
            if info["kind"] == "throw":
                n["throws"] += 1
                res = r9.check_throw(lead, [cards_of(h) for h in hands], leader, team.members, trump, rules)
                if res["ok"] == (ev[0] == LOG_FAILED_THROW):
                    R(f"trick {t}: the throw [{names(lead)}] {'stands' if res['ok'] else 'fails'} by the "
                      f"reference (sides {sorted(team.members)})", ev)
                if not res["ok"]:
                    if (ev[1], ev[2], ev[3]) != (leader, res["blocked_by"], res["penalty"]) or not np.array_equal(
                            ev[4], counts_of(res["forced"])):
                        R(f"trick {t}: failed throw: reference blocked by {res['blocked_by']}, penalty "
                          f"{res['penalty']}, forced [{names(res['forced'])}]", ev)
                    penalties.append((leader, abs(res["penalty"])))
                    failed += 1
                    n["failed throws"] += 1
                    if len(team.members) > 1:
                        n["failed throws after a join"] += 1
                    lead = sorted(res["forced"])
                    ev = nxt()
            hands[leader] -= counts_of(lead)
            play(leader, lead, t)
            plays = [lead]
            for i in range(1, N):
                seat = (leader + i) % N
                if ev[0] != LOG_FOLLOW or ev[1] != seat or ev[2] != t:
                    R(f"trick {t}: expected seat {seat}'s follow", ev)
                cards = cards_of(ev[4])
                if not r9.legal_follow(cards_of(hands[seat]), lead, cards, trump, rules):
                    R(f"trick {t}: illegal follow [{names(cards)}] to [{names(lead)}]", ev)
                hands[seat] -= counts_of(cards)
                ev = nxt()
                play(seat, cards, t)
                plays.append(cards)
            winner = r9.trick_winner(plays, leader, N, trump, rules)
            pts = r9.trick_points(plays)
            if ev[0] != LOG_TRICK or ev[1] != winner or ev[2] != t or ev[3] != pts:
                R(f"trick {t}: reference winner {winner} with {pts} points", ev)
            won_points[winner] += pts
            tricks[winner] += 1
            n["tricks"] += 1
            leader = winner
            t += 1
            if pos[0] < len(events):
                ev = nxt()
        if (hands != 0).any() or pos[0] != len(events):
            R("hands not empty, or events after the last trick")
        # ---- the round by the final sides (9.11) ----
        members = team.members
        opponents = set(range(N)) - members
        trick_total = sum(won_points[s] for s in opponents)
        penalty = sum(a if s in members else -a for s, a in penalties)
        bonus = r9.kitty_bonus(buried, lead, trump, rules) if winner in opponents else 0
        p = trick_total + bonus + penalty
        result = r9.friends_round_result(levels, landlord, members, p, game, rules)
        after = result["levels"]
        keep = result["change"]["declarers_keep"]
        row = 0 if p <= 0 else 1 + p // game.level_step
        n["deals"] += 1
        n["landlord's team won" if keep else "opponents won"] += 1
        if keep and len(members) < game.friends + 1:
            n["short team won (+1)"] += 1
        if len(members) == 1:
            n["landlord alone"] += 1
        want = {"starter": landlord, "declaring_team": landlord % 2, "trump_rank": rank, "trump_suit": suit,
                "trump_source": source, "redeals": redeals, "kitty_points": card_points(buried),
                "trick_points": trick_total, "kitty_bonus": bonus, "throw_penalty": penalty,
                "failed_throws": failed, "last_winner": winner, "opp_points": p, "row": row,
                "gain": result["gain"], "landlord_won": int(keep), "next_starter": result["next_landlord"],
                "team": mask(members), "gainers": mask(s for s in range(N) if after[s] > levels[s]),
                "dealer": first}
        for s in range(N):
            want[f"tricks{s}"] = tricks[s]
            want[f"level{s}_before"] = levels[s]
            want[f"level{s}_after"] = after[s]
            want[f"in_team{s}"] = int(s in members)
            want[f"joined{s}"] = joined_trick.get(s, -1)
        for j, (card, copy) in enumerate(calls):
            fired = team.state[j] != "open"
            want[f"call{j}_card"] = card
            want[f"call{j}_copy"] = copy
            want[f"call{j}_joins"] = int(team.state[j] == "joined")
            if not fired:
                want[f"call{j}_by"] = -1
                want[f"call{j}_trick"] = -1
        fields = set(rec.dtype.names)
        for name, value in want.items():
            if name not in fields:
                R(f"the record has no field {name}")
            if int(rec[name]) != value:
                R(f"record {name} = {rec[name]}, reference {value} (opponents {sorted(opponents)}: tricks "
                  f"{trick_total}, kitty {bonus}, penalties {penalty}; levels {levels})")
        for j in range(len(calls)):  # who played a fired call's copy, and when: the JOIN events said it
            if team.state[j] != "open" and (int(rec[f"call{j}_by"]) < 0 or int(rec[f"call{j}_trick"]) < 0):
                R(f"call {j} fired but the record has no seat or trick for it")
        return after, result["next_landlord"], result

    # -- a chunk ----------------------------------------------------------------------
    def check_result(self, result):
        self.check_chunk(result.spec, result.deals, result.matches, result.extra["log"])
        return len(result.deals)

    def check_chunk(self, spec, deals, matches, log):
        if tuple(spec.game) != (self.N, self.D, "friends"):
            self.fail(f"chunk {spec.first_id}", f"the spec's game is {spec.game}")
        logs = decode_log(log, self.game.kitty)
        if len(logs) != len(deals):
            self.fail(f"chunk {spec.first_id}", f"{len(logs)} logged deals for {len(deals)} records")
        label = f"{'-vs-'.join(spec.names)} seed {spec.seed}"
        if spec.mode == "fixed":
            level = int(spec.levels[spec.declaring_team])
            for i, (events, rec) in enumerate(zip(logs, deals)):
                deal_id = spec.first_id + i
                where = f"{label} deal {deal_id}"
                if (int(rec["deal_id"]), int(rec["match_id"])) != (deal_id, -1):
                    self.fail(where, "record ids")
                self.check(events, rec, round1=False, levels=[level] * self.N,
                           landlord=fixed_landlord(self.game, spec.seed, deal_id), where=where, seed=spec.seed)
            return
        pos = 0
        for mi, m in enumerate(matches):
            match_id = spec.first_id + mi
            levels, landlord, over = [0] * self.N, 0, []
            for d in range(int(m["deals"])):
                where = f"{label} match {match_id} deal {d}"
                if over:
                    self.fail(where, f"the match went on after seats {over} passed the end")
                rec, events = deals[pos], logs[pos]
                pos += 1
                if (int(rec["match_id"]), int(rec["deal_in_match"])) != (match_id, d):
                    self.fail(where, "record ids")
                levels, landlord, result = self.check(events, rec, round1=(d == 0), levels=levels,
                                                      landlord=landlord, where=where, seed=spec.seed)
                over = result["past_the_end"]
            final = [int(m[f"level{s}_final"]) for s in range(self.N)]
            if not over or int(m["winners"]) != mask(over) or final != list(levels):
                self.fail(f"{label} match {match_id}", f"match record {m} vs reference winners {over}, "
                                                       f"levels {levels}")
            self.n["matches"] += 1
            self.n["matches won by several players"] += len(over) > 1
        if pos != len(deals):
            self.fail(f"{label} chunk {spec.first_id}", "deal records beyond the matches")


# ---------------------------------------------------------------------------
# test strategies compiled for a sized package (games of other sizes play built-ins only, so a test
# puts its own into the package's registry: kernels_for(...).registry.STRATEGIES)

RASH_LEAD = '''
def friends_rash(view, params, rng, scratch, out):
    """test only: a random card of my hand, or a random part of its effective suit (throws, many failing)."""
    total = 0
    for c in range(CARDS):
        total += view[V_HAND, c]
    k = randint(rng, total)
    pick = 0
    for c in range(CARDS):
        k -= view[V_HAND, c]
        if k < 0:
            pick = c
            break
    if randint(rng, 3) == 0:
        out[pick] = 1
        return 1
    e = view[V_EFF, pick]
    n = 0
    for c in range(CARDS):
        if view[V_EFF, c] == e:
            for _ in range(view[V_HAND, c]):
                if randint(rng, 2) == 0:
                    out[c] += 1
                    n += 1
    if n == 0:
        out[pick] = 1
        n = 1
    return n
'''

BAD_CALLS = {  # name -> the body of a call strategy that breaks 9.11 one way
    "bad_joker": "out[0] = 52\n    out[CALLS] = 1\n    return CALLS",
    "bad_rank": "out[0] = view[V_META, M_TRUMP_RANK]\n    out[CALLS] = 1\n    return CALLS",
    "bad_copy0": "out[0] = 12 if view[V_META, M_TRUMP_RANK] != 12 else 11\n    out[CALLS] = 0\n    return CALLS",
    "bad_copy3": "out[0] = 12 if view[V_META, M_TRUMP_RANK] != 12 else 11\n    out[CALLS] = 3\n    return CALLS",
    "bad_count": "return 0",
}


def _compile(source, name, view_module):
    import numba

    from tractor_sim.core.kernels import rng

    env = {"randint": rng.randint, "CARDS": CARD_COLS, "CALLS": view_module.CALLS, "__name__": __name__}
    env.update({k: getattr(view_module, k) for k in ("V_HAND", "V_EFF", "V_META", "M_TRUMP_RANK")})
    exec(source, env)
    return env[name]


def _stub(view, params, rng, scratch, out):
    """The main registry's entry of a test strategy played only at other sizes (never compiled)."""
    return 0


def install_test_strategies(packages=()):
    """Register the test lead ``friends_rash`` and the bad call strategies (BAD_CALLS): their names in
    the main registry, their code compiled into each sized package's registry (its own layout)."""
    from tractor_sim.play import registry as S
    from tractor_sim.play.registry.declared import _STRATEGIES

    S.load_builtins()
    sources = {"friends_rash": ("lead", RASH_LEAD)}
    for name, body in BAD_CALLS.items():
        sources[name] = ("call", f"def {name}(view, params, rng, scratch, out):\n    {body}\n")
    for name, (decision, src) in sources.items():
        if name not in _STRATEGIES[decision]:
            S.strategy(decision, name, description="test only")(_stub)
        for pkg in packages:
            if (decision, name) not in pkg.registry.STRATEGIES:
                import types

                view = types.SimpleNamespace(**{k: getattr(pkg.kernels.view, k) for k in (
                    "V_HAND", "V_EFF", "V_META", "M_TRUMP_RANK")}, CALLS=pkg.kernels.dims.CALLS)
                pkg.registry.strategy(decision, name)(_compile(src, name, view))
