"""The suite over several processes (``make test``: pytest-xdist, ``-n auto --dist loadgroup``).

Most of a cold suite's time is numba compiling a kernel set once: the
4-player 2-deck kernels, each other game size's package copy
(tractor_sim.play.packages), the search.  Workers share what is compiled
through numba's disk cache and the shared size packages (written under a
lock), but two workers that start the same compile at once both pay for it.
So the test files that compile the same kernel set are one group and
run on one worker, one after another: each game size compiles once per
session; a test of another file parametrized by one of those sizes (``game``) joins the size's
group.  Every other file is a group of its own (a file's tests share its
module-level state, e.g. registered test strategies).  The groups start costliest first, by the seconds
each file took in a cold default tier (tests/durations.json; a fresh clone's
TRACTOR_TEST_DURATIONS=$PWD/tests/durations.json make test writes it again): by their number of tests,
a small file of heavy tests started last and held a worker alone at the end.  Without xdist the groups
do nothing (the scheduler at the end of this file places them).

Hypothesis keeps its example database in the repository (tests/hypothesis-db),
so an input that failed once is tried again first on every machine. Profiles:
``default`` (modest: the generated-input properties of tests/test_inputs.py and
tests/test_plugin_grammar.py scale their examples from its max_examples) and
``slow`` (HYPOTHESIS_PROFILE=slow, ten times more; run by the slow-marked
test_the_heavier_tier). Tests that set their own max_examples keep them.

Shared fixtures: ``view_of`` (the view builder of tests/views.py) and ``package_of`` (a game
size's compiled package).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

try:
    from tests import views
except ImportError:  # tests/ on sys.path instead of the project root
    import views


DATABASE = DirectoryBasedExampleDatabase(str(Path(__file__).parent / "hypothesis-db"))
settings.register_profile("default", database=DATABASE, deadline=None, max_examples=100,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("slow", parent=settings.get_profile("default"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# Files that compile the same sized package or kernel set: one worker each.
SHARED = {
    "test_tuples.py": "6 players 3 decks",
    "test_sized_deals.py": "6 players 3 decks",
    "test_declare9.py": "6 players 3 decks",
    "test_friends.py": "Finding Friends",
    "test_learned_friends.py": "Finding Friends",
    "test_sizes.py": "Finding Friends",
    "test_search.py": "search",  # the search, its sampler and inference, and the learned player it teaches
    "test_sampler.py": "search",
    "test_learned.py": "search",
    "test_infer.py": "search",
    "test_search_declare.py": "search",
    "test_param_ranges.py": "search",  # its learned player's ends compile what test_learned's training does
    "test_env.py": "environments",  # at 4 players, 2 decks: its docs examples compile the batched environment
    "test_vector_env.py": "environments",
}
# Tests of other files parametrized by one of those sizes (``game``): with the files of that size.
SIZED = {(6, 3, "tractor"): "6 players 3 decks", (5, 2, "friends"): "Finding Friends"}


@pytest.fixture
def view_of():
    """The one view builder (tests/views.py make_view): a seat's view as the deal kernel fills it,
    at any game size (``package=``)."""
    return views.make_view


@pytest.fixture
def package_of():
    """The compiled package of a game size (a GameSize, (players, decks[, teams]), a table; None:
    4 players, 2 decks, tractor_sim.core itself), compiled once a process."""
    from tractor_sim.play import packages

    return packages.compiled_package


def warm_steps(answer=None):
    """Play one 4-player 2-deck deal through the step API (Game), each answer ``answer(state)``, by
    default the first legal one: compiles the phases' apply and the legal answers' listing."""
    from tractor_sim.play.game import Game

    state = Game.of().new_initial_state(0, 0)
    while not state.over:
        state.apply(answer(state) if answer else state.legal(limit=1)[0])


def pytest_sessionstart(session):
    """Under xdist, the controller compiles the kernel set that test files of every group play (the
    4-player 2-deck engine with basic, expert and random, and the step API) before the workers start:
    otherwise each worker's first test compiles it at the same time, and a cold suite pays twice.  A
    child process compiles the step API and its legal answers meanwhile, on the other core."""
    config = session.config
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("dsession") \
            or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    from tractor_sim.runs import runner

    steps = subprocess.Popen([sys.executable, "-c", "from tests.conftest import warm_steps; warm_steps()"],
                             cwd=Path(__file__).resolve().parent.parent)
    runner.simulate([("expert", "basic"), ("random", "expert")], n=1, seed=0, duplicate=True, chunk_size=1)
    steps.wait()
    warm_steps(lambda state: state.answer_of("expert"))


def _size_key(game):
    """A ``game`` parameter, written as a tuple (players, decks, teams) or as a game table, as a key of
    SIZED (None for any other parameter)."""
    if isinstance(game, dict):
        return game.get("players", 4), game.get("decks", 2), game.get("teams", "tractor")
    return tuple(game) if isinstance(game, (tuple, list)) else None


LONG = "long: "  # the group of a test marked ``long``: itself, started before every other group


def _group(item):
    """The kernel set an item compiles: its size's (SIZED), its file's (SHARED), or its file alone.
    A test marked ``long`` is a group of its own, so that the scheduler can start it first."""
    if item.get_closest_marker("long"):
        return LONG + item.nodeid
    game = getattr(item, "callspec", None) and item.callspec.params.get("game")
    return SIZED.get(_size_key(game)) or SHARED.get(item.path.name, item.path.name)


DURATIONS = Path(__file__).parent / "durations.json"  # per test file: [seconds, tests] in a cold default tier
RECORD = "TRACTOR_TEST_DURATIONS"  # a path: the controller writes each file's [seconds, tests] there at the end
_taken: dict[str, list] = {}


def pytest_runtest_logreport(report):
    if os.environ.get(RECORD):
        taken = _taken.setdefault(report.nodeid.split("::")[0], [0.0, set()])
        taken[0] += report.duration  # setup, call and teardown
        taken[1].add(report.nodeid)


def pytest_sessionfinish(session):
    if os.environ.get(RECORD) and _taken and not hasattr(session.config, "workerinput"):
        Path(os.environ[RECORD]).write_text("{\n" + ",\n".join(
            f'"{f}": [{t:.1f}, {len(ids)}]' for f, (t, ids) in sorted(_taken.items())) + "\n}\n")


def _cost(nodeids, timed: dict) -> float:
    """A group's expected seconds: each file's as timed when the same number of its tests ran (the
    default tier), else a fifth of a second per test (the slow tier: the order by number of tests)."""
    files: dict[str, int] = {}
    for nodeid in nodeids:
        file = nodeid.split("::")[0]
        files[file] = files.get(file, 0) + 1
    return sum(timed[f][0] if timed.get(f, (0, -1))[1] == n else 0.2 * n for f, n in files.items())


# xdist's own ``loadgroup`` reads ``xdist_group`` marks through a suffix it writes into the node ids,
# which pytest 9.2 no longer reads back (Node.nodeid is derived from the structured id): every test
# became a group of its own and both workers compiled every kernel set at once.  So each worker writes
# the groups of what it collected to a file, and the controller's scheduler (below) reads them.
GROUPS = "TRACTOR_TEST_GROUPS"


def pytest_configure(config):
    if not hasattr(config, "workerinput") and config.getoption("dist", "no") == "loadgroup":
        os.environ[GROUPS] = tempfile.mkdtemp(prefix="tractor-test-groups-")  # the workers inherit it


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and os.environ.get(GROUPS):
        shutil.rmtree(os.environ.pop(GROUPS), ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    folder = os.environ.get(GROUPS)
    if folder and hasattr(config, "workerinput"):
        path = Path(folder) / config.workerinput["workerid"]
        path.with_suffix(".tmp").write_text(json.dumps({item.nodeid: _group(item) for item in items}))
        path.with_suffix(".tmp").replace(path.with_suffix(".json"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup``: xdist's scope scheduling, a scope being a kernel set (_group), read from
    the workers' files (each collected the same tests); the long tests go first, each on the next free
    worker, then the scopes by their expected seconds (_cost), most first: a long test or a costly group
    started last would hold the run's end alone."""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByKernelSet(LoadScopeScheduling):
        groups = None

        def _split_scope(self, nodeid):
            if self.groups is None:
                files = sorted(Path(os.environ[GROUPS]).glob("*.json"))
                self.groups = json.loads(files[0].read_text()) if files else {}
            return self.groups.get(nodeid, nodeid)

        ordered = False

        def _assign_work_unit(self, node):
            if not self.ordered:  # the first assignment: the queue is whole
                timed = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
                for scope in sorted(self.workqueue, key=lambda s: -_cost(self.workqueue[s], timed)):
                    self.workqueue.move_to_end(scope)
                self.ordered = True
            first = next((scope for scope in self.workqueue if scope.startswith(LONG)), None)
            if first is not None:
                self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    return ByKernelSet(config, log)
