"""Playing the game from Python: ``Game`` (a size under rules, the only way into the compiled
package), the step API (``state``), the strategy registry and its sandbox, the search policies'
names, the referee, replays and deal records, and the reinforcement-learning environments.

It sits on ``rules`` and ``core``; the runs, statistics and reports above it
reach the kernels only through ``Game``.
"""
