"""Steps per second of the batched environment (TractorVectorEnv) at several batch sizes, beside the AEC
environment's and the one-seat Gymnasium environment's, in the same run.

    PYTHONPATH=. python benchmarks/bench_vector_env.py
    PYTHONPATH=. python benchmarks/bench_vector_env.py --sizes 1 64 1024 --seconds 5 --others expert

A step of the batched environment is one action of the learning seat in one deal (the other seats'
answers are inside it), so a call at N deals is N steps.  Actions are uniform over the allowed ones
(a random agent).  "env" counts the time inside ``step`` only, "env CPU" the process's CPU time
inside it (on a shared machine the wall clock also counts the other processes' turns); "with
agent" adds the random agent's numpy draw per batch.  The AEC figure is bench_env.py's (four random seats, an env step
one action of one seat); the Gymnasium figure one seat against ``--others``.
"""

import argparse
import time

import numpy as np

from bench_env import aec, gym  # the AEC and one-seat loops, as bench_env.py measures them
from tractor_sim.play.vector import TractorVectorEnv


def vector(n, seconds, others, seed=0):
    """(steps, seconds inside step, CPU seconds inside step, wall seconds, episodes) of ``seconds`` of
    random play at N = n."""
    env = TractorVectorEnv(num_envs=n, others=others)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    inside = cpu = 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        m = obs["action_mask"]
        a = np.argmax(rng.random(m.shape) * m, axis=1)  # uniform over the allowed actions
        t, c = time.perf_counter(), time.process_time()
        obs, _, term, _, _ = env.step(a)
        inside += time.perf_counter() - t
        cpu += time.process_time() - c
        steps += n
        episodes += int(term.sum())
    return steps, inside, cpu, time.perf_counter() - t0, episodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024])
    ap.add_argument("--seconds", type=float, default=5.0, help="of play per batch size")
    ap.add_argument("--others", default="basic")
    ap.add_argument("--aec-episodes", type=int, default=300)
    ap.add_argument("--gym-episodes", type=int, default=100)
    a = ap.parse_args()
    vector(2, 0.1, a.others)  # compile or load the caches
    aec(2, 0, None)
    gym(2, 0, None, a.others)
    print(f"batched environment (TractorVectorEnv, others {a.others}, random learner):")
    for n in a.sizes:
        steps, inside, cpu, wall, episodes = vector(n, a.seconds, a.others)
        print(f"  N = {n:>5}: {steps:>9,} steps, {episodes:>6,} episodes: {steps / inside:>9,.0f} steps/s (env), "
              f"{steps / cpu:>9,.0f} steps/s (env CPU), {steps / wall:>9,.0f} steps/s with agent, "
              f"{episodes / inside:>7,.0f} episodes/s")
    t0 = time.perf_counter()
    steps = aec(a.aec_episodes, 0, None)
    dt = time.perf_counter() - t0
    print(f"AEC environment, four random seats: {a.aec_episodes} episodes, {steps:,} steps: {steps / dt:,.0f} steps/s, "
          f"{a.aec_episodes / dt:,.1f} episodes/s")
    t0 = time.perf_counter()
    steps = gym(a.gym_episodes, 0, None, a.others)
    dt = time.perf_counter() - t0
    print(f"Gymnasium one-seat environment (TractorEnv) vs {a.others}: {a.gym_episodes} episodes, {steps:,} steps: "
          f"{steps / dt:,.0f} steps/s, {a.gym_episodes / dt:,.1f} episodes/s")


if __name__ == "__main__":
    main()
