"""The game in OpenSpiel: ``python_tractor``, registered with ``pyspiel.register_game`` on import.

4 players, 2 decks, the default rules (the game parameter ``rules`` names a preset, e.g.
"russian").  The shuffle is one chance node: the deal id of a run with seed 0 (``deals`` outcomes,
uniform; the engine's deal of that id follows, so deal k here is deal k of ``tractor-sim`` runs
with seed 0).  The players' actions are the environments' (tractor_sim.play.env) shifted by one so
that DONE comes first: action 0 is DONE (the environments' 54), action c + 1 is card c (a card at a
time); the legal actions are exactly those the mask allows.  (DONE first: a search that tries the
actions in order weighs stopping a lead against adding cards before it has tried every card.)  Returns: +gain for each seat of the team that goes up,
-gain for the others (zero-sum).  Observation and information-state tensors are the seat's view
and the row of the cards chosen so far (float32); with no private information (a public observer)
the seat's own cards are zeroed.  The strings are compact texts of the same.
Needs the optional extra ``openspiel`` (pip install open_spiel).  Checked by
``pyspiel.random_sim_test(..., serialize=True)`` in tests/test_openspiel.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from tractor_sim.play.env import CARDS, N_ACTIONS, Deal, observation_size
from tractor_sim.play.game import Game, State
from tractor_sim.rules import cards as K

PLAYERS = 4
DEALS = 1 << 16  # chance outcomes of the shuffle: deal ids 0..DEALS-1
MAX_GAME_LENGTH = 20_000  # a card per action; redeals (nobody declares) repeat the draw

_GAME_TYPE = pyspiel.GameType(
    short_name="python_tractor",
    long_name="Python Tractor (tractor-sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=PLAYERS,
    min_num_players=PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"deals": DEALS, "rules": "default"})


def _info(deals: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(num_distinct_actions=N_ACTIONS, max_chance_outcomes=deals, num_players=PLAYERS,
                            min_utility=-13.0, max_utility=13.0, utility_sum=0.0, max_game_length=MAX_GAME_LENGTH)


def to_action(env_action: int) -> int:
    """The environments' action (cards 0..53, DONE 54) as this game's (DONE 0, card c: c + 1)."""
    return 0 if env_action == CARDS else env_action + 1


def from_action(action: int) -> int:
    return CARDS if action == 0 else action - 1


class TractorGame(pyspiel.Game):
    """Tractor at 4 players with 2 decks, as tractor-sim plays it."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.deals = int(params.get("deals", DEALS))
        if not 1 <= self.deals <= 1 << 24:
            raise ValueError(f"python_tractor: deals must be 1 .. 2**24, got {self.deals}")
        self.rules_name = str(params.get("rules", "default"))
        super().__init__(_GAME_TYPE, _info(self.deals), params)
        if self.tractor.auction:
            raise ValueError("python_tractor: the auction's bids are not mapped to actions here; use the draw")

    @property
    def tractor(self) -> Game:
        """The tractor-sim Game (looked up, not held: OpenSpiel deep-copies games and states)."""
        return Game.of(None, None if self.rules_name == "default" else self.rules_name)

    def new_initial_state(self):
        return TractorState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return TractorObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.rules_name)


class TractorState(pyspiel.State):
    """A deal: a chance node (the deal id), then the seats' actions until the last trick."""

    def __init__(self, game):
        super().__init__(game)
        self._box = _DealBox()

    @property
    def deal(self) -> Deal | None:
        return self._box.deal

    @deal.setter
    def deal(self, value) -> None:
        self._box.deal = value

    def current_player(self):
        if self.deal is None:
            return pyspiel.PlayerId.CHANCE
        turn = self.deal.turn()
        return pyspiel.PlayerId.TERMINAL if turn is None else turn.seat

    def _legal_actions(self, player):
        return sorted(to_action(int(a)) for a in np.flatnonzero(self.deal.mask()))

    def chance_outcomes(self):
        n = self.get_game().deals
        p = 1.0 / n
        return [(i, p) for i in range(n)]

    def _apply_action(self, action):
        if self.deal is None:
            self.deal = Deal(self.get_game().tractor.new_initial_state(seed=0, deal_id=int(action)))
            return
        self.deal.act(from_action(int(action)))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return "done" if action == 0 else K.card_str(int(action) - 1)

    def is_terminal(self):
        return self.deal is not None and self.deal.turn() is None

    def returns(self):
        if not self.is_terminal():
            return [0.0] * PLAYERS
        return [float(r) for r in self.deal.rewards()]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A world the seat cannot tell from this one (State.sample_world: exact, from the kitty exchange
        on; ValueError during the draw), with the cards it has chosen so far."""
        seed = int(probability_sampler() * 2**62)
        world = self.get_game().new_initial_state()
        world.deal = Deal(self.deal.state.sample_world(int(player_id), seed))
        world.deal.chosen[:] = self.deal.chosen
        return world

    def __str__(self):
        if self.deal is None:
            return "deal not chosen"
        st = self.deal.state
        hands = " | ".join(" ".join(st.hand(s)) for s in range(PLAYERS))
        trick = " ".join(f"{s}:{''.join(c)}" for s, c in st.trick())
        return f"hands: {hands}; trick: {trick}; chosen: {K.cards_str(K.from_counts(self.deal.chosen))}"


class _DealBox:
    """The deal of a TractorState.  OpenSpiel clones a Python state by deep-copying its attributes:
    the deal is copied here by the step API's clone (the Game it plays is shared, not copied)."""

    def __init__(self, deal: Deal | None = None):
        self.deal = deal

    def __deepcopy__(self, memo):
        if self.deal is None:
            return _DealBox()
        copy = Deal(self.deal.state.clone())
        copy.chosen[:] = self.deal.chosen
        return _DealBox(copy)

    def __getstate__(self):
        """Serialized (pyspiel.serialize_game_and_state) as the step API's JSON and the chosen cards."""
        if self.deal is None:
            return {"state": None}
        return {"state": self.deal.state.to_json(), "chosen": self.deal.chosen.tolist()}

    def __setstate__(self, data):
        self.deal = None
        if data["state"] is not None:
            self.deal = Deal(State.from_json(data["state"]))
            self.deal.chosen[:] = data["chosen"]


