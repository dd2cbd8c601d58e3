"""Reinforcement-learning environments over the step API (tractor_sim.play.game): a PettingZoo AEC
environment of every seat and a one-seat Gymnasium environment (the other seats played by a
registered policy), for any game size (``game=``: a tractor_sim.play.game.Game, a size tuple such
as ``(6, 3, "tractor")`` or a table).  Needs the optional extra ``rl`` (gymnasium, pettingzoo);
docs/environments.md.

Actions are ``Discrete(55)``: a play of several cards is chosen one card at a time (card ids
0..53 of tractor_sim.rules.cards, then DONE = 54 where the length is free), because the legal plays of
one decision are too many to index (a lead: up to thousands, a burial: millions;
benchmarks/bench_legal_counts.py).  The mask allows exactly the cards that still complete a
legal answer.  Per decision:

- declare: the cards of a declaration (one card, or the same card up to once per deck), then
  DONE; DONE with nothing chosen passes;
- discard: the kitty's size in cards (eight at 4 players, 2 decks), the last completes the burial;
- lead: cards of one effective suit (any such set is a legal lead; a throw that fails is
  played as the rules force), then DONE;
- follow: as many cards as were led, the last completes the play;
- bid (rule ``declaring = "auction"``): step "bid": action i bids 5*i points (0..200); step
  "show": the card shown; step "trump": action 0..3 names S H D C;
- call (Finding Friends): a card once per call, chosen again to call a later copy of it (chosen
  k times: its k-th copy), then DONE once as many cards as calls are chosen.

Observation: ``{"observation": the seat's view (kernels/view.py, V_ROWS x 54, flattened) then one
row of the cards chosen so far in the pending answer, "action_mask": int8[55]}``.

Reward: zero until the deal ends; then each seat of the team that goes up gets +gain (its levels
gained) and each seat of the other team -gain (zero-sum; 0 for all when nobody goes up).  In Finding
Friends each seat that goes up gets its own gain and every other seat minus the largest gain.
"""

from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"tractor_sim.play.env needs the optional extra 'rl' (pip install 'tractor-sim[rl]'): {e}") from None

from tractor_sim.play.game import Game, IllegalAnswer, State, as_game
from tractor_sim.rules import cards as K

CARDS = K.N_DISTINCT  # card ids 0..53 at every size
DONE = CARDS
N_ACTIONS = CARDS + 1
BID_STEP = 5
# Bounds of the observation (docs/environments.md "Observation"): card counts are 0..DECKS, card ids
# -1..53, seats -1..SEATS-1, effective suits 0..4; the scalars of the meta rows, the trump table's
# meta row, the points per trick, the encoded rules and Finding Friends' row are wide (every value
# fits in int32).
OBS_LOW, OBS_HIGH = -(2**31), 2**31 - 1


def observation_size(game=None) -> int:
    """The observation's length: the seat's view (its size's V_ROWS rows of 54) and the chosen row."""
    return as_game(game).kernels.view.V_ROWS * CARDS + CARDS


