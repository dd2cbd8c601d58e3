"""The batched environment (tractor_sim.play.vector.TractorVectorEnv): Gymnasium's vector contract, seeds,
a replay of its deals through the step API, masks against the legal answers."""

import itertools

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the environments need the optional extra 'rl' (gymnasium)")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from tractor_sim.play import env as E  # noqa: E402
from tractor_sim.play.game import Game, State  # noqa: E402
from tractor_sim.play.vector import TractorVectorEnv  # noqa: E402
from tractor_sim.rules import cards as K  # noqa: E402


def _pick(obs, rng):
    """A random allowed action per deal (0 where nothing is allowed: an ended deal)."""
    m = obs["action_mask"].astype(bool)
    scores = np.where(m, rng.random(m.shape), -1.0)
    return np.where(m.any(axis=1), scores.argmax(axis=1), 0).astype(np.int64)


def _run(env, seed, steps, rng_seed=0):
    """(observations, actions, rewards, terminations, infos) of ``steps`` random steps after reset(seed)."""
    rng = np.random.default_rng(rng_seed)
    obs, _ = env.reset(seed=seed)
    out = [(obs, None, None, None, None)]
    for _ in range(steps):
        a = _pick(obs, rng)
        obs, r, term, trunc, info = env.step(a)
        assert not trunc.any()
        out.append((obs, a, r, term, info))
    return out


def test_spaces_and_metadata_follow_gymnasium():
    env = TractorVectorEnv(num_envs=3, others="basic", seat=1)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_observation_space == E.TractorEnv(seat=1).observation_space  # the one-seat env's layout
    assert env.single_action_space == gymnasium.spaces.Discrete(E.N_ACTIONS)
    assert env.observation_space == batch_space(env.single_observation_space, 3)
    assert env.action_space == batch_space(env.single_action_space, 3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=3)
    assert obs in env.observation_space and info == {}
    assert env.action_space.sample().shape == (3,)
    for obs, *_ in _run(env, 3, 120)[1:]:
        assert obs in env.observation_space
        assert obs["observation"].dtype == np.int64 and obs["action_mask"].dtype == np.int8


def test_same_seed_same_results_and_fresh_arrays():
    env = TractorVectorEnv(num_envs=4, others="basic")
    a, b = _run(env, 11, 150), _run(env, 11, 150)
    assert data_equivalence(a, b, exact=True)
    c = _run(env, 12, 150)
    assert not data_equivalence(a[0][0], c[0][0])
    # a later reset without a seed goes on with the next deals; the arrays handed out are never reused
    first, _ = env.reset(seed=11)
    second, _ = env.reset()
    assert not data_equivalence(first, second)
    o1, *_ = env.step(_pick(second, np.random.default_rng(0)))
    o2, *_ = env.step(_pick(o1, np.random.default_rng(0)))
    assert not np.shares_memory(o1["observation"], o2["observation"])
    assert not np.shares_memory(o1["action_mask"], o2["action_mask"])


def _replay_check(env, trace, seed, others="basic"):
    """Replay every deal of ``trace`` through the step API (State, the AEC environment's Deal): the
    learner's actions as recorded, the others' answers by ``others``; the observations, masks (the
    AEC environment's, from the legal answers), rewards and ends must be the vector env's.  Returns
    the deals checked."""
    n, seat, game = env.num_envs, env.seat, env.game
    deals = 0
    for i in range(n):
        k, deal, expect_start = 0, None, True
        for t, (obs, a, r, term, info) in enumerate(trace):
            if expect_start:  # this row's observation is the first of deal k
                state = State.new(seed=seed, deal_id=k * n + i, game=game, declaring_team=env.declaring_team)
                deal = E.Deal(state)
                _others_play(deal, seat, others)
                k, expect_start = k + 1, False
            else:
                deal.act(int(a[i]))
                _others_play(deal, seat, others)
                over = deal.state.over
                assert bool(term[i]) == over
                if over:
                    assert r[i] == deal.rewards()[seat]
                    deals += 1
                else:
                    assert r[i] == 0
            want = deal.observe(seat, acting=not deal.state.over)
            assert np.array_equal(obs["observation"][i], want["observation"]), (i, t)
            assert np.array_equal(obs["action_mask"][i], want["action_mask"]), (i, t)
            if deal.state.over and t + 1 < len(trace):
                expect_start = True  # next step: autoreset (NextStep), the action ignored
                trace_next = trace[t + 1]
                assert not trace_next[3][i] and trace_next[2][i] == 0
    return deals