class TractorObserver:
    """The seat's view and its chosen row as a float32 tensor (the PyObserver interface); a public
    observer (no private information) sees the seat's own cards zeroed."""

    def __init__(self, iig_obs_type, rules_name: str):
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.rules_name = rules_name
        size = observation_size(self.game)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor.reshape(-1, CARDS)}

    @property
    def game(self) -> Game:
        return Game.of(None, None if self.rules_name == "default" else self.rules_name)

    def set_from(self, state, player):
        self.tensor.fill(0)
        if state.deal is None:
            return
        obs = state.deal.observe(player, acting=state.current_player() == player)["observation"]
        self.tensor[:] = obs
        if not self.private:
            V = self.game.kernels.view
            rows = self.dict["observation"]
            suits = self.game.dims.SUITS + 1
            rows[V.V_HAND] = rows[V.V_BURIED] = rows[-1] = 0
            rows[V.V_META, V.M_MY_CARDS:V.M_MY_CARDS + suits] = 0
            rows[V.V_META, V.M_MY_PAIRS:V.M_MY_PAIRS + suits] = 0

    def string_from(self, state, player):
        self.set_from(state, player)
        nz = np.flatnonzero(self.tensor)
        return f"p{player} " + " ".join(f"{i}:{int(self.tensor[i])}" for i in nz)


pyspiel.register_game(_GAME_TYPE, TractorGame)


class CompiledPlayout:
    """An OpenSpiel evaluator (the mcts.Evaluator interface) that values a state by playing the deal out
    with a compiled policy at every seat (State.play_out) and a uniform prior: a rollout costs about a
    millisecond instead of a hundred Python steps.  A lead being chosen is valued as led now (the cards
    chosen so far: a lead of any one suit's cards is legal); another pending partial answer is
    answered by the policy."""

    def __init__(self, policy="expert"):
        self.policy = policy

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        world = state.deal.state.clone()
        turn = world.to_act()
        if turn is not None and turn.decision == "lead" and state.deal.chosen.any():
            world.apply([K.card_str(c) for c in K.from_counts(state.deal.chosen)])
        world.play_out(self.policy, self.policy)
        return np.array(Deal(world).rewards(), dtype=float)

    def prior(self, state):
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def ismcts_policy(name="ismcts", simulations=32, base="expert", uct_c=2.0):
    """Register a Python policy (docs/bots.md) that leads and follows with OpenSpiel's ISMCTS bot
    (worlds from the seat's knowledge: resample_from_infostate; rollouts: CompiledPlayout of ``base``),
    ``simulations`` per card chosen, and hands the other decisions to the compiled ``base``.  Its
    random stream is the decision's, so a run repeats."""
    from open_spiel.python.algorithms import ismcts

    from tractor_sim.play.registry import python_policy

    game = pyspiel.load_game("python_tractor")
    evaluator = CompiledPlayout(base)

    def play(decision):
        if decision.decision not in ("lead", "follow"):
            return decision.ask(base)
        bot = ismcts.ISMCTSBot(game, evaluator, uct_c=uct_c, max_simulations=int(simulations),
                               random_state=np.random.RandomState(decision.rng.integers(2**31)))
        state = game.new_initial_state()
        state.deal = Deal(decision._state.clone())
        cards = []
        while True:
            action = bot.step(state)
            state.apply_action(action)
            if action != 0:
                cards.append(K.card_str(action - 1))
            if not state.deal.chosen.any():  # the answer is complete (applied to the copy)
                return cards

    python_policy(name, description=f"OpenSpiel ISMCTS, {simulations} simulations per card, {base} rollouts; "
                                    f"{base} elsewhere")(play)
    return play

__all__ = ["TractorGame", "TractorState", "TractorObserver", "CompiledPlayout", "ismcts_policy", "DEALS"]
