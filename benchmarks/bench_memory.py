"""Peak memory of a big run through the engine and the run store (no report).

Run: /usr/bin/time -v python benchmarks/bench_memory.py 5000000 /tmp/bigrun
(5,000,000 duplicate pairs = 10,000,000 deals; read "Maximum resident set size").
Measured: 10,000,000 deals in 132 s with a pool of 2, peak RSS 1.03 GB (README, Performance).
"""
import sys, time
from tractor_sim.runs import engine
from tractor_sim.runs import runner
from tractor_sim.runs.backends import make_executor
from tractor_sim.runs.store import RunStore

def main():
    n = int(sys.argv[1]); out = sys.argv[2]
    specs = engine.plan_chunks([("basic", "random")], n=n, seed=99, duplicate=True, chunk_size=100_000)
    store = RunStore(out, {"name": "bigengine", "seed": 99, "n": n}, "bigengine")
    manifest = store.open()
    index = {specs[0].matchup: 0}
    t = time.time()
    with make_executor("local", None, None, specs=specs) as ex:
        for r in runner.iter_results(specs, ex):
            store.write(r, index)
    print("deals", store.finalize(manifest, time.time() - t, expected=specs), "in", round(time.time() - t), "s")


if __name__ == "__main__":
    main()