def _others_play(deal, seat, others):
    """The policies' answers up to the learner's next lead or follow; ``others`` one policy, or
    (partners, opponents) by the learner's parity."""
    st = deal.state
    partner, opponent = others if isinstance(others, tuple) else (others, others)
    while not st.over and not (st.to_act().seat == seat and st.to_act().decision in ("lead", "follow")):
        deal.answer(st.answer_of(partner if st.to_act().seat % 2 == seat % 2 else opponent))


@pytest.mark.parametrize("seat,rules", [(0, None), (3, "russian")])
def test_deals_replayed_through_the_step_api_are_identical(seat, rules):
    env = TractorVectorEnv(num_envs=3, others="basic", seat=seat, rules=rules, declaring_team=1)
    trace = _run(env, 5, 140, rng_seed=seat)
    assert _replay_check(env, trace, 5) >= 3  # several whole deals, and the start of the next


def _brute_follows(state, seat):
    """The legal follows, from nothing but the engine's check on every multiset of the hand of the
    lead's size (independent of the masks' enumeration)."""
    hand = np.bincount(K.parse_cards(state.hand(seat)), minlength=K.N_DISTINCT)
    n = int(state._st[state.game.kernels.state.S_LEAD_N])
    cards = [c for c in range(K.N_DISTINCT) for _ in range(int(hand[c]))]
    return [combo for combo in set(itertools.combinations(cards, n)) if state.is_legal([K.card_str(c) for c in combo])]


def _union(follows, chosen):
    """The mask of the cards that extend ``chosen`` (a list of cards) towards one of ``follows``."""
    mask = np.zeros(E.N_ACTIONS, dtype=np.int8)
    for combo in follows:
        rest = list(combo)
        if all(c in rest and not rest.remove(c) for c in chosen):
            mask[rest] = 1
    return mask


def test_follow_masks_are_the_legal_answers():
    """Every follow of one or two cards by seat 2 in a few deals of basic players: the mask of the
    first card, and of the second after each allowed first, is what the legal follows found by
    trying every multiset of the hand with the engine's check allow."""
    checked = 0
    for deal_id in range(4):
        state = State.new(seed=21, deal_id=deal_id)
        while not state.over:
            turn = state.to_act()
            if turn.seat == 2 and turn.decision == "follow" and int(state._st[state.game.kernels.state.S_LEAD_N]) <= 2:
                follows = _brute_follows(state, 2)
                first = _vector_mask_at(state, [])
                assert np.array_equal(first, _union(follows, []))
                if int(state._st[state.game.kernels.state.S_LEAD_N]) == 2:
                    for c in np.flatnonzero(first):
                        assert np.array_equal(_vector_mask_at(state, [c]), _union(follows, [c]))
                checked += 1
            state.apply(state.answer_of("basic"))
    assert checked >= 10


def _vector_mask_at(state, chosen):
    """The vector kernel's mask for the seat to act at ``state`` with ``chosen`` cards picked."""
    game = state.game
    V = game.kernel("vector")
    obs = np.zeros(V.OBS_SIZE, dtype=np.int64)
    mask = np.zeros(V.N_ACTIONS, dtype=np.int8)
    picked = np.bincount(np.array(chosen, dtype=np.int64), minlength=game.dims.CARDS).astype(np.int64)
    seat = state.to_act().seat
    V.observe_seat(state._st.copy(), tuple(a.copy() for a in state._ws), game.encoded, np.int64(seat), picked, obs,
                   mask)
    assert np.array_equal(obs[:-game.dims.CARDS], state._ws[0][seat].ravel())
    return mask


