"""The game in OpenSpiel (tractor_sim.openspiel): registered as python_tractor, passes OpenSpiel's own
random simulation test with serialization, and its states are the engine's deals."""

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the optional extra 'openspiel' (pip install open_spiel)")

import tractor_sim.openspiel  # noqa: E402,F401 - registers python_tractor
from tractor_sim.play.game import Game  # noqa: E402


def test_random_sim_test_with_serialization():
    game = pyspiel.load_game("python_tractor")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_chance_outcome_is_the_engines_deal_and_states_serialize_and_clone():
    game = pyspiel.load_game("python_tractor", {"deals": 100})
    assert len(game.new_initial_state().chance_outcomes()) == 100
    state = game.new_initial_state()
    state.apply_action(7)
    engine = Game.of().new_initial_state(seed=0, deal_id=7)
    assert [state.deal.state.hand(s) for s in range(4)] == [engine.hand(s) for s in range(4)]
    for _ in range(150):  # into the burial and the play
        state.apply_action(state.legal_actions()[-1])
    assert state.deal.turn() is not None
    text = pyspiel.serialize_game_and_state(game, state)
    _, again = pyspiel.deserialize_game_and_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(again) == str(state) != str(clone)
    assert state.information_state_string(state.current_player()) != \
        state.information_state_string((state.current_player() + 1) % 4)


def test_openspiels_ismcts_plays_in_a_run_and_repeats():
    from pathlib import Path

    from tractor_sim.openspiel import ismcts_policy
    from tractor_sim.runs import runner

    ismcts_policy("test_ismcts", simulations=3)
    a, _ = runner.simulate([("test_ismcts", "expert")], n=1, seed=4, duplicate=False, chunk_size=1)
    b, _ = runner.simulate([("test_ismcts", "expert")], n=1, seed=4, duplicate=False, chunk_size=1)
    assert len(a) == 1 and a.equals(b)
    example = Path(__file__).resolve().parent.parent / "strategies" / "ismcts_example.py"
    c, _ = runner.simulate([("ismcts_example", "expert")], n=1, seed=4, duplicate=False, modules=(str(example),))
    assert list(c["policy0"]) == ["ismcts_example"]
