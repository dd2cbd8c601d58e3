"""The suite over several processes (``make test``: pytest-xdist, ``-n auto --dist loadgroup``).

Most of a cold suite's time is numba compiling a kernel set once: the
4-player 2-deck kernels, each other game size's package copy
(tractor_sim.play.packages), the search.  Workers share what is compiled
through numba's disk cache and the shared size packages (written under a
lock), but two workers that start the same compile at once both pay for it.
So the test files that compile the same kernel set are one xdist group and
run on one worker, one after another: each game size compiles once per
session.  Every other file is a group of its own (a file's tests share its
module-level state, e.g. registered test strategies).  Without xdist the
marks do nothing.
"""

import pytest

# Files that compile the same sized package or kernel set: one worker each.
SHARED = {
    "test_tuples.py": "6 players 3 decks",
    "test_sized_deals.py": "6 players 3 decks",
    "test_declare9.py": "6 players 3 decks",
    "test_friends.py": "Finding Friends",
    "test_sizes.py": "Finding Friends",
    "test_search.py": "search",
    "test_sampler.py": "search",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        item.add_marker(pytest.mark.xdist_group(SHARED.get(name, name)))
