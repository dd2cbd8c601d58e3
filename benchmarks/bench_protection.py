"""What the plug-in protection costs (issue 13): nothing on built-ins, measured on a plug-in.

Run: python benchmarks/bench_protection.py [--deals 20000] [--repeats 7]

A. Built-ins (basic vs basic): the protected in-process path (``runner.iter_results``:
   ``sandbox.run_checked`` and the Ctrl-C handler set and reset around each kernel call)
   against ``engine.run_chunk`` called directly (the path before); and a check that the
   built-in strategies are compiled exactly as before (no bounds checking).
B. A plug-in: the worked example of docs/strategies.md (``grab_points``, which inlines the
   strategy library's helpers) compiled with bounds checking, the default for a user's
   module, against the same source with ``boundscheck=False`` (grabber vs basic).

The two sides of each pair run alternately in one process, on the same deals; the
figures are medians of deals/s (the machine is shared: compare the ratios).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tractor_sim.runs import engine  # noqa: E402

from tractor_sim.runs import runner

from tractor_sim.play import registry as strategy
from tractor_sim.play.registry.declared import _STRATEGIES


def _rate(fn, specs) -> float:
    t = time.perf_counter()
    n = sum(len(fn(s).deals) for s in specs)
    return n / (time.perf_counter() - t)


def _ab(name_a, specs_a, fn_a, name_b, specs_b, fn_b, repeats):
    """A and B alternately (which goes first alternates too); medians, and the median of the
    per-round ratios, which a shared machine's changing load moves least."""
    fn_a(specs_a[0]), fn_b(specs_b[0])  # compile / load
    a, b = [], []
    for i in range(repeats):
        if i % 2:
            b.append(_rate(fn_b, specs_b))
            a.append(_rate(fn_a, specs_a))
        else:
            a.append(_rate(fn_a, specs_a))
            b.append(_rate(fn_b, specs_b))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"  {name_a:44s} {ma:10,.0f} deals/s   (runs: {', '.join(f'{x:,.0f}' for x in a)})")
    print(f"  {name_b:44s} {mb:10,.0f} deals/s   (runs: {', '.join(f'{x:,.0f}' for x in b)})")
    ratios = [y / x for x, y in zip(a, b)]
    print(f"  B/A: ratio of medians {mb / ma:.3f}, median of per-round ratios {statistics.median(ratios):.3f}")


def _protected(spec):
    return next(runner.iter_results([spec]))


def _plugins(tmp: Path) -> tuple[str, str]:
    doc = (ROOT / "docs" / "strategies.md").read_text()
    source = re.findall(r"```python\n(.*?)```", doc, re.S)[-1]
    checked = tmp / "checked.py"
    checked.write_text(source)
    unchecked = tmp / "unchecked.py"
    unchecked.write_text(source.replace('@strategy("follow", "grab_points",',
                                        '@strategy("follow", "grab_points_nb", boundscheck=False,')
                         .replace('policy("grabber",', 'policy("grabber_nb",')
                         .replace('follow="grab_points"', 'follow="grab_points_nb"'))
    return str(checked), str(unchecked)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    chunk = 5_000

    print("A. built-ins, basic vs basic: the protected path against the direct kernel call")
    strategy.load_builtins()
    flags = {info.dispatcher.targetoptions.get("boundscheck")
             for d in _STRATEGIES.values() for info in d.values() if strategy.is_builtin(info.module)}
    print(f"  boundscheck of the built-in strategies: {flags} (None: numba's default, off)")
    specs = engine.plan_chunks([("basic", "basic")], n=args.deals, seed=3, duplicate=False, chunk_size=chunk)
    _ab("engine.run_chunk (before)", specs, engine.run_chunk, "runner.iter_results (protected)", specs, _protected,
        args.repeats)

    print("B. a plug-in (docs' grab_points), grabber vs basic: bounds-checked against unchecked")
    with tempfile.TemporaryDirectory() as tmp:
        checked, unchecked = _plugins(Path(tmp))
        sa = engine.plan_chunks([("grabber_nb", "basic")], n=args.deals, seed=3, duplicate=False, chunk_size=chunk,
                                modules=[unchecked])
        sb = engine.plan_chunks([("grabber", "basic")], n=args.deals, seed=3, duplicate=False, chunk_size=chunk,
                                modules=[checked])
        _ab("boundscheck=False (opted out)", sa, engine.run_chunk, "boundscheck=True (default for plug-ins)", sb,
            engine.run_chunk, args.repeats)


if __name__ == "__main__":
    main()