def observation_bounds(game=None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of every cell of the observation, row by row of kernels/view.py."""
    game = as_game(game)
    V, d = game.kernels.view, game.dims
    low = np.full((V.V_ROWS + 1, CARDS), OBS_LOW, dtype=np.int64)
    high = np.full((V.V_ROWS + 1, CARDS), OBS_HIGH, dtype=np.int64)

    def rows(first, n, lo, hi):
        low[first:first + n], high[first:first + n] = lo, hi

    rows(V.V_PLAYED, d.SEATS, 0, d.DECKS)
    rows(V.V_TRICK, d.SEATS, 0, d.DECKS)
    rows(V.V_HAND, 1, 0, d.DECKS)
    rows(V.V_BURIED, 1, 0, d.DECKS)
    rows(V.V_EFF, 1, 0, d.SUITS)
    rows(V.V_POS, 1, 0, CARDS)
    rows(V.V_SUITS, d.SUITS + 1, -1, CARDS - 1)
    rows(V.V_TRICK_LEADER, 2, -1, d.SEATS - 1)  # and V_TRICK_WINNER
    rows(V.V_DECL_SEAT, 1, -1, d.SEATS - 1)
    rows(V.V_DECL_CARD, 1, -1, CARDS - 1)
    rows(V.V_DECL_COUNT, 1, 0, d.DECKS)
    rows(V.V_ROWS, 1, 0, d.DECKS)  # the cards chosen so far
    return low.ravel(), high.ravel()


def observation_space(game=None):
    low, high = observation_bounds(game)
    return spaces.Dict({
        "observation": spaces.Box(low, high, shape=low.shape, dtype=np.int64),
        "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
    })


class Deal:
    """One deal with an answer being chosen action by action: the part both environments share."""

    def __init__(self, state: State):
        self.state = state
        self.dims = state.game.dims
        self.chosen = np.zeros(CARDS, dtype=np.int64)
        self._options = None  # the legal answers (count rows) of the pending declare/follow
        self._mask = None  # the mask of the pending choice (observe and act both need it)

    def turn(self):
        return self.state.to_act()

    def _answers(self):
        """Count rows of the legal answers, for the decisions whose answers are enumerated (few)."""
        if self._options is None:
            legal = self.state._follows() if self.turn().decision == "follow" else (
                K.parse_cards(a) for a in self.state.iter_legal() if a)
            rows = [np.bincount(ids, minlength=CARDS) for ids in legal]
            self._options = np.array(rows, dtype=np.int64).reshape(-1, CARDS)
        return self._options

    def mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask.copy()

    def _compute_mask(self) -> np.ndarray:
        m = np.zeros(N_ACTIONS, dtype=np.int8)
        turn = self.turn()
        if turn is None:
            return m
        st = self.state
        hand = st._hands()[turn.seat] - self.chosen
        if turn.decision == "bid":
            if turn.step == "bid":
                for i in range(st.game.kernels.view.MAX_BID // BID_STEP + 1):
                    m[i] = st.is_legal(i * BID_STEP)
            elif turn.step == "show":
                m[:CARDS] = hand > 0
            else:
                m[:len(K.SUITS)] = [st.is_legal(s) for s in K.SUITS]
        elif turn.decision == "discard":
            m[:CARDS] = hand > 0
        elif turn.decision == "call":
            rank = int(st._st[st.game.kernels.state.S_RANK])
            callable_ = np.array([c < self.dims.BJ and c % self.dims.RANKS != rank for c in range(CARDS)])
            distinct = int((self.chosen > 0).sum())
            m[:CARDS] = callable_ & (self.chosen < self.dims.DECKS) & (
                (self.chosen > 0) | (distinct < self.dims.CALLS))
            m[DONE] = distinct == self.dims.CALLS
        elif turn.decision == "lead":
            eff = st._table()[0]
            picked = np.nonzero(self.chosen)[0]
            m[:CARDS] = (hand > 0) & ((eff == eff[picked[0]]) if len(picked) else True)
            m[DONE] = len(picked) > 0
        else:  # declare, follow: what extends to one of the legal answers
            rows = self._answers()
            rows = rows[(rows >= self.chosen).all(axis=1)]
            m[:CARDS] = (rows > self.chosen).any(axis=0) if len(rows) else 0
            if turn.decision == "declare":
                m[DONE] = not self.chosen.any() or bool((rows == self.chosen).all(axis=1).any())
        return m

    def act(self, action: int) -> bool:
        """Take one action; True when it completed an answer (applied to the state).  An action the
        mask does not allow raises IllegalAnswer and changes nothing."""
        turn = self.turn()
        if turn is None:
            raise IllegalAnswer("the deal is over: no action is taken")
        action = int(action)
        if not 0 <= action < N_ACTIONS or not self.mask()[action]:
            picked = K.cards_str(K.from_counts(self.chosen)) or "nothing"
            raise IllegalAnswer(f"seat {turn.seat} ({turn.decision}{'/' + turn.step if turn.step else ''}): "
                                f"action {action} is masked (chosen so far: {picked})")
        if turn.decision == "bid":
            answer = (action * BID_STEP if turn.step == "bid" else [K.card_str(action)] if turn.step == "show"
                      else K.SUITS[action])
            return self._answer(answer)
        if action != DONE:
            self.chosen[action] += 1
            self._mask = None
        n = int(self.chosen.sum())
        if (action == DONE or (turn.decision == "discard" and n == self.dims.KITTY)
                or (turn.decision == "follow" and n == int(self.state._st[self.state.game.kernels.state.S_LEAD_N]))):
            if turn.decision == "call":
                answer = [{"card": K.card_str(c), "copy": int(self.chosen[c])} for c in np.nonzero(self.chosen)[0]]
            else:
                answer = [K.card_str(c) for c in K.from_counts(self.chosen)]
            try:
                return self._answer(answer)
            except IllegalAnswer:  # the engine's check is the last word: the choice stays as it was
                if action != DONE:
                    self.chosen[action] -= 1
                    self._mask = None
                raise
        return False

    def answer(self, answer) -> None:
        """Apply a whole answer in the step API's form (another seat's policy)."""
        self._answer(answer)

    def _answer(self, answer) -> bool:
        self.state.apply(answer)
        self.chosen[:] = 0
        self._options = self._mask = None
        return True

    def observe(self, seat: int, acting: bool) -> dict:
        obs = np.empty(observation_size(self.state.game), dtype=np.int64)
        obs[:-CARDS] = self.state._ws[0][seat].ravel()
        obs[-CARDS:] = self.chosen if acting else 0
        return {"observation": obs, "action_mask": self.mask() if acting else np.zeros(N_ACTIONS, dtype=np.int8)}

    def rewards(self) -> list[int]:
        """Per seat at the end: +gain for the team that goes up, -gain for the other (in Finding
        Friends: a seat's own gain if it went up, else minus the largest gain)."""
        r = self.state.result()
        seats = self.dims.SEATS
        if self.state.game.friends:
            gains = [r[f"level{s}_after"] - r[f"level{s}_before"] for s in range(seats)]
            return [g if g > 0 else -max(gains) for g in gains]
        gains = [r[f"level{t}_after"] - r[f"level{t}_before"] for t in range(2)]
        return [gains[s % 2] - gains[1 - s % 2] for s in range(seats)]


def _new_deal(rng, options, game, levels, declaring_team) -> Deal:
    """A fresh deal from the seeded stream, or (``options={"record": rec, "upto": n}``) a recorded deal
    after its first n decisions (State.from_record)."""
    seed = int(rng.integers(0, 2**63))
    if options and "record" in options:
        state = State.from_record(options["record"], options.get("upto"))
        if state.game.size != game.size:
            raise ValueError(f"reset: the record is a game of {state.game.size.label}; this environment plays "
                             f"{game.size.label} (make it with game=...)")
        if state.over:
            raise ValueError(f"reset: the record's deal is over after {options.get('upto')} decisions; "
                             "give options['upto'] smaller than its number of decisions")
        return Deal(state)
    return Deal(game.new_initial_state(seed=seed, deal_id=0, levels=levels, declaring_team=declaring_team))


def _render(deal: Deal) -> str:
    """The table as text (render mode "ansi"; "human" prints it): the levels, the trump, the points
    of the side that does not declare, every hand (an onlooker's view), the trick and whose turn."""
    from tractor_sim.play.players import View

    state = deal.state
    public = View(state.game, state._ws[0][0])  # the public fields are the same in every seat's view
    holders = "player" if state.game.friends else "team"
    levels = ", ".join(f"{holders} {i} at {lv}" for i, lv in enumerate(public.levels))
    declaring = public.declaring_team
    lines = [f"levels: {levels}" + (f"; team {declaring} declares" if declaring is not None else "")
             + (f", starter seat {public.starter}" if public.starter is not None else "")]
    rank, suit = public.trump_rank, public.trump_suit
    lines.append(f"trump: rank {rank or '?'}, suit {suit or 'not set yet'}")
    lines.append(f"points: {public.points} to the side that does not declare; trick {public.trick_number + 1}")
    turn = deal.turn()
    for s in range(state.game.players):
        mark = ">" if turn is not None and turn.seat == s else " "
        lines.append(f"{mark} seat {s}: {' '.join(state.hand(s)) or '-'}")
    trick = "  ".join(f"{s}: {' '.join(c)}" for s, c in state.trick())
    lines.append(f"trick: {trick or '-'}")
    if turn is None:
        lines.append(f"deal over: {state.result()['opp_points']} points to the opponents; rewards {deal.rewards()}")
    else:
        chosen = K.cards_str(K.from_counts(deal.chosen))
        lines.append(f"seat {turn.seat} to {turn.decision}{'/' + turn.step if turn.step else ''}; "
                     f"chosen [{chosen}]")
    return "\n".join(lines)


RENDER_MODES = ("ansi", "human")


def _check_render_mode(render_mode):
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode: None, 'ansi' or 'human', got {render_mode!r}")


def _render_as(mode, deal):
    if mode is None or deal is None:
        return None
    text = _render(deal)
    if mode == "human":
        print(text)
        return None
    return text


class TractorAEC(AECEnv):
    """Every seat of one deal (agents seat_0..seat_N-1, team = seat % 2).  ``reset(seed=...)``
    gives the same deal and, with the same actions, the same trajectory; ``reset(options={"record":
    rec, "upto": n})`` starts from a recorded deal after its first n decisions."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "tractor_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules=None, levels=None, declaring_team=0, render_mode=None, game=None):
        super().__init__()
        _check_render_mode(render_mode)
        self.game = as_game(game, rules)
        self.rules, self.levels, self.declaring_team, self.render_mode = rules, levels, declaring_team, render_mode
        self.possible_agents = [f"seat_{s}" for s in range(self.game.players)]
        self._obs_space = observation_space(self.game)
        self._act_space = spaces.Discrete(N_ACTIONS)
        self._rng = np.random.default_rng()
        self.deal = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.deal = _new_deal(self._rng, options, self.game, self.levels, self.declaring_team)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = f"seat_{self.deal.turn().seat}"

    def observe(self, agent):
        seat = int(agent.split("_")[1])
        return self.deal.observe(seat, acting=agent == self.agent_selection and not self.deal.state.over)

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        if action is None:
            raise IllegalAnswer(f"{agent} must act (an int 0..{N_ACTIONS - 1}), got None")
        self.deal.act(action)
        if self.deal.state.over:
            for a, r in zip(self.possible_agents, self.deal.rewards()):
                self.rewards[a] = r
                self.terminations[a] = True
        else:
            self.agent_selection = f"seat_{self.deal.turn().seat}"
        self._accumulate_rewards()

    def render(self):
        return _render_as(self.render_mode, self.deal)

    def close(self):
        pass


def aec_env(**kwargs) -> TractorAEC:
    """The AEC environment (PettingZoo's ``env()`` convention)."""
    return TractorAEC(**kwargs)


class TractorEnv(gymnasium.Env):
    """One seat of a deal against registered policies (``others``: one for every other seat, or
    (partners, opponents): the seats of its parity and the others, as the engine seats policies),
    stepped by State.answer_of.  An action the mask does not allow is rejected: nothing changes, the
    reward is ``illegal_reward`` and ``info["illegal"]`` is True; with ``illegal="terminate"`` the
    episode ends there instead (PettingZoo's TerminateIllegalWrapper convention)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, seat=0, others="basic", rules=None, levels=None, declaring_team=0, illegal_reward=0.0,
                 render_mode=None, game=None, illegal="reject"):
        self.game = as_game(game, rules)
        seats = self.game.players
        if seat not in range(seats):
            raise ValueError(f"seat must be 0..{seats - 1}, got {seat!r}")
        _check_render_mode(render_mode)
        if illegal not in ("reject", "terminate"):
            raise ValueError(f"illegal: 'reject' (nothing changes) or 'terminate' (the episode ends), got {illegal!r}")
        self.illegal, self._ended = illegal, False
        partner, opponents = others if isinstance(others, (tuple, list)) else (others, others)
        self.policies = {s: partner if s % 2 == seat % 2 else opponents for s in range(seats) if s != seat}
        self.seat, self.rules, self.levels, self.declaring_team = seat, rules, levels, declaring_team
        self.illegal_reward, self.render_mode = float(illegal_reward), render_mode
        self.observation_space = observation_space(self.game)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.deal = None

    def _others_play(self):
        st = self.deal.state
        while not st.over and st.to_act().seat != self.seat:
            self.deal.answer(st.answer_of(self.policies[st.to_act().seat]))

    def _obs(self):
        return self.deal.observe(self.seat, acting=not (self.deal.state.over or self._ended))

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.deal = _new_deal(self.np_random, options, self.game, self.levels, self.declaring_team)
        self._ended = False
        self._others_play()
        return self._obs(), {}

    def step(self, action):
        if self.deal is None or self.deal.state.over or self._ended:
            raise RuntimeError("the deal is over (or not started): call reset()")
        try:
            self.deal.act(action)
        except IllegalAnswer as e:  # "terminate": PettingZoo's TerminateIllegalWrapper convention
            self._ended = self.illegal == "terminate"
            return self._obs(), self.illegal_reward, self._ended, False, {"illegal": True, "why": str(e)}
        self._others_play()
        over = self.deal.state.over
        reward = float(self.deal.rewards()[self.seat]) if over else 0.0
        return self._obs(), reward, over, False, {"illegal": False}

    def render(self):
        return _render_as(self.render_mode, self.deal)


__all__ = ["TractorAEC", "TractorEnv", "aec_env", "Deal", "DONE", "N_ACTIONS", "BID_STEP", "observation_space",
           "observation_bounds",
           "observation_size", "Game"]