def test_autoreset_modes_give_the_same_deals():
    """SameStep starts the next deal in the step that ends one (its last observation in
    info["final_obs"]); NextStep one step later, the action ignored; Disabled waits for
    reset(options={"reset_mask": ...}).  (One deal at a time: NextStep's extra step would move the
    others.)"""
    nxt = TractorVectorEnv(num_envs=1, autoreset_mode="NextStep")
    same = TractorVectorEnv(num_envs=1, autoreset_mode=AutoresetMode.SAME_STEP)
    off = TractorVectorEnv(num_envs=1, autoreset_mode="Disabled")
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(1)
    o_n, _ = nxt.reset(seed=2)
    o_s, _ = same.reset(seed=2)
    o_d, _ = off.reset(seed=2)
    ended = 0
    for _ in range(240):
        assert data_equivalence(o_n, o_s) and data_equivalence(o_n, o_d)
        a = _pick(o_n, rng)
        o_n, r_n, t_n, _, _ = nxt.step(a)
        o_s, r_s, t_s, _, i_s = same.step(a)
        o_d, r_d, t_d, _, _ = off.step(a)
        assert np.array_equal(r_n, r_s) and np.array_equal(t_n, t_s) and np.array_equal(t_n, t_d)
        if t_n.any():
            ended += int(t_n.sum())
            for i in np.flatnonzero(t_n):
                assert data_equivalence(i_s["final_obs"][i], {"observation": o_n["observation"][i],
                                                              "action_mask": o_n["action_mask"][i]})
            assert i_s["_final_obs"].tolist() == t_n.tolist()
            with pytest.raises(RuntimeError, match="autoreset is disabled"):
                off.step(a)
            o_d, _ = off.reset(options={"reset_mask": t_n.copy()})
            o_n, r_n, t_n, _, _ = nxt.step(a)  # the autoreset step: reward 0, not ended
            assert not t_n.any() and not r_n.any()
    assert ended >= 2


def test_illegal_actions_reject_or_terminate():
    env = TractorVectorEnv(num_envs=2)
    obs, _ = env.reset(seed=4)
    bad = np.array([int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]])
    again, r, term, _, info = env.step(bad)
    assert data_equivalence(obs, again) and info["illegal"].all() and not term.any() and not r.any()
    env = TractorVectorEnv(num_envs=2, illegal="terminate", illegal_reward=-1.0)
    obs, _ = env.reset(seed=4)
    good = _pick(obs, np.random.default_rng(0))
    act = np.array([bad[0], good[1]])
    obs, r, term, _, info = env.step(act)
    assert term.tolist() == [True, False] and r.tolist() == [-1.0, 0.0] and info["illegal"].tolist() == [True, False]
    assert not obs["action_mask"][0].any()


def test_wrappers_and_make_vec():
    import tractor_sim.env as TE

    env = gymnasium.make_vec(TE.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", others="random")
    assert isinstance(env.unwrapped, TractorVectorEnv) and env.unwrapped.others == "random"
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(TE.TractorVectorEnv(num_envs=2))
    obs, _ = env.reset(seed=0)
    rng, episodes = np.random.default_rng(0), 0
    for _ in range(120):
        obs, r, term, trunc, info = env.step(_pick(obs, rng))
        episodes += int(term.sum())
        if term.any():
            assert info["_episode"].tolist() == term.tolist()
    assert episodes >= 2


@pytest.mark.parametrize("kwargs,match", [
    ({"num_envs": 0}, "num_envs"), ({"seat": 4}, "seat must be"), ({"illegal": "x"}, "illegal"),
    ({"autoreset_mode": "Later"}, "autoreset_mode"), ({"others": "nosuchpolicy"}, "nosuchpolicy"),
    ({"levels": [1, 2, 3]}, "levels"), ({"seed": -1}, "seed"), ({"others": "search:basic:4"}, "search policy"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises((ValueError, KeyError), match=match):
        TractorVectorEnv(**kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(6, 3, "tractor"), (5, 2, "friends")])
def test_other_sizes_replay_through_the_step_api(size):
    game = Game.of(size)
    env = TractorVectorEnv(num_envs=2, others="basic", seat=1, game=game)
    trace = _run(env, 9, 160)
    assert _replay_check(env, trace, 9) >= 1


def test_others_as_partners_and_opponents_and_a_python_policy_refused_by_name():
    """(partners, opponents) seats the policies by the learner's parity, as the one-seat environment
    does (the replay plays the same pair); a Python policy cannot run in the kernel: refused by name."""
    from pathlib import Path

    from tractor_sim.play.registry import load_module

    env = TractorVectorEnv(num_envs=2, others=("random", "basic"), seat=1)
    trace = _run(env, 8, 100)
    assert _replay_check(env, trace, 8, others=("random", "basic")) >= 1
    load_module(str(Path(__file__).resolve().parent.parent / "strategies" / "python_example.py"))
    with pytest.raises(ValueError, match="others: compiled policies only.*python_example"):
        TractorVectorEnv(num_envs=2, others=("basic", "python_example"))
