"""Environment steps per second: random agents (uniform over the allowed actions) stepping whole deals.

    PYTHONPATH=. python benchmarks/bench_env.py --episodes 2000
    PYTHONPATH=. python benchmarks/bench_env.py --episodes 500 --gym --others basic

AEC: all four seats act (an env step = one action of one seat).  --gym: one seat acts, the
others are a registered policy (a step = one action of that seat; the others' answers are inside).
"""

import argparse
import time

import numpy as np

from tractor_sim.play import env as E


def aec(episodes, seed, rules):
    env = E.aec_env(rules=rules)
    rng = np.random.default_rng(seed)
    steps = 0
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


def gym(episodes, seed, rules, others):
    env = E.TractorEnv(seat=0, others=others, rules=rules)
    rng = np.random.default_rng(seed)
    steps = 0
    for ep in range(episodes):
        obs, _ = env.reset(seed=seed + ep)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default=None)
    ap.add_argument("--gym", action="store_true")
    ap.add_argument("--others", default="basic")
    a = ap.parse_args()
    (gym(2, a.seed, a.rules, a.others) if a.gym else aec(2, a.seed, a.rules))  # compile / load the caches
    t0 = time.perf_counter()
    steps = gym(a.episodes, a.seed, a.rules, a.others) if a.gym else aec(a.episodes, a.seed, a.rules)
    dt = time.perf_counter() - t0
    kind = f"gym, others {a.others}" if a.gym else "AEC, four random seats"
    print(f"{kind}, rules {a.rules or 'default'}: {a.episodes} episodes, {steps} steps in {dt:.1f} s: "
          f"{steps / dt:,.0f} steps/s, {a.episodes / dt:,.1f} episodes/s")


if __name__ == "__main__":
    main()
