"""The environments (tractor_sim.play.env): PettingZoo's and Gymnasium's own checks, seeds, masks, rewards."""

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need the optional extra 'rl' (gymnasium)")
pytest.importorskip("pettingzoo", reason="the environments need the optional extra 'rl' (pettingzoo)")

from tractor_sim.rules import cards as K  # noqa: E402
from tractor_sim.play import env as E  # noqa: E402
from tractor_sim.play.game import IllegalAnswer  # noqa: E402

BIDDER = {"name": "bidder", "policy": "random", "bid": "random"}


def _random_episode(env, seed, rng):
    """Step every agent with a random allowed action; return the trajectory and the final rewards."""
    env.reset(seed=seed)
    trajectory, total = [], {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trajectory.append((agent, action))
        env.step(action)
    return trajectory, total


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(E.aec_env(), num_cycles=400)
    api_test(E.aec_env(rules="russian"), num_cycles=400)


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    check_env(E.TractorEnv(seat=1, others="basic"), skip_render_check=True)
    check_env(E.TractorEnv(seat=0, others=("basic", BIDDER), rules="russian"), skip_render_check=True)


@pytest.mark.parametrize("rules", [None, "russian"])
def test_same_seed_same_trajectory_and_rewards_sum_to_zero(rules):
    env = E.aec_env(rules=rules)
    a = _random_episode(env, 7, np.random.default_rng(0))
    b = _random_episode(env, 7, np.random.default_rng(0))
    c = _random_episode(env, 8, np.random.default_rng(0))
    assert a == b and a != c
    result = env.deal.state.result()  # of the last episode, seed 8
    up = result["gain_team"]
    assert c[1] == {f"seat_{s}": (0 if up < 0 else result["gain"] if s % 2 == up else -result["gain"])
                    for s in range(4)}
    assert sum(a[1].values()) == 0 and sum(c[1].values()) == 0


@pytest.mark.parametrize("game", [(6, 3, "tractor"), (5, 2, "friends")])
def test_the_environments_play_every_size(game):
    """PettingZoo's and Gymnasium's own checks at other sizes (the Game's compiled package: six seats
    and declarations of up to three cards; five seats and the landlord's call chosen card by card),
    and random episodes repeat by seed; rewards: zero-sum by team, in Finding Friends each seat that
    went up its own gain and the others minus the largest."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    env = E.aec_env(game=game)
    assert env.possible_agents == [f"seat_{s}" for s in range(game[0])]
    api_test(env, num_cycles=300)
    check_env(E.TractorEnv(seat=game[0] - 1, others="basic", game=game), skip_render_check=True)
    a = _random_episode(env, 3, np.random.default_rng(1))
    assert a == _random_episode(env, 3, np.random.default_rng(1))
    r = env.deal.state.result()
    holders = game[0] if game[2] == "friends" else 2
    gains = [r[f"level{s}_after"] - r[f"level{s}_before"] for s in range(holders)]
    if game[2] == "friends":
        assert a[1] == {f"seat_{s}": g if g > 0 else -max(gains) for s, g in enumerate(gains)}
        assert 0 <= r["call0_card"] < K.BJ and r["call0_copy"] in (1, 2)  # the call, chosen by actions
    else:
        assert sum(a[1].values()) == 0 and a[1]["seat_0"] == gains[0] - gains[1]


def test_every_allowed_action_completes_to_a_legal_answer_and_others_are_refused():
    """At each step of random deals: each allowed action, taken on a copy and followed by random allowed
    actions, ends in an answer the state accepts (Deal.act applies it with the engine's checks: it
    would raise); each refused action raises IllegalAnswer and changes nothing."""
    rng = np.random.default_rng(3)
    seen = set()
    for rules in (None, "russian"):
        env = E.aec_env(rules=rules)
        env.reset(seed=11)
        deal = env.deal
        steps = 0
        while not deal.state.over and steps < 400:
            turn = deal.turn()
            seen.add(turn.decision)
            mask = deal.mask()
            assert mask.any(), turn
            for action in np.flatnonzero(mask)[:12]:
                copy = E.Deal(deal.state.clone())
                copy.chosen[:] = deal.chosen
                done = copy.act(action)
                while not done:
                    done = copy.act(int(rng.choice(np.flatnonzero(copy.mask()))))
            refused = np.flatnonzero(mask == 0)
            if len(refused):
                before = (deal.state.to_json(), deal.chosen.copy())
                with pytest.raises(IllegalAnswer, match="is masked"):
                    deal.act(int(refused[0]))
                assert deal.state.to_json() == before[0] and (deal.chosen == before[1]).all()
            deal.act(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
    assert {"declare", "discard", "lead", "follow", "bid"} <= seen


def test_follow_masks_are_exactly_the_legal_follows():
    """The cards allowed first at a follow are exactly the cards of the legal follows."""
    env = E.aec_env()
    env.reset(seed=5)
    deal, checked = env.deal, 0
    rng = np.random.default_rng(1)
    while not deal.state.over:
        if deal.turn().decision == "follow" and not deal.chosen.any():
            cards = {c for play in deal.state.legal(limit=100_000) for c in K.parse_cards(play)}
            assert set(np.flatnonzero(deal.mask()[:E.CARDS])) == cards
            checked += 1
        deal.act(int(rng.choice(np.flatnonzero(deal.mask()))))
    assert checked > 20


def test_gym_env_rejects_a_masked_action_and_plays_the_others():
    env = E.TractorEnv(seat=2, others="expert")
    obs, _ = env.reset(seed=3)
    refused = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, term, trunc, info = env.step(refused)
    assert info["illegal"] and "is masked" in info["why"] and reward == 0 and not term
    assert (obs2["observation"] == obs["observation"]).all()
    rng = np.random.default_rng(0)
    total, term = 0.0, False
    while not term:
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not info["illegal"]
        total += reward
    assert env.deal.state.over and total == env.deal.rewards()[2]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="seat must be"):
        E.TractorEnv(seat=4)
    with pytest.raises(ValueError, match="render_mode"):
        E.aec_env(render_mode="rgb_array")


def test_the_examples_of_docs_environments_run(capsys):
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "environments.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(blocks) == 4 and "tractor_sim/Tractor-v0" in blocks[0] and "EPISODES = 2000" in blocks[1]
    assert "TractorVectorEnv(num_envs=1024" in blocks[3]
    for block in blocks:
        exec(block.replace("EPISODES = 2000", "EPISODES = 2").replace("num_envs=1024", "num_envs=8"), {})
    out = capsys.readouterr().out
    assert "levels gained per deal, by seat:" in out and "reward of seat 0:" in out
    assert "deals ended:" in out


def _play_on(env, plays):
    """Step the environment through recorded plays, a card at a time (a lead ends with DONE)."""
    for play in plays:
        assert env.agent_selection == f"seat_{play['seat']}"
        lead = env.deal.turn().decision == "lead"
        for c in sorted(K.parse_cards(play["cards"])):
            env.step(c)
        if lead:
            env.step(E.DONE)


def test_an_episode_can_start_from_a_recorded_deal():
    """reset(options={"record": ..., "upto": n}): the recorded deal after n decisions; played on with the
    record's own plays, a card at a time, it ends in the record's result, and the rewards follow it."""
    from tractor_sim.play import record as REC
    from tractor_sim.play.game import State
    from tractor_sim.core.kernels import view as V
    from tractor_sim.play.replay import replay

    rec = replay(seed=4, deal_id=2, policies=("expert", "basic"))
    whole = State.from_record(rec)
    env = E.aec_env()
    env.reset(options={"record": rec, "upto": 60})
    assert env.deal.state.to_json() == State.from_record(rec, upto=60).to_json()
    state = env.deal.state
    assert state.to_act().decision in ("lead", "follow")
    plays = [a for a in REC.actions(rec) if a["type"] == "play"]
    done = 4 * int(state.observation(0)[V.V_META, V.M_TRICKS_DONE]) + len(state.trick())
    _play_on(env, plays[done:])
    assert env.deal.state.result() == whole.result()
    r = whole.result()
    up = r["gain_team"]
    assert env.rewards == {f"seat_{s}": (0 if up < 0 else r["gain"] if s % 2 == up else -r["gain"])
                           for s in range(4)}
    with pytest.raises(ValueError, match="over after None decisions"):
        env.reset(options={"record": rec})


def test_pettingzoo_module_conventions_render_and_seed_tests():
    """tractor_sim.env: env()/raw_env(), render modes ansi (the table) and human (printed), and
    PettingZoo's render_test and seed_test on the wrapped environment."""
    import re

    from pettingzoo.test import render_test, seed_test

    import tractor_sim.env as TE

    render_test(lambda render_mode=None: TE.env(render_mode=render_mode))
    seed_test(lambda: TE.env(), num_cycles=10)
    e = TE.raw_env(render_mode="ansi")
    e.reset(seed=5)
    text = e.render()
    assert "levels: team 0 at 2" in text and "trump: rank" in text and "points:" in text and "trick:" in text
    assert sum(bool(re.match(r"^[> ] seat \d: ", line)) for line in text.splitlines()) == 4  # every hand


def test_gymnasium_make_and_the_terminate_illegal_convention():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import tractor_sim.env as TE

    e = gymnasium.make(TE.ENV_ID, others="basic", illegal="terminate", illegal_reward=-2.0)
    check_env(e.unwrapped)
    obs, _ = e.reset(seed=2)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = e.step(bad)
    assert (reward, terminated, info["illegal"]) == (-2.0, True, True) and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    # PettingZoo's wrapper: an illegal action ends the episode, the actor gets illegal_reward
    aec = TE.env(illegal="terminate", illegal_reward=-1)
    aec.reset(seed=3)
    actor = aec.agent_selection
    obs, *_ = aec.last()
    aec.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(aec.terminations.values()) and aec.rewards[actor] == -1


def test_human_render_prints_the_table(capsys):
    import tractor_sim.env as TE

    e = TE.raw_env(render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "trump: rank" in capsys.readouterr().out


@pytest.mark.parametrize("game", [None, (5, 2, "friends")])
def test_observations_lie_within_their_bounds_and_card_rows_are_tight(game):
    from tractor_sim.play.game import as_game

    g = as_game(game)
    space = E.observation_space(g)["observation"]
    V = g.kernels.view
    assert space.high[V.V_HAND * 54] == g.dims.DECKS and space.low[V.V_SUITS * 54] == -1
    rng = np.random.default_rng(1)
    for ep in range(2):
        e = E.TractorAEC(game=g)
        e.reset(seed=ep)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            assert space.contains(obs["observation"]), np.flatnonzero(
                (obs["observation"] < space.low) | (obs["observation"] > space.high))[:5]
            e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_parallel_env_is_the_turn_based_conversion_of_the_aec_env():
    """PettingZoo's parallel checks pass; a deal played through parallel_env (only the active seat's
    action counts) is the AEC environment's deal with the same actions."""
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    import tractor_sim.env as TE

    parallel_api_test(TE.parallel_env(), num_cycles=400)
    parallel_seed_test(lambda: TE.parallel_env(illegal="terminate"), num_cycles=200)
    par = TE.parallel_env()
    obs, _ = par.reset(seed=5)
    rng, trajectory, totals = np.random.default_rng(0), [], {a: 0 for a in par.possible_agents}
    active = next(a for a in par.agents if obs[a]["action_mask"].any())
    while par.agents:
        assert [a for a in par.agents if obs[a]["action_mask"].any()] == [active]  # one seat acts at a time
        action = int(rng.choice(np.flatnonzero(obs[active]["action_mask"])))
        trajectory.append((active, action))
        actions = {a: (action if a == active else 0) for a in par.agents}  # the others' are ignored
        obs, rewards, terms, _, infos = par.step(actions)
        for a, r in rewards.items():
            totals[a] += r
        if all(terms.values()):
            break
        active = infos[par.agents[0]]["active_agent"]
    aec = E.aec_env()
    aec.reset(seed=5)
    aec_totals = {a: 0 for a in aec.possible_agents}
    for agent, action in trajectory:
        assert aec.agent_selection == agent
        aec.step(action)
        for a, r in aec.rewards.items():
            aec_totals[a] += r
    assert aec.deal.state.over and totals == aec_totals and sum(totals.values()) == 0


PLAYS = ("lead", "follow")


@pytest.mark.parametrize("game", [(6, 3, "tractor"), (5, 2, "friends")])
def test_an_episode_stepped_to_the_end_is_the_engines_record(game):
    """At other sizes too: a deal the engine played (``replay`` is one engine chunk), loaded into the
    AEC environment after its declarations, burial and calls and stepped a card at a time with the
    recorded plays, ends in the engine's record, every column."""
    from tractor_sim.play import record as REC
    from tractor_sim.play.game import State
    from tractor_sim.play.replay import replay

    size = dict(zip(("players", "decks", "teams"), game))
    for deal_id in range(2):
        rec = replay(seed=6, deal_id=deal_id, policies=("expert", "basic"), game=size)
        acts = REC.actions(rec)
        first_play = next(i for i, a in enumerate(acts) if a["type"] == "play")
        # the state's decisions include every chance to declare during the draw: the first lead is the
        # first decision of the tricks (found by bisection: once begun, the tricks last to the end)
        low, high = 0, 10_000
        while low < high:
            mid = (low + high) // 2
            turn = State.from_record(rec, upto=mid).to_act()  # None: past the end
            low, high = (low, mid) if turn is None or turn.decision in PLAYS else (mid + 1, high)
        first_lead = low
        assert State.from_record(rec, upto=first_lead).to_act().decision == "lead"
        env = E.aec_env(game=game)
        env.reset(options={"record": rec, "upto": first_lead})
        _play_on(env, acts[first_play:])
        assert env.deal.state.over
        assert env.deal.state.result() == rec["result"], f"deal {deal_id}"
